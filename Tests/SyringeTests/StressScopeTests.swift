import Synchronization
import Testing
import Syringe

extension StressTests {
    /// Many short request scopes at once, each closed while tasks are still
    /// resolving from it: a resolve either succeeds before the close or fails
    /// with `.closed`, and in the end every instance a scope created was
    /// disposed exactly once and deinitialised.
    @Suite("Request scopes closed under racing resolves")
    struct Scopes {
        /// A `.scoped` or tracked `.new` instance that counts its disposals.
        final class Disposed: Sendable {
            let tracked: Tracked
            let disposals = Atomic(0)
            init(_ counter: Counter) { tracked = Tracked(counter) }
        }

        final class Request: Sendable {
            let unit: Disposed
            let step: Disposed
            init(unit: Disposed, step: Disposed) {
                self.unit = unit
                self.step = step
            }
        }

        @Test("many tasks × many short scopes, close racing resolves: every instance disposed exactly once, none left alive")
        func closeRacingResolves() async throws {
            let counter = Counter()
            let disposed = Atomic(0)
            let failures = StressFailures()
            let app = Container()
            app.register(type: Tracked.self) { _ in Tracked(Counter()) }
            @Sendable func dispose(_ instance: Disposed) {
                disposed.add(1, ordering: .relaxed)
                if instance.disposals.add(1, ordering: .relaxed).newValue != 1 {
                    failures.record("an instance was disposed twice")
                }
            }
            app.register(type: Disposed.self, in: .scoped) { r in
                _ = try r.resolve(type: Tracked.self)
                return Disposed(counter)
            }
            .onDispose { instance in dispose(instance) }
            app.register(type: Disposed.self, name: "step", in: .new) { _ in Disposed(counter) }
                .onDispose { instance async in dispose(instance) }
            app.register(type: Request.self, in: .new) { r in
                Request(unit: try r.resolve(), step: try r.resolve(name: "step"))
            }

            let tasks = 8
            let scopesPerTask = 400
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        for round in 0..<scopesPerTask {
                            let scope = app.makeScope()
                            await withTaskGroup(of: Void.self) { requests in
                                for _ in 0..<2 {
                                    requests.addTask {
                                        while true {
                                            do throws(ResolutionError) {
                                                let request = try scope.tryResolve(type: Request.self)
                                                if request.unit !== (try? scope.tryResolve(type: Disposed.self)) && !scope.isClosed {
                                                    failures.record("two .scoped instances in one scope")
                                                }
                                            } catch {
                                                if case .closed = error.reason { return }
                                                failures.record("unexpected \(error)")
                                                return
                                            }
                                            await Task.yield()
                                        }
                                    }
                                }
                                // Close after a varying number of the resolvers' turns.
                                for _ in 0..<(round % 5) {
                                    await Task.yield()
                                }
                                do {
                                    try await scope.close()
                                } catch {
                                    failures.record("close threw \(error)")
                                }
                            }
                        }
                    }
                }
            }
            // Instances a resolve created while its scope closed are disposed
            // on tasks of their own; wait for those, then for the reclaimer.
            #expect(afterReclamation { disposed.load(ordering: .relaxed) == counter.created && counter.alive == 0 },
                    "\(counter.created) created, \(disposed.load(ordering: .relaxed)) disposed, \(counter.alive) alive")
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(counter.created > tasks * scopesPerTask, "the scopes resolved too little to race anything")
        }
    }
}
