#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-recursive pthread mutex, in one allocation (like swift-nio's
/// `NIOLock`), for the few places where a thread sleeps until another one
/// signals it: a `Condition` waits with it (`InstanceCreation`'s claims,
/// `@LazyInjected`). Everywhere else `Lock` is cheaper.
///
/// Every pthread call's result is checked. Debug builds use an
/// error-checking mutex, so that locking a mutex the thread already holds,
/// or unlocking one it does not, stops with a message instead of hanging
/// or corrupting the mutex.
// @unchecked: the storage is a pthread mutex, made for use from many threads.
struct ConditionMutex: @unchecked Sendable {
    private let storage = MutexStorage.make()

    init() {}

    func lock() {
        storage.withUnsafeMutablePointerToElements(PthreadMutex.lock)
    }

    func unlock() {
        storage.withUnsafeMutablePointerToElements(PthreadMutex.unlock)
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Hands the raw mutex to `body`; for `Condition` only.
    func withMutex<R>(_ body: (UnsafeMutablePointer<pthread_mutex_t>) -> R) -> R {
        storage.withUnsafeMutablePointerToElements(body)
    }
}

/// The mutex lives in the tail of this object: one allocation, at an
/// address that never changes, as pthreads requires.
private final class MutexStorage: ManagedBuffer<Void, pthread_mutex_t> {
    static func make() -> MutexStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in }, to: MutexStorage.self)
        storage.withUnsafeMutablePointerToElements(PthreadMutex.initialize)
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements(PthreadMutex.destroy)
    }
}

/// The pthread calls of `ConditionMutex`, each result checked. Debug builds
/// make error-checking mutexes.
private enum PthreadMutex {
    static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
        pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "Syringe: pthread_mutex_init failed (\(status))")
    }

    static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_destroy(mutex)
        precondition(status == 0, "Syringe: pthread_mutex_destroy failed (\(status))")
    }

    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "Syringe: pthread_mutex_lock failed (\(status))")
    }

    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "Syringe: pthread_mutex_unlock failed (\(status))")
    }
}
