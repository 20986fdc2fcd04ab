#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

        final class Unit: Sendable {}

        @Test("child tasks asking at once for a synchronous .graph instance: its factory runs once, and only that instance gets callbacks and is disposed")
        func synchronousGraphInstanceBuiltOnce() async throws {
            let failures = StressFailures()
            for _ in 0..<20 {
                let asked = StressCount()
                let made = StressCount()
                let configured = StressCount()
                let disposed = StressCount()
                let app = Container()
                app.register(type: Unit.self, in: .graph) { _ in
                    made.increment()
                    // Until a second task has asked (on another thread; with
                    // one thread in the pool, until the deadline), and a
                    // little longer: an unclaimed second build starts meanwhile.
                    let deadline = StressDeadline(seconds: 0.5)
                    while asked.load < 2 && !deadline.passed {
                        sched_yield()
                    }
                    usleep(1_000)
                    return Unit()
                }
                .onResolved { _, _ in configured.increment() }
                .onDispose { _ in disposed.increment() }
                app.register(type: [Unit].self, in: .new) { (r: Resolver) async throws in
                    try await withThrowingTaskGroup(of: Unit.self) { group in
                        for _ in 0..<8 {
                            group.addTask {
                                asked.increment()
                                return try await r.resolve(type: Unit.self)
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                let scope = app.makeScope()
                let units = try await scope.resolveAsync(type: [Unit].self)
                try await scope.close()
                if !units.allSatisfy({ $0 === units[0] }) { failures.record("two instances in one graph") }
                if made.load != 1 { failures.record("the factory ran \(made.load) times") }
                if configured.load != 1 { failures.record("onResolved ran \(configured.load) times") }
                if disposed.load != 1 { failures.record("\(disposed.load) instances disposed") }
            }
            #expect(failures.count == 0, "\(failures.summary)")
        }

        final class Keeper: Sendable {
            let node: Node
            init(node: Node) { self.node = node }
        }

        final class Root: Sendable {
            let keeper: Keeper
            let node: Node
            init(keeper: Keeper, node: Node) {
                self.keeper = keeper
                self.node = node
            }
        }

        @Test("frames reused across threads while tasks keep resolvers: every resolve right, no false cycle, none left alive")
        func framesReusedWhileResolversKept() async throws {
            let counter = Counter()
            let failures = StressFailures()
            let kept = KeptResolverTasks()
            let app = Container()
            app.register(type: Node.self, in: .new) { _ async in
                await Task.yield()
                return Node(counter)
            }
            // Each keeper hands its resolver to a task that resolves through
            // it after the resolve that made the keeper has returned and its
            // frames may have been reused by other resolves on its thread.
            app.register(type: Keeper.self, in: .new) { (r: Resolver) async throws in
                let keeper = Keeper(node: try await r.resolve())
                kept.resolveTwiceLater(through: r, failures: failures)
                return keeper
            }
            app.register(type: Root.self, in: .new) { (r: Resolver) async throws in
                async let keeper: Keeper = r.resolve()
                let node: Node = try await r.resolve()
                return Root(keeper: try await keeper, node: node)
            }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<300 {
                            do {
                                let root = try await app.resolveAsync(type: Root.self)
                                if root.node === root.keeper.node { failures.record("one .new instance for two resolves") }
                            } catch {
                                failures.record("unexpected \(error)")
                            }
                        }
                    }
                }
            }
            await kept.finish()
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(counter.created == 8 * 300 * 4)
            #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) of \(counter.created) alive")
        }

        @Test("containers let go while tasks still resolve through resolvers their factories kept: every resolve right, every container freed")
        func containersDroppedWhileResolversKept() async throws {
            let counter = Counter()
            let failures = StressFailures()
            let kept = KeptResolverTasks()
            let containers = Locked<[WeakContainer]>([])
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<100 {
                            // Each resolve's container is the task's own, and
                            // nothing but the kept resolvers holds it once the
                            // resolve has returned: the engine lent it to the
                            // keeper's frame, which must hold it from then on.
                            let app = Container()
                            containers.withLock { $0.append(WeakContainer(app)) }
                            app.register(type: Node.self, in: .new) { _ async in
                                await Task.yield()
                                return Node(counter)
                            }
                            app.register(type: Keeper.self, in: .new) { (r: Resolver) async throws in
                                kept.resolveTwiceLater(through: r, failures: failures)
                                return Keeper(node: try await r.resolve())
                            }
                            do {
                                _ = try await app.resolveAsync(type: Keeper.self)
                            } catch {
                                failures.record("unexpected \(error)")
                            }
                        }
                    }
                }
            }
            await kept.finish()
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(counter.created == 8 * 100 * 3)
            #expect(afterReclamation { counter.alive == 0 && containers.withLock { $0.allSatisfy { $0.container == nil } } },
                    "\(counter.alive) of \(counter.created) alive, \(containers.withLock { $0.filter { $0.container != nil }.count }) containers")
        }

        /// Tasks that resolve through resolvers their factories kept, after
        /// the resolve that made them may have returned.
        final class KeptResolverTasks: Sendable {
            private let tasks = Locked<[Task<Void, Never>]>([])

            /// Starts a task that resolves two `.new` nodes through `resolver`.
            func resolveTwiceLater(through resolver: Resolver, failures: StressFailures) {
                let task = Task {
                    await Task.yield()
                    do {
                        let first: Node = try await resolver.resolve()
                        let second: Node = try await resolver.resolve()
                        if first === second { failures.record("two .new resolves through a kept resolver gave one instance") }
                    } catch {
                        failures.record("a kept resolver failed: \(error)")
                    }
                }
                tasks.withLock { $0.append(task) }
            }

            /// Waits for every task, and lets go of them (and their resolvers).
            func finish() async {
                for task in tasks.withLock({ $0 }) {
                    await task.value
                }
                tasks.withLock { $0.removeAll() }
            }
        }

        final class WeakContainer: Sendable {
            weak let container: Container?
            init(_ container: Container) { self.container = container }
        }
    }
}
