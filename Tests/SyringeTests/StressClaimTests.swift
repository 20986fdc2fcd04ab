#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Syringe

extension StressTests {
    /// A `.weak` resolve claims its registration every time, so threads
    /// resolving one `.weak` key hand its claim to one another as fast as it
    /// goes: every hand-over between the claim's lock-free release and a
    /// waiter's sleep is exercised. A lost wake-up hangs a thread (the
    /// suite's time limit fails the run); a claim chain misread as a cycle
    /// fails a resolve.
    @Suite("Claims handed over")
    struct Claims {
        final class Inner: @unchecked Sendable {}
        final class Outer: @unchecked Sendable {
            let inner: Inner
            init(inner: Inner) { self.inner = inner }
        }

        @Test("threads contending for .weak claims, one held while waiting for another, never hang or see a false cycle")
        func contendedClaims() {
            let c = Container()
            let innerCreations = StressCount()
            c.register(type: Inner.self, in: .weak) { _ in
                innerCreations.increment()
                return Inner()
            }
            // Not kept alive: most resolves create an `Outer`, holding its
            // claim while they wait for `Inner`'s.
            c.register(type: Outer.self, in: .weak) { r in Outer(inner: try r.resolve()) }
            let inner = c.resolve(type: Inner.self)
            let failures = StressFailures()
            let deadline = StressDeadline(seconds: StressTests.phase)
            runThreads(8) { thread in
                var round = 0
                while round < 2_000 || (round < 50_000 && !deadline.passed) {
                    round += 1
                    do {
                        if (round + thread) % 2 == 0 {
                            if try c.tryResolve(type: Inner.self) !== inner {
                                failures.record("a second Inner while the first is alive")
                            }
                        } else if try c.tryResolve(type: Outer.self).inner !== inner {
                            failures.record("an Outer with a second Inner")
                        }
                    } catch {
                        failures.record("\(error)")
                    }
                }
            }
            #expect(failures.count == 0, "\(failures.summary)")
            #expect(innerCreations.load == 1)
            withExtendedLifetime(inner) {}
        }
    }
}
