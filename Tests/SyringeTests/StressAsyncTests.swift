import Synchronization
import Testing
import Syringe

extension StressTests {
    /// Async factories under many tasks: each `.shared` instance created
    /// exactly once per container however many tasks race for it, `.graph`
    /// instances shared within each async graph (across child tasks and the
    /// synchronous factories inside it), one `.scoped` instance per scope,
    /// disposed once, and nothing left alive.
    @Suite("Async factories under many tasks")
    struct AsyncFactories {
        final class Pool: Sendable {
            let tracked: Tracked
            init(_ counter: Counter) async {
                await Task.yield()
                tracked = Tracked(counter)
            }
        }

        final class Node: Sendable {
            let tracked: Tracked
            init(_ counter: Counter) { tracked = Tracked(counter) }
        }

        final class Work: Sendable {
            let pool: Pool
            let left: Node
            let right: Node
            let syncLeft: Tracked
            let syncRight: Tracked
            init(pool: Pool, left: Node, right: Node, syncLeft: Tracked, syncRight: Tracked) {
                self.pool = pool
                self.left = left
                self.right = right
                self.syncLeft = syncLeft
                self.syncRight = syncRight
            }
        }

        @Test("many tasks × many containers and scopes: exactly once, shared within a graph, disposed once, none left alive")
        func manyTasks() async throws {
            let counter = Counter()
            let disposed = Atomic(0)
            let failures = StressFailures()
            let containers = 200
            let tasks = 12
            for _ in 0..<containers {
                let pools = Counter()
                let app = Container()
                app.register(type: Pool.self) { _ async in await Pool(pools) }
                app.register(type: Node.self, in: .graph) { _ async in
                    await Task.yield()
                    return Node(counter)
                }
                app.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
                app.register(type: Tracked.self, name: "left", in: .new) { r in try r.resolve(type: Tracked.self) }
                app.register(type: Work.self, in: .scoped) { (r: Resolver) async throws in
                    async let left: Node = r.resolve()
                    async let right: Node = r.resolve()
                    let syncLeft = try await r.resolve(type: Tracked.self, name: "left")
                    return Work(pool: try await r.resolve(), left: try await left, right: try await right,
                                syncLeft: syncLeft, syncRight: try await r.resolve())
                }
                .onDispose { (_: Work) async in disposed.add(1, ordering: .relaxed) }
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<tasks {
                        group.addTask {
                            do {
                                let scope = app.makeScope()
                                async let first: Work = scope.resolveAsync()
                                async let second: Work = scope.resolveAsync()
                                let (a, b) = try await (first, second)
                                if a !== b { failures.record("two .scoped instances in one scope") }
                                if a.left !== a.right { failures.record("a .graph instance built twice in one graph") }
                                if a.syncLeft !== a.syncRight { failures.record("a synchronous .graph instance built twice in one async graph") }
                                try await scope.close()
                            } catch {
                                failures.record("unexpected \(error)")
                            }
                        }
                    }
                }
                if pools.created != 1 { failures.record("\(pools.created) pools for one container") }
                try await app.close()
            }
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(disposed.load(ordering: .relaxed) == containers * tasks)
            #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) of \(counter.created) alive")
            #expect(counter.created == containers * tasks * 2)
        }
    }
}
