import Synchronization
import Testing
import Syringe

// The README's examples, as written there, so that the guide cannot drift
// from the API. Types the README leaves to the reader are defined at the end.

@Suite("README examples")
struct ReadmeExampleTests {
    @Test("Quick start")
    func quickStart() throws {
        let container = Container()
        container.register { _ in ConsoleLogger() as Logger }
        container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }

        let repo = container.resolve(type: Repo.self)
        let logger: Logger = try container.tryResolve()
        #expect(repo.logger is ConsoleLogger)
        #expect(logger is ConsoleLogger)
    }

    @Test("Registering and resolving")
    func registering() throws {
        let c = Container()
        c.register(type: Dog.self, dependency: Dog())
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        c.register(type: Animal.self, name: "Tiger") { _ in Tiger() }

        let dog = c.resolve(type: Dog.self)
        let cat = try c.tryResolve(type: Animal.self, name: "Cat")
        let lion = c.resolveIfRegistered(type: Animal.self, name: "Lion")
        #expect(c.isRegistered(type: Animal.self, name: "Cat"))
        #expect(dog.sound == "wooof" && cat is Cat && lion == nil)

        c.remove(type: Dog.self)
        c.remove(type: Animal.self, name: "Cat")
        #expect(!c.isRegistered(type: Dog.self) && !c.isRegistered(type: Animal.self, name: "Cat"))
        c.removeAll()
        #expect(!c.isRegistered(type: Animal.self, name: "Tiger"))

        c.register(type: Animal.self, name: "caf\u{E9}", dependency: Cat())
        #expect(c.resolve(type: Animal.self, name: "cafe\u{301}") is Cat)
    }

    @Test("Scopes")
    func scopes() {
        let c = Container()
        c.register(type: Clock.self, in: .shared) { _ in SystemClock() }
        c.register(type: Request.self, in: .new) { _ in Request() }
        c.register(type: UnitOfWork.self, in: .graph) { _ in UnitOfWork() }
        c.register(type: Cache.self, in: .weak) { _ in Cache() }
        c.register(type: Cart.self, in: .scoped) { _ in Cart() }
        let scope = c.makeScope()
        #expect(scope.resolve(type: Cart.self) === scope.resolve(type: Cart.self))
        #expect(scope.resolve(type: Cart.self) !== c.makeScope().resolve(type: Cart.self))
        let clock = c.resolve(type: Clock.self)
        #expect(c.resolve(type: Clock.self) === clock)
        #expect(c.resolve(type: Request.self) !== c.resolve(type: Request.self))
        #expect(c.resolve(type: UnitOfWork.self) !== c.resolve(type: UnitOfWork.self))
        let cache = c.resolve(type: Cache.self)
        #expect(c.resolve(type: Cache.self) === cache)

        c.releaseSharedInstances()
        #expect(c.resolve(type: Clock.self) !== clock)
    }

    @Test("Scopes: a released instance is gone when releaseSharedInstances returns")
    func releasedSession() async {
        // A process of its own: another test's resolve in flight would rightly
        // defer the free.
        await #expect(processExitsWith: .success) {
            let c = Container()
            c.register { _ in UserSession(user: "ada") }
            weak var session = c.resolve(type: UserSession.self)
            c.releaseSharedInstances()   // logout
            precondition(session == nil, "the released session is alive")
        }
    }

    @Test("Runtime arguments")
    func arguments() throws {
        let c = Container()
        c.register(type: Manager.self, dependency: Manager())
        c.register(type: Numbered.self) { (r: Resolver, number: Int) in
            Numbered(integer: number, manager: try r.resolve())
        }
        c.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }

        let n = c.resolve(type: Numbered.self, arguments: 42)
        let e = try c.tryResolve(type: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
        let n2: Numbered = c.resolve(arguments: 7)
        #expect(n.integer == 42 && n2.integer == 7)
        #expect(e == Endpoint(url: "example.org", port: 443, secure: true))
    }

    @Test("Autoregistration")
    func autoregistration() {
        let c = Container()
        c.register(type: Manager.self, dependency: Manager())
        c.register(type: Int.self, dependency: 1)
        c.register(type: String.self, dependency: "s")
        c.register(type: Double.self, dependency: 2)
        c.autoregister(initializer: Dependency.init)
        c.autoregister(type: Wide.self, in: .new, initializer: Wide.init)
        c.autoregister(argument: Int.self, initializer: Numbered.init)
        let numbered: Numbered = c.resolve(arguments: 42)
        #expect(numbered.integer == 42)
        #expect(c.resolve(type: Wide.self).dependency.manager === c.resolve(type: Manager.self))
    }

    @Test("Type forwarding and resolve-all")
    func forwarding() {
        let c = Container()
        c.register(type: Store.self) { _ in Store() }
            .implements(Reader.self)
            .implements(Writer.self)
        #expect(c.resolve(type: Reader.self) === c.resolve(type: Store.self))
        #expect(c.resolve(type: Writer.self) === c.resolve(type: Store.self))

        c.register(type: Plugin.self, name: "metrics") { _ in MetricsPlugin() }
        c.register(type: Plugin.self, name: "tracing") { _ in TracingPlugin() }
        let plugins = c.resolveAll(type: Plugin.self)
        #expect(plugins.map(\.id) == ["metrics", "tracing"])
    }

    @Test("Child containers")
    func children() {
        let app = Container()
        app.register { _ in LiveAPI() as API }
        app.register(type: Session.self) { r in Session(api: try r.resolve()) }

        let test = Container(parent: app)
        test.register { _ in FakeAPI() as API }
        #expect(test.resolve(type: API.self) is FakeAPI)
        #expect(test.resolve(type: Session.self).api is LiveAPI, "a parent's shared factory resolves from the parent")
    }

    @Test("Errors")
    func errors() {
        let c = Container()
        c.register(type: Screen.self, in: .new) { r in Screen(viewModel: try r.resolve()) }
        c.register(type: ViewModel.self, in: .new) { r in ViewModel(service: try r.resolve()) }
        c.register { _ in ServiceImp() }
        do {
            _ = try c.tryResolve(type: Screen.self)
            Issue.record("expected a ResolutionError")
        } catch {
            #expect(error.description == """
                Syringe could not resolve Service: nothing is registered for it in this container or its parents.
                  path: Screen → ViewModel → Service
                  did you mean:
                    • ServiceImp, registered as its own type; if it is a Service, register it `as Service` or add `.implements(Service.self)`
                """)
        }
    }

    @Test("Request scopes")
    func requestScopes() async throws {
        let app = Container()
        app.register(type: Database.self) { _ in try Database.open(path: "app.sqlite") }   // .shared
            .onDispose { db in db.close() }                                               // sync disposer
        app.register(type: Transaction.self, in: .scoped) { r in try Transaction(db: r.resolve()) }
            .onDispose { tx async in await tx.rollbackIfOpen() }                          // async disposer
        app.register(type: RequestLog.self, in: .scoped) { r in RequestLog(id: try r.resolve(type: RequestID.self)) }
        app.register(type: TodoHandler.self, in: .new) { r in TodoHandler(tx: try r.resolve(), log: try r.resolve()) }

        // per request
        let scope = app.makeScope()                                         // a child Container
        scope.register(type: RequestID.self, dependency: RequestID("b7c1"))  // per-request values
        let handler = try scope.tryResolve(type: TodoHandler.self)
        try await scope.close()              // disposes what the scope created, newest first
        #expect(handler.log.id.value == "b7c1")
        #expect(handler.tx.wasRolledBack)

        // or closed on every exit path (return, throw, cancellation):
        let request = "GET /todos"
        try await app.withScope { scope in
            scope.register(type: RequestID.self, dependency: RequestID("b7c2"))
            try await handle(request, scope.tryResolve(type: TodoHandler.self))
        }

        // at shutdown
        let database = try app.tryResolve(type: Database.self)
        try await app.close()                // disposes the .shared instances, newest first
        #expect(database.isClosed)
    }

    @Test("Async factories")
    func asyncFactories() async throws {
        let c = Container()
        c.register(type: AppConfig.self) { _ in AppConfig(path: "app.sqlite") }           // synchronous, as before
        c.register(type: Pool.self) { (r: Resolver) async throws in                      // .shared, made once
            try await Pool.connect(config: r.resolve())
        }
        c.register(type: TodoRepo.self, in: .new) { (r: Resolver) async throws in TodoRepo(pool: try await r.resolve()) }
        c.register(type: MonthReport.self) { (r: Resolver, month: Int) async throws in
            try await MonthReport(month: month, repo: r.resolve())
        }
        c.register(type: TodoListModel.self, in: .new, isolatedTo: MainActor.self) { r in
            TodoListModel(config: try r.resolve())
        }

        let repo: TodoRepo = try await c.resolveAsync()
        let report = try await c.resolveAsync(type: MonthReport.self, arguments: 11)
        let model = try await c.resolveAsync(type: TodoListModel.self)      // built on the main actor
        #expect(repo.pool === report.repo.pool)
        #expect(report.month == 11)
        #expect(model.config.path == "app.sqlite")
        // A synchronous resolve of an async registration says how to resolve it instead.
        expectResolutionError(.registeredAsync) { try c.tryResolve(type: TodoRepo.self) }
    }

    @Test("The shared container is task-local")
    func sharedContainer() {
        let testContainer = Container()
        let fake = Manager()
        testContainer.register(type: Manager.self, dependency: fake)
        let manager = Container.$shared.withValue(testContainer) { UsesShared().manager }
        #expect(manager === fake)
    }
}

private protocol Logger { func log(_ message: String) }
private struct ConsoleLogger: Logger { func log(_ message: String) { print(message) } }
private final class Repo {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}
private protocol Clock: AnyObject {}
private final class SystemClock: Clock {}
private final class Request {}
private final class UnitOfWork {}
private final class Cache {}
private final class Cart {}
private final class Manager: Sendable {}
private final class Numbered: Sendable {
    let integer: Int
    let manager: Manager
    init(integer: Int, manager: Manager) { self.integer = integer; self.manager = manager }
}
private struct Endpoint: Equatable { let url: String; let port: Int; let secure: Bool }
private final class Dependency: Sendable {
    let manager: Manager
    init(manager: Manager) { self.manager = manager }
}
private final class Wide: Sendable {
    let dependency: Dependency
    init(manager: Manager, dependency: Dependency, count: Int, label: String, ratio: Double) { self.dependency = dependency }
}
private protocol Reader: AnyObject {}
private protocol Writer: AnyObject {}
private final class Store: Reader, Writer {}
private protocol Plugin { var id: String { get } }
private struct MetricsPlugin: Plugin { let id = "metrics" }
private struct TracingPlugin: Plugin { let id = "tracing" }
private protocol API {}
private struct LiveAPI: API {}
private struct FakeAPI: API {}
private struct Session { let api: API }
private struct ViewModel { let service: Service }
private struct Screen { let viewModel: ViewModel }
private final class UsesShared { @Injected var manager: Manager }
final class UserSession: Sendable {
    let user: String
    init(user: String) { self.user = user }
}

private final class Database: Sendable {
    let closed = Atomic(false)
    static func open(path: String) throws -> Database { Database() }
    var isClosed: Bool { closed.load(ordering: .relaxed) }
    func close() { closed.store(true, ordering: .relaxed) }
}
private final class Transaction: Sendable {
    let db: Database
    let rolledBack = Atomic(false)
    init(db: Database) throws { self.db = db }
    var wasRolledBack: Bool { rolledBack.load(ordering: .relaxed) }
    func rollbackIfOpen() async { rolledBack.store(true, ordering: .relaxed) }
}
private struct RequestID: Sendable {
    let value: String
    init(_ value: String) { self.value = value }
}
private struct RequestLog { let id: RequestID }
private struct TodoHandler { let tx: Transaction; let log: RequestLog }
private func handle(_ request: String, _ handler: TodoHandler) async throws {}

private struct AppConfig: Sendable { let path: String }
private final class Pool: Sendable {
    let path: String
    private init(path: String) { self.path = path }
    static func connect(config: AppConfig) async throws -> Pool {
        await Task.yield()
        return Pool(path: config.path)
    }
}
private final class TodoRepo: Sendable {
    let pool: Pool
    init(pool: Pool) { self.pool = pool }
}
private final class MonthReport: Sendable {
    let month: Int
    let repo: TodoRepo
    init(month: Int, repo: TodoRepo) async {
        await Task.yield()
        self.month = month
        self.repo = repo
    }
}
@MainActor private final class TodoListModel {
    let config: AppConfig
    init(config: AppConfig) { self.config = config }
}
