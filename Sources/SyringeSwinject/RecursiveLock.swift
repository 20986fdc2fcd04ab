#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A recursive pthread mutex: `synchronize()`'s resolvers hold it for a
/// whole resolve, and a factory may resolve through one again. Shared by a
/// container tree (a child takes its parent's), as in Swinject, so that
/// synchronized resolvers of parent and child cannot deadlock each other.
@usableFromInline
final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_RECURSIVE))
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "SyringeSwinject: pthread_mutex_init failed (\(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @usableFromInline
    func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "SyringeSwinject: pthread_mutex_lock failed (\(status))")
    }

    @usableFromInline
    func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "SyringeSwinject: pthread_mutex_unlock failed (\(status))")
    }
}
