import Testing
import Syringe

extension StressTests {
    @Suite("Growth under readers")
    struct Growth {
        @Test("the table grows many times while readers resolve fixed and fresh keys")
        func growthUnderReaders() {
            let counter = Counter()
            let failures = StressFailures()
            let published = StressCount()
            let lag = 64
            let minimumKeys = 4_096  // at least 9 doublings from the initial 8 slots
            let maximumKeys = 30_000
            weak var weakContainer: Container?
            do {
                let c = Container()
                weakContainer = c
                let fixed = (0..<16).map { "fixed-\($0)" }
                for (version, name) in fixed.enumerated() {
                    c.register(type: StressInstance.self, name: name) { _ in
                        StressInstance(key: name, version: version, counter: counter)
                    }
                }
                let stop = StressFlag()
                runThreads(5) { thread in
                    if thread == 0 {
                        defer { stop.set() }
                        let deadline = StressDeadline(seconds: StressTests.phase)
                        var index = 0
                        while index < maximumKeys && (index < minimumKeys || !deadline.passed) {
                            let value = index
                            c.register(type: Int.self, name: "grow-\(value)", dependency: value)
                            // Every fourth key goes again a little later: tombstones
                            // and clean-up rebuilds on top of the growth.
                            if index >= lag && (index - lag) % 4 == 0 {
                                c.remove(type: Int.self, name: "grow-\(index - lag)")
                            }
                            index += 1
                            published.store(index)
                        }
                        return
                    }
                    var rng = SplitMix64(seed: UInt64(thread) * 7919)
                    var count = 0
                    while count < 1_000_000 && !stop.isSet {
                        count += 1
                        let name = fixed[rng.below(fixed.count)]
                        do throws(ResolutionError) {
                            let instance = try c.tryResolve(type: StressInstance.self, name: name)
                            if instance.key != name || instance.magic != StressInstance.expectedMagic {
                                failures.record("asked \(name), got \(instance.key)")
                            }
                        } catch {
                            failures.record("fixed key \(name) missing during growth: \(error)")
                        }
                        let limit = published.load
                        guard limit > 0 else { continue }
                        let index = rng.below(limit)
                        do throws(ResolutionError) {
                            let value = try c.tryResolve(type: Int.self, name: "grow-\(index)")
                            if value != index { failures.record("grow-\(index) resolved to \(value)") }
                        } catch {
                            if index % 4 != 0 { failures.record("published key grow-\(index) missing: \(error)") }
                        }
                    }
                }
                #expect(failures.count == 0, "\(failures.summary)")
                let total = published.load
                #expect(total >= minimumKeys)
                var missing = 0
                for index in 0..<total {
                    let removed = index % 4 == 0 && index + lag < total
                    let value = c.resolveIfRegistered(type: Int.self, name: "grow-\(index)")
                    if value != (removed ? nil : index) { missing += 1 }
                }
                #expect(missing == 0, "\(missing) of \(total) keys wrong after growth")
            }
            #expect(weakContainer == nil)
            #expect(afterReclamation { counter.alive == 0 })
        }
    }
}
