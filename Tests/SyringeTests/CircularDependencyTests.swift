import Synchronization
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

    /// Counts a loop's callback runs, and throws `Failure(code: 99)` past
    /// `limit`: without the cycle check the loop would never end.
    final class Brake: Sendable {
        private let runs = Atomic(0)
        let limit = 1_000

        var count: Int { runs.load(ordering: .relaxed) }

        func run() throws {
            if runs.add(1, ordering: .relaxed).newValue > limit {
                throw Failure(code: 99)
            }
        }
    }

    /// The README's client/server pair, both `.new`: each server's callback
    /// resolves a new client, whose factory resolves a new server.
    static func registerNewClientServerLoop(in c: Container, brake: Brake) {
        c.register(type: Client.self, in: .new) { r in ClientImp(server: try r.resolve()) as Client }
        c.register(type: Server.self, in: .new) { _ in ServerImp() as Server }
            .onResolved { r, server in
                try brake.run()
                server.client = try r.resolve(type: Client.self)
            }
    }

    @Test("the client/server loop with .new instances is a cycle: each callback would build another server")
    func newClientServerLoop() throws {
        let brake = Brake()
        let c = Container()
        Self.registerNewClientServerLoop(in: c, brake: brake)
        let error = try #require(expectResolutionError(.cycle) { try c.tryResolve(type: Client.self) })
        // Reported once the steps repeat: the first server's callback ran,
        // and built a second server whose callback would do the same.
        #expect(brake.count == 1)
        #expect(error.path == ["Client", "Server", "Client", "Server"])
        #expect(ObjectIdentifier(error.type) == ObjectIdentifier(Server.self))
        #expect(error.description.contains("onResolved callbacks on its path keep building new instances"))
    }

    /// `A`, `.new`, whose callback resolves `B`.
    final class Head: Sendable {}
    /// `B`, whose callback resolves a new `A`.
    final class Link: Sendable {}

    @Test("a registration twice on a chain of callbacks is no cycle when the chain ends (or takes arguments); one that goes on is")
    func callbackChains() throws {
        let brake = Brake()
        let c = Container()
        c.register(type: Head.self, in: .new) { _ in Head() }
            .onResolved { r, _ in
                try brake.run()
                _ = try r.resolve(type: Link.self)
            }
        c.register(type: Link.self) { _ in Link() }
            .onResolved { r, _ in _ = try r.resolve(type: Head.self) }
        // Head → (callback) Link → (callback) Head: the second Head's
        // callback finds the .shared Link made, and the chain ends.
        #expect(throws: Never.self) { try c.tryResolve(type: Head.self) }
        #expect(brake.count == 2)
        // With Link .new, every Head's callback builds another Link.
        c.register(type: Link.self, in: .new) { _ in Link() }
            .onResolved { r, _ in _ = try r.resolve(type: Head.self) }
        let error = try #require(expectResolutionError(.cycle) { try c.tryResolve(type: Head.self) })
        #expect(error.path == ["Head", "Link", "Head", "Link"])
        #expect(brake.count == 4)
        // With runtime arguments the steps repeat and the arguments need
        // not: a tree built through callbacks, one level less each time.
        let made = Atomic(0)
        c.register(type: Node.self) { (_: Resolver, levels: Int) in Node(levels: levels) }
            .onResolved { r, node in
                made.add(1, ordering: .relaxed)
                guard node.levels > 0 else { return }
                _ = try r.resolve(type: Node.self, arguments: node.levels - 1)
                _ = try r.resolve(type: Node.self, arguments: node.levels - 1)
            }
        #expect(throws: Never.self) { try c.tryResolve(type: Node.self, arguments: 4) }
        #expect(made.load(ordering: .relaxed) == 31)
    }

    /// A node of a tree built through callbacks, `levels` deep.
    final class Node: Sendable {
        let levels: Int
        init(levels: Int) { self.levels = levels }
    }

    @Test("an async resolve whose callback starts the .new client/server loop reports the cycle")
    func newClientServerLoopFromAsyncCallback() async throws {
        final class Screen: Sendable {}
        let brake = Brake()
        let c = Container()
        Self.registerNewClientServerLoop(in: c, brake: brake)
        c.register(type: Screen.self, in: .new) { (_: Resolver) async in Screen() }
            .onResolved { r, _ in _ = try r.resolve(type: Client.self) }
        do {
            _ = try await c.resolveAsync(type: Screen.self)
            Issue.record("the loop was not reported")
        } catch {
            #expect(ExpectedReason.cycle.matches(error.reason), "\(error)")
            #expect(error.path.suffix(4) == ["Client", "Server", "Client", "Server"])
        }
        #expect(brake.count == 1)
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
