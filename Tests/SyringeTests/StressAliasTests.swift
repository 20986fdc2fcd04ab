#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Syringe

extension StressTests {
    @Suite("Aliases against concurrent replacement")
    struct Aliases {
        @Test("register(...).implements(...) racing a re-registration of the same key leaves no orphan alias")
        func aliasRacingReplacement() {
            // The interleaving that orphans an alias is narrow, so many short
            // rounds, each on fresh keys, until the deadline.
            let counter = Counter()
            let deadline = StressDeadline(seconds: StressTests.phase)
            var rounds = 0
            var keys = 0
            var orphans: [String] = []
            var versions: Set<Int> = []
            while rounds < 500 && (rounds < 5 || !deadline.passed) {
                rounds += 1
                let names = (0..<500).map { "aliased-\($0)" }
                let registered = StressCount(-1)  // highest key the first thread has registered
                let c = Container()
                runThreads(2) { thread in
                    if thread == 0 {
                        // Registers each key with an alias, in two steps as the API goes.
                        for (index, name) in names.enumerated() {
                            let registration = c.register(type: StressInstance.self, name: name, in: .new) { _ in
                                StressInstance(key: name, version: 1, counter: counter)
                            }
                            registered.store(index)
                            registration.implements(StressNamed.self, name: name)
                        }
                    } else {
                        // Replaces each key as soon as it exists: sometimes before
                        // its alias is added, sometimes after.
                        for (index, name) in names.enumerated() {
                            while registered.load < index { sched_yield() }
                            c.register(type: StressInstance.self, name: name, in: .new) { _ in
                                StressInstance(key: name, version: 2, counter: counter)
                            }
                        }
                    }
                }
                // One more replacement of every key, alone: whatever registration
                // was live, its alias (if it had one) goes with it ("The alias goes
                // away with this registration when it is removed or replaced").
                for name in names {
                    c.register(type: StressInstance.self, name: name, in: .new) { _ in
                        StressInstance(key: name, version: 3, counter: counter)
                    }
                }
                keys += names.count
                for name in names where c.isRegistered(type: StressNamed.self, name: name) {
                    orphans.append(name)
                    if let instance = c.resolveIfRegistered(type: StressNamed.self, name: name) as? StressInstance {
                        versions.insert(instance.version)
                    }
                }
            }
            #expect(orphans.count == 0, """
                \(orphans.count) of \(keys) aliases outlived the registration they were added to; \
                they resolve version(s) \(versions.sorted()) of a replaced registration while the key resolves version 3
                """)
        }

        /// An alias of a `.scoped` registration finds the scope's copy
        /// without the scope's lock (`scopeLocal`'s lock-free look), beside
        /// resolves of the type that make the copy under the lock, and a
        /// close racing both.
        @Test("threads resolving a .scoped registration and its alias in shared scopes, closes racing: one instance per scope, each disposed once, none left alive")
        func scopedAliasInSharedScopes() async throws {
            let counter = Counter()
            let disposals = StressCount()
            let failures = StressFailures()
            let app = Container()
            app.register(type: StressInstance.self, in: .scoped) { _ in StressInstance(key: "scoped", version: 1, counter: counter) }
                .onDispose { _ in disposals.increment() }
                .implements(StressNamed.self)
            let deadline = StressDeadline(seconds: StressTests.phase)
            var rounds = 0
            while rounds < 2_000 && (rounds < 20 || !deadline.passed) {
                rounds += 1
                let scope = app.makeScope()
                let seen = Locked<Set<ObjectIdentifier>>([])
                runThreads(3) { thread in
                    var random = SplitMix64(seed: UInt64(rounds * 3 + thread))
                    for _ in 0..<20 {
                        do {
                            let instance: StressInstance
                            if random.below(2) == 0 {
                                instance = try scope.tryResolve(type: StressInstance.self)
                            } else {
                                guard let aliased = try scope.tryResolve(type: StressNamed.self) as? StressInstance else {
                                    failures.record("the alias gave another type")
                                    continue
                                }
                                instance = aliased
                            }
                            seen.withLock { _ = $0.insert(ObjectIdentifier(instance)) }
                        } catch let error as ResolutionError {
                            // `.closed`: the close below won the race, and
                            // nothing is handed out after it.
                            if case .closed = error.reason { continue }
                            failures.record("\(error)")
                        } catch {
                            failures.record("\(error)")
                        }
                    }
                    if thread == 2 {
                        Task { try? await scope.close() }
                    }
                }
                let instances = seen.withLock { $0.count }
                if instances > 1 {
                    failures.record("round \(rounds): \(instances) instances in one scope")
                }
                try? await scope.close()
            }
            // The closes on tasks of their own, and the disposal of an
            // instance a resolve racing a close made but never handed out
            // (on a task of its own too), finish soon after.
            let settled = StressDeadline(seconds: 10)
            while (disposals.load != counter.created || counter.alive != 0) && !settled.passed {
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(counter.created >= rounds)
            #expect(disposals.load == counter.created, "every instance disposed exactly once")
            #expect(counter.alive == 0, "no instance left alive")
        }
    }
}
