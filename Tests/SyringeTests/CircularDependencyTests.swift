import Testing
import Syringe

@Suite("Circular dependencies through property injection")
struct CircularDependencyTests {
    @Test("Dip's client/server: client.server.client === client")
    func clientServer() throws {
        let c = Container()
        c.register(type: Client.self, in: .graph) { r in ClientImp(server: try r.resolve()) as Client }
        c.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
            .onResolved { r, server in server.client = try r.resolve(type: Client.self) }
        let client = try c.tryResolve(type: Client.self)
        #expect(client.server.client === client)
        // A second top-level resolve builds a second graph.
        let other = try c.tryResolve(type: Client.self)
        #expect(other !== client)
        #expect(other.server.client === other)
    }

    @Test("resolving the server first closes the loop the other way")
    func serverFirst() throws {
        // ServerImp holds its client weakly, as in Dip's example; keep it alive here.
        final class Keeper: @unchecked Sendable { var client: Client? }
        let keeper = Keeper()
        let c = Container()
        c.register(type: Client.self, in: .graph) { r in ClientImp(server: try r.resolve()) as Client }
        c.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
            .onResolved { r, server in
                let client = try r.resolve(type: Client.self)
                keeper.client = client
                server.client = client
            }
        let server = try c.tryResolve(type: Server.self)
        let client = try #require(server.client)
        #expect(client === keeper.client)
        #expect(client.server === server)
    }

    @Test("onResolved runs once per new instance, in registration order")
    func callbackOrder() throws {
        final class Log: @unchecked Sendable { var entries: [String] = [] }
        let log = Log()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(Counter()) }
            .onResolved { _, _ in log.entries.append("first") }
            .onResolved { _, _ in log.entries.append("second") }
        _ = try c.tryResolve(type: Tracked.self)
        _ = try c.tryResolve(type: Tracked.self)
        #expect(log.entries == ["first", "second"])
    }

    @Test("a throwing onResolved fails the top-level resolve with its path")
    func throwingCallback() throws {
        struct Outer {}
        let c = Container()
        c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            .onResolved { _, _ in throw Failure(code: 3) }
        c.register(type: Outer.self, in: .new) { r -> Outer in
            let _: Tracked = try r.resolve()
            return Outer()
        }
        let direct = try #require(expectResolutionError(.factoryFailed(Failure(code: 3))) { try c.tryResolve(type: Tracked.self) })
        #expect(direct.path == ["Tracked"])
        #expect(ObjectIdentifier(direct.type) == ObjectIdentifier(Tracked.self))
        // Callbacks run after the outermost factory has returned, outside
        // every frame: the path is the one their instance was made on.
        let nested = try #require(expectResolutionError(.factoryFailed(Failure(code: 3))) { try c.tryResolve(type: Outer.self) })
        #expect(nested.path == ["Outer", "Tracked"])
        #expect(ObjectIdentifier(nested.type) == ObjectIdentifier(Tracked.self))
        c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
        #expect(throws: Never.self) { try c.tryResolve(type: Tracked.self) }
        #expect(throws: Never.self) { try c.tryResolve(type: Outer.self) }
    }
}
