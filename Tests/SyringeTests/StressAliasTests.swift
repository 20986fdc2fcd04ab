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
    }
}
