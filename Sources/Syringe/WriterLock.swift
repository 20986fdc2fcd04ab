import CSyringeTable

/// A container's writer lock: a `syr_lock_t` like `Lock`'s, kept in the
/// owner's bytes of the container's table (`ResolutionTableInterface.ownerArea`)
/// instead of an allocation of its own. A request's scope is a container,
/// so this is one allocation less per request, and a request's scope takes
/// it several times (its values registered, a `.scoped` copy installed,
/// `close()`).
///
/// It does not own its memory: the container initialises it after making
/// its table; an unlocked lock needs no destruction, so the table's memory
/// is simply freed or reused.
struct WriterLock: @unchecked Sendable {
    // @unchecked: the pointer is to a lock made for use from many threads.
    private let lock: UnsafeMutablePointer<syr_lock_t>

    /// Makes a lock in `area`, which must have room for one, suitably
    /// aligned, and outlive it.
    init(initializingAt area: UnsafeMutableRawPointer) {
        precondition(MemoryLayout<syr_lock_t>.size <= ResolutionTableOwnerArea.byteCount
            && ResolutionTableOwnerArea.alignment % MemoryLayout<syr_lock_t>.alignment == 0,
            "Syringe: a lock does not fit in a table's owner area")
        lock = area.bindMemory(to: syr_lock_t.self, capacity: 1)
        syr_lock_init(lock)
    }

    /// The lock that `area` still holds: a recycled table's owner area
    /// (see `SpareTables`), where an earlier `init(initializingAt:)` made
    /// it and its container left it unlocked.
    init(reusingAt area: UnsafeMutableRawPointer) {
        lock = area.assumingMemoryBound(to: syr_lock_t.self)
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        syr_lock_acquire(lock)
        defer { syr_lock_release(lock) }
        return try body()
    }
}
