import Synchronization
import Syringe
import Testing

/// README "Type forwarding and resolve-all", "Child containers",
/// "Assemblies" and "Circular dependencies" (both examples). `Client`, `Server`, `ClientImp`
/// and `ServerImp` are the shared fixtures of `Fixtures.swift`.
@Suite("README: Type forwarding, Child containers, Assemblies, Circular dependencies")
struct ReadmeCompositionSnippets {
    protocol Reader: AnyObject {}
    protocol Writer: AnyObject {}
    final class Store: Reader, Writer {}
    protocol Plugin { var id: String { get } }
    struct MetricsPlugin: Plugin { let id = "metrics" }
    struct TracingPlugin: Plugin { let id = "tracing" }
    struct AuditPlugin: Plugin { let id = "audit" }

    @Test("Type forwarding and resolve-all")
    func typeForwarding() {
        let parent = Container()
        parent.register(type: Plugin.self, name: "audit") { _ in AuditPlugin() }
        let c = Container(parent: parent)

        c.register(type: Store.self) { _ in Store() }
            .implements(Reader.self)
            .implements(Writer.self)
        c.resolve(type: Reader.self) === c.resolve(type: Store.self)    // true: the same shared instance

        c.register(type: Plugin.self, name: "metrics") { _ in MetricsPlugin() }
        c.register(type: Plugin.self, name: "tracing") { _ in TracingPlugin() }
        let plugins = c.resolveAll(type: Plugin.self)                   // the root's first, each in registration order

        #expect(c.resolve(type: Reader.self) === c.resolve(type: Store.self))
        #expect(c.resolve(type: Writer.self) === c.resolve(type: Store.self))
        #expect(plugins.map(\.id) == ["audit", "metrics", "tracing"])
    }

    protocol API {}
    struct LiveAPI: API {}
    struct FakeAPI: API {}
    struct Session { let api: API }

    @Test("Child containers")
    func childContainers() {
        let app = Container()
        app.register { _ in LiveAPI() as API }
        app.register(type: Session.self) { r in Session(api: try r.resolve()) }

        let test = Container(parent: app)         // its own registrations first, then app's
        test.register { _ in FakeAPI() as API }
        test.resolve(type: API.self)              // FakeAPI

        #expect(test.resolve(type: API.self) is FakeAPI)
        #expect(app.resolve(type: API.self) is LiveAPI)
        #expect(test.resolve(type: Session.self).api is LiveAPI, "a parent's .shared factory resolves from the parent")
    }

    protocol APIClient: Sendable { var baseURL: String { get } }
    struct LiveAPIClient: APIClient { let baseURL: String }
    final class ProfileStore: Sendable {
        let api: APIClient
        private let warm = Atomic(false)
        init(api: APIClient) { self.api = api }
        var isWarm: Bool { warm.load(ordering: .relaxed) }
        func warmUp() { warm.store(true, ordering: .relaxed) }
    }

    @Test("Assemblies")
    func assemblies() {
        struct NetworkAssembly: Assembly {
            let baseURL: String
            func assemble(into container: Container) {
                container.register { _ in LiveAPIClient(baseURL: baseURL) as APIClient }
            }
        }

        struct ProfileAssembly: Assembly {
            func assemble(into container: Container) {
                container.register(type: ProfileStore.self) { r in ProfileStore(api: try r.resolve()) }
            }
            func loaded(_ container: Container) {   // optional: once every assembly has registered
                container.resolve(type: ProfileStore.self).warmUp()
            }
        }

        let app = Container()
        app.apply(NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly())

        let store = app.resolve(type: ProfileStore.self)
        #expect(store.isWarm, "loaded(_:) ran once every assembly had registered")
        #expect(store.api.baseURL == "https://api.example.org")
    }

    @Test("Circular dependencies")
    func circularDependencies() {
        let c = Container()

        c.register(type: Client.self, in: .graph) { r in ClientImp(server: try r.resolve()) as Client }
        c.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
            .onResolved { r, server in server.client = try r.resolve(type: Client.self) }

        let client = c.resolve(type: Client.self)
        client.server.client === client   // true

        #expect(client.server.client === client)
    }

    @Test("Circular dependencies, the client's factory async")
    func circularDependenciesHalfAsync() async throws {
        let c = Container()

        c.register(type: Client.self, in: .graph) { (r: Resolver) async throws in ClientImp(server: try await r.resolve()) as Client }
        c.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
            .onResolved { r, server in server.client = try r.resolve(type: Client.self) }

        let client = try await c.resolveAsync(type: Client.self)
        client.server.client === client   // true

        #expect(client.server.client === client)
    }
}
