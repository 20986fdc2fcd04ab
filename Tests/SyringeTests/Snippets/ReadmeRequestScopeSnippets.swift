import Synchronization
import Syringe
import Testing

/// README "Request scopes" and "Async factories". The services the snippets
/// leave to the reader are nested here.
@Suite("README: Request scopes, Async factories")
struct ReadmeRequestScopeSnippets {
    final class Database: Sendable {
        private let closed = Atomic(false)
        static func open(path: String) throws -> Database { Database() }
        var isClosed: Bool { closed.load(ordering: .relaxed) }
        func close() { closed.store(true, ordering: .relaxed) }
    }
    final class Transaction: Sendable {
        let db: Database
        private let rolledBack = Atomic(false)
        init(db: Database) throws { self.db = db }
        var wasRolledBack: Bool { rolledBack.load(ordering: .relaxed) }
        func rollbackIfOpen() async { rolledBack.store(true, ordering: .relaxed) }
    }
    struct RequestID: Sendable {
        let value: String
        init(_ value: String) { self.value = value }
    }
    struct RequestLog { let id: RequestID }
    struct TodoHandler { let tx: Transaction; let log: RequestLog }

    @Test("Request scopes")
    func requestScopes() async throws {
        let handled = Locked<[TodoHandler]>([])
        func handle(_ request: String, _ handler: TodoHandler) async throws {
            #expect(!handler.tx.wasRolledBack, "the scope is open while the request is handled")
            handled.withLock { $0.append(handler) }
        }
        let request = "GET /todos"

        let app = Container()
        app.register(type: Database.self) { _ in try Database.open(path: "app.sqlite") }   // .shared
            .onDispose { db in db.close() }                                               // sync disposer
        app.register(type: Transaction.self, in: .scoped) { r in try Transaction(db: r.resolve()) }
            .onDispose { tx async in await tx.rollbackIfOpen() }                          // async disposer
        app.register(type: RequestLog.self, in: .scoped) { r in RequestLog(id: try r.resolve(type: RequestID.self)) }
        app.register(type: TodoHandler.self, in: .new) { r in TodoHandler(tx: try r.resolve(), log: try r.resolve()) }

        // per request
        let scope = app.makeScope()                                         // a child Container
        scope.register(type: RequestID.self, instance: RequestID("b7c1"))    // per-request values
        let handler = try scope.tryResolve(type: TodoHandler.self)
        try await scope.close()              // disposes what the scope created, newest first

        // or closed on every exit path (return, throw, cancellation):
        try await app.withScope { scope in
            scope.register(type: RequestID.self, instance: RequestID("b7c2"))
            try await handle(request, scope.tryResolve(type: TodoHandler.self))
        }

        // at shutdown
        try await app.close()                // disposes the .shared instances, newest first

        #expect(handler.log.id.value == "b7c1")
        #expect(handler.tx.wasRolledBack, "the scope's close ran the async disposer")
        expectResolutionError(.closed) { try scope.tryResolve(type: TodoHandler.self) }
        let other = try #require(handled.withLock { $0.first })
        #expect(other.log.id.value == "b7c2")
        #expect(other.tx !== handler.tx, "one Transaction per scope")
        #expect(other.tx.wasRolledBack, "withScope closed its scope")
        #expect(other.tx.db === handler.tx.db, "one Database, .shared in app")
        #expect(handler.tx.db.isClosed, "the container's close ran the sync disposer")
        expectResolutionError(.closed) { try app.tryResolve(type: Database.self) }
    }

    @Test("Request scopes: withScope closes the scope when its body throws")
    func withScopeClosesOnThrow() async throws {
        let app = Container()
        app.register(type: Database.self) { _ in try Database.open(path: "app.sqlite") }
        app.register(type: Transaction.self, in: .scoped) { r in try Transaction(db: r.resolve()) }
            .onDispose { tx async in await tx.rollbackIfOpen() }
        let opened = Locked<Transaction?>(nil)
        await #expect(throws: Failure(code: 1)) {
            try await app.withScope { scope in
                let tx = try scope.tryResolve(type: Transaction.self)
                opened.withLock { $0 = tx }
                throw Failure(code: 1)
            }
        }
        #expect(try #require(opened.withLock { $0 }).wasRolledBack)
    }

    struct AppConfig: Sendable { let path: String }
    final class Pool: Sendable {
        let path: String
        private init(path: String) { self.path = path }
        static func connect(config: AppConfig) async throws -> Pool {
            await Task.yield()
            return Pool(path: config.path)
        }
    }
    final class TodoRepo: Sendable {
        let pool: Pool
        init(pool: Pool) { self.pool = pool }
    }
    final class MonthReport: Sendable {
        let month: Int
        let repo: TodoRepo
        init(month: Int, repo: TodoRepo) async {
            await Task.yield()
            self.month = month
            self.repo = repo
        }
    }
    @MainActor final class TodoListModel {
        let config: AppConfig
        init(config: AppConfig) { self.config = config }
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

        #expect(repo.pool === report.repo.pool, "Pool is .shared: made once")
        #expect(repo !== report.repo, "TodoRepo is .new")
        #expect(repo.pool.path == "app.sqlite")
        #expect(report.month == 11)
        #expect(await model.config.path == "app.sqlite")
        // A synchronous resolve of an async registration says how to resolve it instead.
        expectResolutionError(.registeredAsync) { try c.tryResolve(type: TodoRepo.self) }
    }
}
