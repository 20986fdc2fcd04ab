#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A container's writer lock: a pthread mutex like `Lock`'s, kept in the
/// owner's bytes of the container's table (`ResolutionTableInterface.ownerArea`)
/// instead of an allocation of its own. A request's scope is a container,
/// so this is one allocation less per request.
///
/// It does not own its memory: the container initialises it after making
/// its table and destroys it before destroying the table.
struct WriterLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Makes a mutex in `area`, which must have room for one, suitably
    /// aligned, and outlive it.
    init(initializingAt area: UnsafeMutableRawPointer) {
        precondition(MemoryLayout<pthread_mutex_t>.size <= ResolutionTableOwnerArea.byteCount
            && ResolutionTableOwnerArea.alignment % MemoryLayout<pthread_mutex_t>.alignment == 0,
            "Syringe: a pthread mutex does not fit in a table's owner area")
        mutex = area.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        PthreadMutex.initialize(mutex)
    }

    /// The mutex that `area` still holds: a recycled table's owner area
    /// (see `SpareTables`), where an earlier `init(initializingAt:)` made
    /// it and its container left it unlocked.
    init(reusingAt area: UnsafeMutableRawPointer) {
        mutex = area.assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// Destroys the mutex; call once, when no thread can take it any more.
    func destroy() {
        PthreadMutex.destroy(mutex)
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        PthreadMutex.lock(mutex)
        defer { PthreadMutex.unlock(mutex) }
        return try body()
    }
}
