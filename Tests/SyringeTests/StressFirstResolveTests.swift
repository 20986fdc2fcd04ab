#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Syringe

extension StressTests {
    @Suite("First resolves racing")
    struct FirstResolves {
        @Test("16 threads racing the first resolve of 512 shared keys create each exactly once")
        func racingFirstResolves() {
            let deadline = StressDeadline(seconds: StressTests.phase)
            var rounds = 0
            while rounds < 20 && (rounds < 2 || !deadline.passed) {
                rounds += 1
                let counter = Counter()
                let ledger = CreationLedger()
                let failures = StressFailures()
                let names = (0..<256).map { "key-\($0)" }
                let threadCount = 16
                let results = Locked<[[ObjectIdentifier]]>(Array(repeating: [], count: threadCount))
                do {
                    let c = Container()
                    for (version, name) in names.enumerated() {
                        let id = CreationLedger.id(name, version)
                        c.register(type: StressInstance.self, name: name) { _ in
                            ledger.enter(id)
                            defer { ledger.leave(id) }
                            sched_yield()  // widen the window
                            return StressInstance(key: name, version: version, counter: counter)
                        }
                        let otherID = CreationLedger.id("other-" + name, version)
                        c.register(type: StressOther.self, name: name) { _ in
                            ledger.enter(otherID)
                            defer { ledger.leave(otherID) }
                            return StressOther(key: name, version: version, counter: counter)
                        }
                    }
                    runThreads(threadCount) { thread in
                        // Each thread walks the keys from its own starting point.
                        var seen = Array(repeating: ObjectIdentifier(StressInstance.self), count: names.count * 2)
                        for step in 0..<names.count {
                            let index = (step + thread * 16) % names.count
                            let instance = c.resolve(type: StressInstance.self, name: names[index])
                            let other = c.resolve(type: StressOther.self, name: names[index])
                            if instance.magic != StressInstance.expectedMagic || instance.key != names[index] || instance.version != index {
                                failures.record("\(names[index]): got \(instance.key) v\(instance.version)")
                            }
                            if other.magic != StressOther.expectedMagic || other.key != names[index] {
                                failures.record("StressOther \(names[index]): got \(other.key)")
                            }
                            seen[index] = ObjectIdentifier(instance)
                            seen[names.count + index] = ObjectIdentifier(other)
                        }
                        results.withLock { $0[thread] = seen }
                    }
                    #expect(failures.count == 0, "\(failures.summary)")
                    let all = results.withLock { $0 }
                    #expect(Set(all).count == 1, "threads saw different instances of a shared key")
                    #expect(counter.created == names.count * 2, "\(counter.created) creations for \(names.count * 2) keys")
                    for (id, entry) in ledger.snapshot where entry.created != 1 || entry.maxInFlight != 1 {
                        Issue.record("\(id): created \(entry.created) times, \(entry.maxInFlight) at once")
                    }
                }
                #expect(afterReclamation { counter.alive == 0 })
            }
        }
    }
}
