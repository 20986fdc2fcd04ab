import Synchronization
import Testing
import Syringe

/// A node of an async `.graph` chain: the node below it, if any.
final class ChainNode: Sendable {
    let below: ChainNode?
    let root: ChainNode?
    init(below: ChainNode?, root: ChainNode?) {
        self.below = below
        self.root = root
    }
}

/// An async client and server that know each other: the server gets its
/// client in an `onResolved` callback (the README's way out of a cycle).
final class AsyncClient: Sendable {
    let server: AsyncServer
    init(server: AsyncServer) { self.server = server }
}

final class AsyncServer: @unchecked Sendable {
    // @unchecked: set once, by the callback, before the resolve returns it.
    weak var client: AsyncClient?
    let tracked: Tracked
    init(tracked: Tracked) { self.tracked = tracked }
}

/// `.graph` instances built by async factories: each graph keeps its own
/// slots and claims (`AsyncResolution`), and only a slot another task of the
/// graph waits for goes through the process-wide `AsyncClaims`.
@Suite("Async .graph")
struct AsyncGraphTests {
    @Test("many child tasks asking for one .graph instance being built share it: its factory runs once")
    func contendedSlot() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self, in: .graph) { _ async in await Connection(counter) }
        c.register(type: [Connection].self, in: .new) { (r: Resolver) async throws in
            try await withThrowingTaskGroup(of: Connection.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await r.resolve() }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        for round in 1...20 {
            let connections = try await c.resolveAsync(type: [Connection].self)
            #expect(connections.count == 16)
            #expect(connections.allSatisfy { $0 === connections[0] })
            #expect(counter.created == round)
        }
    }

    @Test("when the task building a .graph instance fails, the tasks waiting for it retry: one builds it, the rest share it")
    func failedBuilderRetried() async throws {
        let counter = Counter()
        let calls = Atomic(0)
        struct Flaky: Error {}
        let c = Container()
        c.register(type: Connection.self, in: .graph) { _ async throws in
            let call = calls.add(1, ordering: .relaxed).newValue
            await Task.yield()
            if call == 1 { throw Flaky() }
            return await Connection(counter)
        }
        c.register(type: [Connection?].self, in: .new) { (r: Resolver) async throws in
            await withTaskGroup(of: Connection?.self) { group in
                for _ in 0..<8 {
                    group.addTask { try? await r.resolve(type: Connection.self) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let outcomes = try await c.resolveAsync(type: [Connection?].self)
        let built = outcomes.compactMap { $0 }
        #expect(outcomes.count - built.count == 1)
        #expect(built.allSatisfy { $0 === built[0] })
        #expect(calls.load(ordering: .relaxed) == 2)
        #expect(counter.created == 1)
    }

    // Five minutes, not one: run beside the churn test (`swift test` runs
    // both), this test finishes only when the churn's exit test does, and on
    // a slow 2-core machine that took 75 s (seen at 9b38e3f as well). A hang
    // still fails it.
    @Test("two child tasks of one graph, each building a .graph instance the other needs, fail with a cycle and never hang",
          .timeLimit(.minutes(5)))
    func crossTaskCycleInGraph() async throws {
        struct BothBuilt: Error {}
        for _ in 0..<20 {
            let c = Container()
            let started = Atomic(0)
            c.register(type: Connection.self, in: .graph) { (r: Resolver) async throws in
                started.add(1, ordering: .relaxed)
                while started.load(ordering: .relaxed) < 2 { await Task.yield() }
                _ = try await r.resolve(type: Repository.self)
                return await Connection(Counter())
            }
            c.register(type: Repository.self, in: .graph) { (r: Resolver) async throws in
                started.add(1, ordering: .relaxed)
                while started.load(ordering: .relaxed) < 2 { await Task.yield() }
                return Repository(connection: try await r.resolve(), counter: Counter())
            }
            c.register(type: Pair<Connection>.self, in: .new) { (r: Resolver) async throws in
                async let repository = r.resolve(type: Repository.self)
                async let connection = r.resolve(type: Connection.self)
                _ = try await (repository, connection)
                throw BothBuilt()
            }
            await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Pair<Connection>.self) }
        }
    }

    @Test("an async resolve's onResolved callbacks join it: a synchronous resolve there returns the graph's instances, async ones included")
    func callbacksShareTheGraph() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: AsyncClient.self, in: .graph) { (r: Resolver) async throws in AsyncClient(server: try await r.resolve()) }
        c.register(type: AsyncServer.self, in: .new) { (r: Resolver) async throws in AsyncServer(tracked: try await r.resolve()) }
            .onResolved { r, server in
                server.client = try r.resolve(type: AsyncClient.self)
                #expect(try r.resolve(type: Tracked.self) === server.tracked)
            }
        let client = try await c.resolveAsync(type: AsyncClient.self)
        #expect(client.server.client === client)
        #expect(counter.created == 1)
    }

    @Test("a chain of .graph registrations deeper than the path filter's 64 bits resolves, shares its root, and still reports a cycle")
    func deepChain() async throws {
        let depth = 200
        let c = Container()
        c.register(type: ChainNode.self, name: "0", in: .graph) { _ async in ChainNode(below: nil, root: nil) }
        for level in 1..<depth {
            c.register(type: ChainNode.self, name: "\(level)", in: .graph) { (r: Resolver) async throws in
                ChainNode(below: try await r.resolve(type: ChainNode.self, name: "\(level - 1)"), root: try await r.resolve(type: ChainNode.self, name: "0"))
            }
        }
        let top = try await c.resolveAsync(type: ChainNode.self, name: "\(depth - 1)")
        var levels = 1
        var node = top
        while let below = node.below {
            #expect(node.root === below.root ?? below)
            node = below
            levels += 1
        }
        #expect(levels == depth)

        // The bottom now asks for the top: a cycle through every level.
        c.register(type: ChainNode.self, name: "0", in: .graph) { (r: Resolver) async throws in
            ChainNode(below: try await r.resolve(type: ChainNode.self, name: "\(depth - 1)"), root: nil)
        }
        let error = try #require(await expectAsyncResolutionError(.cycle) {
            try await c.resolveAsync(type: ChainNode.self, name: "\(depth - 1)")
        })
        #expect(error.path.count == depth + 1)
    }
}
