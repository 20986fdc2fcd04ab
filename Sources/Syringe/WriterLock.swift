/// A container's writer lock: a `LightLock` kept in the owner's bytes of
/// the container's table (`ResolutionTableInterface.ownerArea`) instead of
/// an allocation of its own. A request's scope is a container, so this is
/// one allocation less per request; and a request's scope takes it three
/// times (its values registered, a `.scoped` copy installed, `close()`).
///
/// It does not own its memory: the container initialises it after making
/// its table and destroys it before destroying the table.
struct WriterLock: @unchecked Sendable {
    // @unchecked: the pointer is to a `LightLock`, made for use from many threads.
    private let lock: UnsafeMutablePointer<LightLock>

    /// Makes a lock in `area`, which must have room for one, suitably
    /// aligned, and outlive it.
    init(initializingAt area: UnsafeMutableRawPointer) {
        precondition(MemoryLayout<LightLock>.size <= ResolutionTableOwnerArea.byteCount
            && ResolutionTableOwnerArea.alignment % MemoryLayout<LightLock>.alignment == 0,
            "Syringe: a lock does not fit in a table's owner area")
        lock = area.bindMemory(to: LightLock.self, capacity: 1)
        lock.initialize(to: LightLock())
    }

    /// The lock that `area` still holds: a recycled table's owner area
    /// (see `SpareTables`), where an earlier `init(initializingAt:)` made
    /// it and its container left it unlocked.
    init(reusingAt area: UnsafeMutableRawPointer) {
        lock = area.assumingMemoryBound(to: LightLock.self)
    }

    /// Destroys the lock; call once, when no thread can take it any more.
    func destroy() {
        lock.deinitialize(count: 1)
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try lock.pointee.withLock(body)
    }
}
