import CSyringeTable

/// Tables and registration lists that freed containers left on this thread,
/// emptied, for the next containers made here.
///
/// A request's scope is a container made and freed per request; its table
/// (one block with the writer mutex) and its list of registrations are two
/// allocations, a mutex initialised and destroyed and a block zeroed, every
/// request. A freed container that had outgrown neither (at most a new
/// table's six keys, a list of `listCapacity`) leaves them here instead,
/// the mutex still initialised; a new container takes them. Per thread, in
/// the `ResolutionContext`, so neither side takes a lock or an atomic; a
/// thread that frees more containers than it makes keeps at most `capacity`
/// and frees the rest, and what it keeps goes when the thread exits.
///
/// Only a thread that has a context already keeps or takes one: freeing a
/// container must not make a context for a thread that never resolved.
struct SpareTables: ~Copyable {
    static let capacity = 8
    /// The largest list kept: a scope's few per-request values and copies.
    static let listCapacity = 16

    struct Spare {
        let table: ResolutionTable
        let ordered: [AnyDefinition?]
    }

    private let spares = UnsafeMutablePointer<Spare>.allocate(capacity: capacity)
    private var count = 0

    init() {}

    deinit {
        for index in 0..<count {
            let spare = (spares + index).move()
            WriterLock(reusingAt: spare.table.ownerArea).destroy()
            spare.table.destroy()
        }
        spares.deallocate()
    }

    /// An empty table whose owner area holds an initialised, unlocked
    /// `WriterLock`, and an empty list with room, if this thread keeps one.
    static func take() -> Spare? {
        current?.pointee.pop()
    }

    /// Keeps `table` and `ordered`'s storage for `take()`, emptying both
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
        // Moved out, not copied: no retain of the list's storage.
        var list: [AnyDefinition?] = []
        swap(&list, &ordered)
        return pool.pointee.push(Spare(table: table, ordered: list))
    }

    private static var current: UnsafeMutablePointer<SpareTables>? {
        guard let raw = syr_thread_get(ResolutionTable.contextSlot) else {
            return nil
        }
        return Unmanaged<ResolutionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.spareTables }
    }

    private var isFull: Bool { count == Self.capacity }

    private mutating func pop() -> Spare? {
        guard count > 0 else { return nil }
        count -= 1
        return (spares + count).move()
    }

    private mutating func push(_ spare: consuming Spare) -> Bool {
        guard count < Self.capacity else { return false }
        (spares + count).initialize(to: spare)
        count += 1
        return true
    }
}
