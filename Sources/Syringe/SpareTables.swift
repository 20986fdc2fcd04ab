import CSyringeTable

/// Tables and registration lists that freed containers left on this thread,
/// emptied, for the next containers made here.
///
/// A request's scope is a container made and freed per request; its table
/// (one block with the writer lock) and its list of registrations are two
/// allocations and a block zeroed every request. A freed container that had
/// outgrown neither (at most a new table's six keys, a list of
/// `listCapacity`) leaves them here instead, the lock unlocked; a new
/// container takes them. Per thread, in the `ResolutionContext`, so neither
/// side takes a lock or an atomic; a thread that frees more containers than
/// it makes keeps at most `capacity` and frees the rest, and what it keeps
/// goes when the thread exits.
///
/// The list a scope's `close()` takes the instances it disposes into is kept
/// the same way, apart: most scopes dispose nothing and never have one.
///
/// Only a thread that has a context already keeps or takes one: freeing a
/// container must not make a context for a thread that never resolved.
struct SpareTables: ~Copyable {
    /// Enough for a burst of requests in flight on one thread, each with
    /// its scope: with 8, a service's request under 32 concurrent ones made
    /// a new table three times in four. An idle thread keeps at most 64
    /// small tables and lists, about 40 KB, and 64 disposal lists, at most
    /// about 35 KB (a request's scope disposes one to three instances: a
    /// few KB).
    static let capacity = 64
    /// The largest list kept: a scope's few per-request values and copies.
    static let listCapacity = 16
    /// The largest disposal list kept: a scope's few instances to dispose,
    /// 64 bytes an entry.
    static let disposalListCapacity = 8

    // Two buffers, not one of pairs: a list moves straight into the
    // registry that takes it, where a pair's would be copied out, retained
    // and released.
    private let tables = UnsafeMutablePointer<ResolutionTable>.allocate(capacity: capacity)
    private let lists = UnsafeMutablePointer<[AnyDefinition?]>.allocate(capacity: capacity)
    private var count = 0
    private let disposalLists = UnsafeMutablePointer<[PendingDisposal]>.allocate(capacity: capacity)
    private var disposalListCount = 0

    init() {}

    deinit {
        for index in 0..<count {
            let table = (tables + index).move()
            table.destroy()
        }
        lists.deinitialize(count: count)
        disposalLists.deinitialize(count: disposalListCount)
        tables.deallocate()
        lists.deallocate()
        disposalLists.deallocate()
    }

    /// An empty table whose owner area holds an initialised, unlocked
    /// `WriterLock`, if this thread keeps one; its empty list, with room, is
    /// then in `ordered`.
    static func take(into ordered: inout [AnyDefinition?]) -> ResolutionTable? {
        current?.pointee.pop(into: &ordered)
    }

    /// Keeps `table` and `ordered`'s storage for `take(into:)`, emptying both
    /// (which releases the registrations `ordered` holds). False when they
    /// are not kept: the caller destroys the table and its lock. Call once
    /// nothing can reach the container they belong to, with its lock free.
    static func keep(_ table: ResolutionTable, ordered: inout [AnyDefinition?]) -> Bool {
        guard ordered.capacity <= listCapacity, let pool = current, !pool.pointee.isFull else {
            return false
        }
        // Released before the pool is touched: a registration's last
        // release can free instances, whose deinit may make or free
        // containers on this thread, and so use the pool.
        // One by one: `removeAll(keepingCapacity:)` goes through the
        // general `replaceSubrange`, several times the cost for a few.
        while !ordered.isEmpty {
            ordered.removeLast()
        }
        guard table.recycle() else {
            return false
        }
        return pool.pointee.push(table, ordered: &ordered)
    }

    /// An empty disposal list with room, if this thread keeps one.
    static func takeDisposalList() -> [PendingDisposal]? {
        guard let pool = current, pool.pointee.disposalListCount > 0 else {
            return nil
        }
        pool.pointee.disposalListCount -= 1
        return (pool.pointee.disposalLists + pool.pointee.disposalListCount).move()
    }

    /// Keeps the storage of `list`, which must be empty, for
    /// `takeDisposalList()`, leaving `list` without any; leaves a list
    /// larger than `disposalListCapacity`, or one there is no room for.
    static func keep(disposalList list: inout [PendingDisposal]) {
        assert(list.isEmpty, "Syringe: a kept disposal list must be empty")
        guard list.capacity <= disposalListCapacity, let pool = current, pool.pointee.disposalListCount < capacity else {
            return
        }
        (pool.pointee.disposalLists + pool.pointee.disposalListCount).initialize(to: [])
        swap(&(pool.pointee.disposalLists + pool.pointee.disposalListCount).pointee, &list)
        pool.pointee.disposalListCount += 1
    }

    private static var current: UnsafeMutablePointer<SpareTables>? {
        guard let raw = syr_thread_get(ResolutionTable.contextSlot) else {
            return nil
        }
        return Unmanaged<ResolutionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.spareTables }
    }

    private var isFull: Bool { count == Self.capacity }

    private mutating func pop(into ordered: inout [AnyDefinition?]) -> ResolutionTable? {
        guard count > 0 else { return nil }
        count -= 1
        ordered = (lists + count).move()
        return (tables + count).move()
    }

    /// Moves `ordered`'s storage in, leaving it empty: no retain.
    private mutating func push(_ table: ResolutionTable, ordered: inout [AnyDefinition?]) -> Bool {
        guard count < Self.capacity else { return false }
        (tables + count).initialize(to: table)
        (lists + count).initialize(to: [])
        swap(&(lists + count).pointee, &ordered)
        count += 1
        return true
    }
}
