#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A condition variable used with a `ConditionMutex`: a thread waits, with
/// the mutex held, until another thread that changed what it waits for
/// signals. One allocation, like `ConditionMutex`, with every pthread
/// call's result checked.
// @unchecked: the storage is a pthread condition, made for use from many threads.
struct Condition: @unchecked Sendable {
    private let storage = ConditionStorage.make()

    /// Releases `lock` (which the caller holds), sleeps until a signal or a
    /// spurious wake-up, and takes `lock` again: check the awaited state in a loop.
    func wait(releasing lock: ConditionMutex) {
        storage.withUnsafeMutablePointerToElements { condition in
            let status = lock.withMutex { pthread_cond_wait(condition, $0) }
            precondition(status == 0, "Syringe: pthread_cond_wait failed (\(status))")
        }
    }

    /// Wakes a waiting thread.
    func signal() {
        storage.withUnsafeMutablePointerToElements { condition in
            let status = pthread_cond_signal(condition)
            precondition(status == 0, "Syringe: pthread_cond_signal failed (\(status))")
        }
    }

    /// Wakes every waiting thread.
    func broadcast() {
        storage.withUnsafeMutablePointerToElements { condition in
            let status = pthread_cond_broadcast(condition)
            precondition(status == 0, "Syringe: pthread_cond_broadcast failed (\(status))")
        }
    }
}

/// The condition lives in the tail of this object, at an address that never
/// changes, as pthreads requires.
private final class ConditionStorage: ManagedBuffer<Void, pthread_cond_t> {
    static func make() -> ConditionStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in }, to: ConditionStorage.self)
        storage.withUnsafeMutablePointerToElements { condition in
            let status = pthread_cond_init(condition, nil)
            precondition(status == 0, "Syringe: pthread_cond_init failed (\(status))")
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { condition in
            let status = pthread_cond_destroy(condition)
            precondition(status == 0, "Syringe: pthread_cond_destroy failed (\(status))")
        }
    }
}
