#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Syringe

extension StressTests {
    @Suite(".weak under contention")
    struct Weak {
        final class Slot: Sendable {
            let held = Locked<StressInstance?>(nil)
        }

        @Test(".weak instances released and recreated under contention")
        func weakUnderContention() {
            let counter = Counter()
            let ledger = CreationLedger()
            let failures = StressFailures()
            let names = (0..<4).map { "weak-\($0)" }
            let slots = names.map { _ in Slot() }
            let latest = StressCount()
            let c = Container()
            func install(_ name: String, _ version: Int) {
                let id = CreationLedger.id(name, version)
                c.register(type: StressInstance.self, name: name, in: .weak) { _ in
                    ledger.enter(id)
                    defer { ledger.leave(id) }
                    return StressInstance(key: name, version: version, counter: counter)
                }
            }
            for name in names { install(name, 1) }
            latest.store(1)
            let stop = StressFlag()
            runThreads(9) { thread in
                if thread == 0 {
                    // Replaces "weak-0" now and then; releases shared instances (none).
                    defer { stop.set() }
                    let deadline = StressDeadline(seconds: StressTests.phase)
                    var version = 1
                    var count = 0
                    while count < 2_000 && !deadline.passed {
                        count += 1
                        if count % 2 == 0 {
                            version += 1
                            latest.store(version)
                            install(names[0], version)
                        } else {
                            c.releaseSharedInstances()
                        }
                        usleep(500)
                    }
                    return
                }
                var rng = SplitMix64(seed: UInt64(thread) &* 31)
                var mine: StressInstance?
                var count = 0
                while count < 300_000 && !stop.isSet {
                    count += 1
                    let index = rng.below(names.count)
                    // Held strongly across the resolve: if it is of the same
                    // registration, the resolve must return it.
                    let held = slots[index].held.withLock { $0 }
                    do throws(ResolutionError) {
                        let instance = try c.tryResolve(type: StressInstance.self, name: names[index])
                        if instance.key != names[index] || instance.version > latest.load {
                            failures.record("\(names[index]): got \(instance.key) v\(instance.version)")
                        }
                        if let held, held.version == instance.version, held !== instance {
                            failures.record("\(names[index]): a second live .weak instance while one was held")
                        }
                        if let mine, mine.key == instance.key, mine.version == instance.version, mine !== instance {
                            failures.record("\(names[index]): a second live .weak instance while this thread held one")
                        }
                        switch rng.below(4) {
                        case 0: slots[index].held.withLock { $0 = instance }
                        case 1: slots[index].held.withLock { $0 = nil }
                        case 2: mine = instance
                        default: mine = nil
                        }
                    } catch {
                        failures.record("\(names[index]): \(error)")
                    }
                }
            }
            #expect(failures.count == 0, "\(failures.summary)")
            let concurrent = ledger.snapshot.filter { $0.value.maxInFlight > 1 }.map { "\($0.key): \($0.value.maxInFlight) at once" }
            #expect(concurrent.isEmpty, "factories run concurrently: \(concurrent)")
            for slot in slots { slot.held.withLock { $0 = nil } }
            // Nothing outside holds an instance now; the container must not either.
            #expect(afterReclamation { counter.alive == 0 }, "the container keeps \(counter.alive) .weak instances alive")
            let before = counter.created
            let again = c.resolve(type: StressInstance.self, name: names[1])
            #expect(counter.created == before + 1, "a released .weak instance must be recreated")
            #expect(c.resolve(type: StressInstance.self, name: names[1]) === again)
        }
    }
}
