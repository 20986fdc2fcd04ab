#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(SyringeSwinject) @testable import Syringe

/// Waits until `condition` holds, polling the reclaimer; false if it still
/// does not after 30 seconds.
///
/// What a writer retires is freed once every resolve that was running at
/// that moment, on any thread, has returned. Tests run in parallel in one
/// process, so another test's resolve (a slow factory in a stress test, say)
/// may rightly hold it back for a while; what must never happen is that it
/// is not freed at all. The tests of "freed at once, with nothing in flight"
/// run in a process of their own instead (ReclamationTests).
func afterReclamation(_ condition: () -> Bool) -> Bool {
    for _ in 0..<30_000 {
        if condition() {
            return true
        }
        Reclamation.poll()
        usleep(1_000)
    }
    return condition()
}
