import Synchronization
import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/GettingStarted.md`. The quick start,
/// the removals and the cycle are the README's, run by its suites; the
/// manifest is not compiled. `Animal`, `Cat` and `Tiger` are the shared
/// fixtures of `Fixtures.swift`; the types the article leaves to the reader
/// are nested here, so that their names shadow, in this suite only, any type
/// of the same name elsewhere in the test module.
@Suite("Guide: Getting Started")
struct DoccGettingStartedSnippets {
    /// Counts its instances, to tell a lazily created instance from one
    /// created at registration.
    final class Dog: Sendable {
        static let made = Atomic(0)
        init() { Dog.made.add(1, ordering: .relaxed) }
    }

    @Test("Register an instance: created on the first resolve, then shared")
    func registerAnInstance() {
        let container = Container()
        let before = Dog.made.load(ordering: .relaxed)

        container.register(type: Dog.self, dependency: Dog())
        container.register(type: Clock.self, instance: SystemClock())

        #expect(Dog.made.load(ordering: .relaxed) == before, "registering does not create the instance")
        let dog = container.resolve(type: Dog.self)
        #expect(Dog.made.load(ordering: .relaxed) == before + 1, "the first resolve creates it")
        #expect(container.resolve(type: Dog.self) === dog, "a registration is .shared unless you say otherwise")
        #expect(container.resolve(type: Clock.self) === container.resolve(type: Clock.self))
        #expect(Dog.made.load(ordering: .relaxed) == before + 1)
    }

    @Test("Register several services of one type")
    func severalServicesOfOneType() throws {
        var resolved: (cat: Animal, lion: Animal?, container: Container)?
        let values = try doccStatementValues {
            let c = Container()
            c.register(type: Animal.self, name: "Cat", dependency: Cat())
            c.register(type: Animal.self, name: "Tiger") { _ in Tiger() }

            let cat = try c.tryResolve(type: Animal.self, name: "Cat")
            let lion = c.resolveIfRegistered(type: Animal.self, name: "Lion")   // nil: nothing is registered
            c.isRegistered(type: Animal.self, name: "Cat")                      // true

            resolved = (cat, lion, c)
        }
        #expect(values.compactMap { $0 as? Bool } == [true], "the line commented `// true`")
        let (cat, lion, c) = try #require(resolved)
        #expect(cat is Cat)
        #expect(lion == nil)
        #expect(c.resolve(type: Animal.self, name: "Tiger") is Tiger)
        #expect(!c.isRegistered(type: Animal.self), "a name tells registrations apart: none is unnamed")

        // Names are compared as Swift compares strings.
        c.register(type: Animal.self, name: "café", dependency: Cat())
        #expect(c.resolveIfRegistered(type: Animal.self, name: "cafe\u{301}") is Cat)
    }

    protocol Clock: AnyObject, Sendable {}
    final class SystemClock: Clock {}
    protocol Reader: AnyObject {}
    protocol Writer: AnyObject {}
    final class Store: Reader, Writer {}
    protocol Plugin { var id: String { get } }
    struct MetricsPlugin: Plugin { let id = "metrics" }
    struct TracingPlugin: Plugin { let id = "tracing" }
    struct AuditPlugin: Plugin { let id = "audit" }
    struct LatePlugin: Plugin { let id = "late" }

    @Test("Register one service under several types; resolve them all")
    func oneServiceUnderSeveralTypes() {
        let parent = Container()
        parent.register(type: Plugin.self, name: "audit") { _ in AuditPlugin() }
        let c = Container(parent: parent)
        var resolvedPlugins: [Plugin] = []
        let values = doccStatementValues {
            c.register(type: Store.self) { _ in Store() }
                .implements(Reader.self)
                .implements(Writer.self)
            c.resolve(type: Reader.self) === c.resolve(type: Store.self)    // true: the same shared instance

            c.register(type: Plugin.self, name: "metrics") { _ in MetricsPlugin() }
            c.register(type: Plugin.self, name: "tracing") { _ in TracingPlugin() }
            let plugins = c.resolveAll(type: Plugin.self)                   // the root's first, each in registration order

            resolvedPlugins = plugins
        }
        #expect(values.compactMap { $0 as? Bool } == [true], "the line commented `// true`")
        #expect(c.resolve(type: Writer.self) === c.resolve(type: Store.self))
        #expect(resolvedPlugins.map(\.id) == ["audit", "metrics", "tracing"])
        // The root's first even when registered last.
        parent.register(type: Plugin.self, name: "late") { _ in LatePlugin() }
        #expect(c.resolveAll(type: Plugin.self).map(\.id) == ["audit", "late", "metrics", "tracing"])
    }

    protocol API {}
    struct LiveAPI: API {}
    struct FakeAPI: API {}
    struct Session { let api: API }
    struct Request { let api: API }

    @Test("Override registrations in a child container")
    func childContainer() throws {
        var containers: (app: Container, child: Container)?
        let values = doccStatementValues {
            let app = Container()
            app.register { _ in LiveAPI() as API }
            app.register(type: Session.self) { r in Session(api: try r.resolve()) }

            let child = Container(parent: app)
            child.register { _ in FakeAPI() as API }
            child.resolve(type: API.self)              // FakeAPI

            containers = (app, child)
        }
        let resolved = values.compactMap { $0 as? any API }
        #expect(resolved.count == 1 && resolved.first is FakeAPI, "the line commented `// FakeAPI`")
        let (app, child) = try #require(containers)
        #expect(app.resolve(type: API.self) is LiveAPI)
        #expect(child.resolve(type: Session.self).api is LiveAPI, "app's .shared Session resolves from app")
        // `.new` and `.graph` factories resolve from the container that was asked.
        app.register(type: Request.self, in: .new) { r in Request(api: try r.resolve()) }
        #expect(child.resolve(type: Request.self).api is FakeAPI)
        #expect(app.resolve(type: Request.self).api is LiveAPI)
    }

    // The quick start's types.
    protocol Logger { func log(_ message: String) }
    struct ConsoleLogger: Logger { func log(_ message: String) { print(message) } }
    final class Repo {
        let logger: Logger
        init(logger: Logger) { self.logger = logger }
    }
    final class Report {
        init(title: String) {}
    }

    @Test("Check the wiring before the first request")
    func checkTheWiring() throws {
        let container = Container()
        container.register { _ in ConsoleLogger() as Logger }
        container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }

        try container.validate()

        #expect(try container.validate().validated.count == 2)
        // Every problem at once: here two, in two registrations.
        let unwired = Container()
        unwired.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }
        unwired.register(type: Report.self, in: .new) { r in Report(title: try r.resolve()) }
        let error = #expect(throws: ValidationError.self) { try unwired.validate() }
        #expect(Set(error?.problems.map(\.path) ?? []) == [["Repo", "Logger"], ["Report", "String"]], "\(String(describing: error))")
    }
}
