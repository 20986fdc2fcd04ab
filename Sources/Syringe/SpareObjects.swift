import CSyringeTable
import Synchronization

/// Emptied boxes and per-request registrations that freed scopes left on
/// this thread, for the next scopes made here.
///
/// A request's scope allocates a box for each instance it holds (its
/// `.scoped` instances, its per-request values) and a registration for
/// each value it registers with `instance:`, and frees all of them with
/// the scope: three of SC1's six allocations, and in a service's request
/// one per `.scoped` type and two per value. A freed scope empties those that nothing
/// else references (the instance goes, as it would have with the box) and
/// leaves them here; the next box or `register(type:instance:)` of the
/// same type takes one instead of allocating. A spare is in the state a new
/// one starts in but for its memory, and nothing can tell the two apart
/// (as `ScopeLocalPool` argues for scope-local copies).
///
/// Spare boxes per instance type, and registrations per class
/// (`Definition<T>`), in a lossy table keyed by a metadata address: each
/// key has two candidate slots (a pair, chosen by the address), so that a
/// request's few types rarely push each other out; a spare that a newer
/// one pushes out of its slot moves to a stack of `overflowCapacity`,
/// searched from its top when a key's pair has none. A server's requests
/// in flight hold several boxes of each type at once and free them in
/// bursts, often on another thread than the one that made them: with one
/// spare per key and thread, a service's request under 32 concurrent ones
/// made a box and a registration anew in nearly every request (see
/// "Spares for requests in flight" in Benchmarks/README.md). So a full
/// overflow hands its oldest `batch` to a process-wide depot, under its
/// lock, and a take that finds nothing on its thread looks there (when
/// the depot has any); a full depot frees its oldest to make room, so that
/// what it keeps are the types in use now. A thread keeps at most
/// `capacity` plus `overflowCapacity` objects, none holding an instance,
/// and frees them when it exits; the depot's stay with the process.
///
/// Per thread, in the `ResolutionContext`, like `SpareTables`: but for the
/// depot, neither side takes a lock or an atomic, and only a thread that
/// has a context already keeps or takes one. A spare goes in only after
/// its instance is dropped: that runs the instance's deinit, which may
/// itself make or free scopes on this thread, and so use this table;
/// nothing runs user code while a slot is being changed.
struct SpareObjects: ~Copyable {
    /// 32 pairs: a power of two, for a request's few scoped and
    /// per-request types.
    static let capacity = 64
    /// Spares pushed out of their slots: enough for the boxes and
    /// registrations of a burst of requests in flight on one thread. An
    /// idle thread keeps at most 128 objects in all, a few KB.
    static let overflowCapacity = 64
    /// How deep a take searches the overflow, or the depot: a request's
    /// few types lie near the top, and a type that has no spares costs no
    /// more than this.
    private static let overflowSearch = 8
    /// Spares moved from a full overflow to the depot at once.
    private static let batch = 32

    /// Spares that threads' full overflows handed over, for threads that
    /// have none, newest last: at most `Depot.capacity` objects, a few tens
    /// of KB, stay with an idle process.
    final class Depot: @unchecked Sendable {
        // @unchecked: `spares` is guarded by `lock`; `count` mirrors its
        // count, for a look without the lock. For the same reason
        // exclusivity is not checked at run time (no two accesses can
        // overlap; the checks cost a take more than its search).
        static let capacity = 256
        let lock = Lock()
        @exclusivity(unchecked)
        var spares = SpareStack(capacity: capacity)
        let count = Atomic<Int>(0)

        /// A spare of `type` from the top `SpareObjects.overflowSearch`.
        func take(_ type: UInt) -> Unmanaged<AnyObject>? {
            guard count.load(ordering: .relaxed) > 0 else {
                return nil
            }
            return lock.withLock {
                let found = spares.take(type, searching: SpareObjects.overflowSearch)
                count.store(spares.count, ordering: .relaxed)
                return found
            }
        }
    }

    private static let processDepot = Depot()
    /// The process's depot (but in tests), held here so that reaching it
    /// costs no check that the global was initialised.
    private let depot: Depot

    /// Each slot's class (its metadata address, 0 when empty) and the
    /// retained spare of that class.
    private let types = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    private let objects = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: capacity)
    /// Spares pushed out of their slots.
    private var overflow = SpareStack(capacity: overflowCapacity)

    init(depot: Depot = processDepot) {
        self.depot = depot
        types.initialize(repeating: 0, count: Self.capacity)
    }

    deinit {
        for index in 0..<Self.capacity where types[index] != 0 {
            objects[index].release()
        }
        types.deallocate()
        objects.deallocate()
    }

    /// A spare registration of the class `type`, now the caller's, if this
    /// thread keeps one.
    @inline(__always)
    static func take(_ type: AnyClass) -> AnyObject? {
        current?.pointee.take(UInt(bitPattern: ObjectIdentifier(type)))
    }

    /// A spare box made for an instance of `type`, empty and now the
    /// caller's, if this thread keeps one.
    @inline(__always)
    static func takeBox(for type: Any.Type) -> InstanceBox? {
        current?.pointee.take(boxKey(type)).map { unsafeDowncast($0, to: InstanceBox.self) }
    }

    /// The key of the spare boxes for instances of `type`. Every box is an
    /// `InstanceBox`, laid out for its instance's type: that type's
    /// metadata address is the key, with its low bit set (metadata is
    /// word-aligned) so that it never equals a registration class's.
    private static func boxKey(_ type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type)) | 1
    }

    /// Takes `box` as a spare, emptied, if nothing else references it;
    /// otherwise leaves it to the caller, who lets it go. Never concurrently
    /// with a reader of the box: call once its container is freed. In and
    /// out, not consumed: the caller's reference must be gone when the
    /// uniqueness is checked, and a consumed argument is a copy in an
    /// unoptimised build.
    static func keep(box: inout InstanceBox?) {
        guard isKnownUniquelyReferenced(&box), let spares = current else {
            return
        }
        // Taken out first: emptied through the optional, the box was
        // retained around the instance's deinit.
        let taken = box.take().unsafelyUnwrapped
        let type = boxKey(taken.type)
        // The instance's deinit runs here, before any slot changes.
        taken.empty()
        // The caller's reference, moved into the slot: the retain and the
        // release of the taken box cancel out.
        let retained = Unmanaged<AnyObject>.passRetained(taken)
        _ = consume taken
        spares.pointee.keep(retained, type: type)
    }

    /// Keeps `definition`, which nothing else references and which holds
    /// no instance (its box, if any, is emptied), as a spare, taking the
    /// reference `owned` over; false if this thread keeps none (then the
    /// caller still owns it).
    static func keep(definition owned: Unmanaged<AnyDefinition>) -> Bool {
        guard let spares = current else {
            return false
        }
        let type = owned._withUnsafeGuaranteedRef { UInt(bitPattern: ObjectIdentifier(Swift.type(of: $0))) }
        spares.pointee.keep(Unmanaged<AnyObject>.fromOpaque(owned.toOpaque()), type: type)
        return true
    }

    private static var current: UnsafeMutablePointer<SpareObjects>? {
        guard let raw = syr_thread_get(ResolutionTable.contextSlot) else {
            return nil
        }
        return Unmanaged<ResolutionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.spareObjects }
    }

    /// The first of a key's two slots (the key's metadata address hashed
    /// as `TypeSlots` hashes one); the second is the next one.
    @inline(__always)
    private static func pair(of type: UInt) -> Int {
        TypeSlots.hash(type, bits: (capacity / 2).trailingZeroBitCount) &* 2
    }

    @inline(__always)
    mutating func take(_ type: UInt) -> AnyObject? {
        var index = Self.pair(of: type)
        if types[index] != type {
            index += 1
            guard types[index] == type else {
                return takeElsewhere(type)
            }
        }
        types[index] = 0
        return objects[index].takeRetainedValue()
    }

    /// A spare of `type` from the top `overflowSearch` of the overflow (the
    /// top one takes its place), else from the depot.
    @inline(never)
    private mutating func takeElsewhere(_ type: UInt) -> AnyObject? {
        (overflow.take(type, searching: Self.overflowSearch) ?? depot.take(type))?.takeRetainedValue()
    }

    /// Hands the oldest `batch` of the overflow, which is full, to the
    /// depot. A full depot frees its oldest first.
    private mutating func spill() {
        // A local reference: reached through `self` inside the closure, the
        // depot's stack and `overflow` were overlapping accesses to `self`
        // (an exclusivity error in a ThreadSanitizer build).
        let depot = self.depot
        var evicted: [Unmanaged<AnyObject>] = []
        depot.lock.withLock {
            let excess = depot.spares.count + Self.batch - Depot.capacity
            if excess > 0 {
                evicted = depot.spares.removeOldest(excess)
            }
            overflow.moveOldest(Self.batch, to: &depot.spares)
            depot.count.store(depot.spares.count, ordering: .relaxed)
        }
        // After the lock, though a spare holds no instance and its deinit
        // runs no user code.
        for object in evicted {
            object.release()
        }
    }

    /// Keeps `object`, taking the reference `object` stands for over.
    mutating func keep(_ object: Unmanaged<AnyObject>, type: UInt) {
        let first = Self.pair(of: type)
        // The slot with this key's spare, which the new one replaces (the
        // older goes to the overflow); else the first if it is free; else
        // the second, whatever it holds.
        let index = types[first] == type ? first
            : types[first + 1] == type || types[first] != 0 ? first + 1
            : first
        let displacedType = types[index]
        guard displacedType != 0 else {
            types[index] = type
            objects[index] = object
            return
        }
        let displaced = objects[index]
        types[index] = type
        objects[index] = object
        if overflow.isFull {
            spill()
        }
        overflow.push(displaced, type: displacedType)
    }
}
