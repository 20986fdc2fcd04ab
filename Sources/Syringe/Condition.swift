#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A condition variable used with a `Lock`: a thread waits, with the lock
/// held, until another thread that changed what it waits for signals.
/// Its storage is heap-allocated once so that it never moves, as pthreads
/// requires.
final class Condition: @unchecked Sendable {
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init failed: \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Releases `lock` (which the caller holds), sleeps until a signal or a
    /// spurious wake-up, and takes `lock` again: check the awaited state in a loop.
    func wait(releasing lock: Lock) {
        let status = lock.withMutex { pthread_cond_wait(condition, $0) }
        precondition(status == 0, "pthread_cond_wait failed: \(status)")
    }

    /// Wakes a waiting thread.
    func signal() {
        pthread_cond_signal(condition)
    }
}
