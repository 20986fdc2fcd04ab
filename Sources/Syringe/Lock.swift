#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain non-recursive mutex.
///
/// Syringe takes it for writers (registration, removal) and for the claims
/// of `InstanceCreation` (never while a factory runs): when a `.shared`
/// instance is created and on every `.weak` resolve. A resolve of an
/// existing `.shared` instance, and every `.new` and `.graph` resolve, never
/// touches one. Its storage is heap-allocated once so that the mutex never
/// moves, as pthreads requires.
@usableFromInline
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @usableFromInline
    func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Takes the lock only if it is free right now.
    @usableFromInline
    func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    @usableFromInline
    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Hands the raw mutex to `body`; for `Condition` only.
    func withMutex<R>(_ body: (UnsafeMutablePointer<pthread_mutex_t>) -> R) -> R {
        body(mutex)
    }

    @usableFromInline
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
