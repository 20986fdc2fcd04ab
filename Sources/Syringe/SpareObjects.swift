import CSyringeTable

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
/// One spare box per instance type, and one registration per class
/// (`Definition<T>`), in a lossy table keyed by a metadata address: each
/// key has two candidate slots (a pair, chosen by the address), so that a
/// request's few types rarely push each other out, and a key whose pair is
/// full replaces the spare in the second. A thread keeps at most `capacity`
/// objects, none holding an instance, and frees them when it exits. Per
/// thread, in the `ResolutionContext`, like `SpareTables`: neither side
/// takes a lock or an atomic, and only a thread that has a context already
/// keeps or takes one. A spare goes in only after its instance is dropped:
/// that runs the instance's deinit, which may itself make or free scopes
/// on this thread, and so use this table; nothing runs user code while a
/// slot is being changed.
struct SpareObjects: ~Copyable {
    /// 32 pairs: a power of two, for a request's few scoped and
    /// per-request types.
    static let capacity = 64

    /// Each slot's class (its metadata address, 0 when empty) and the
    /// retained spare of that class.
    private let types = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    private let objects = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: capacity)

    init() {
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
    private mutating func take(_ type: UInt) -> AnyObject? {
        var index = Self.pair(of: type)
        if types[index] != type {
            index += 1
            guard types[index] == type else {
                return nil
            }
        }
        types[index] = 0
        return objects[index].takeRetainedValue()
    }

    /// Keeps `object`, taking the reference `object` stands for over.
    private mutating func keep(_ object: Unmanaged<AnyObject>, type: UInt) {
        let first = Self.pair(of: type)
        // The slot with this key's spare, which the new one replaces (one
        // spare per key); else the first if it is free; else the second,
        // whatever it holds.
        let index = types[first] == type ? first
            : types[first + 1] == type || types[first] != 0 ? first + 1
            : first
        let displaced = types[index] == 0 ? nil : objects[index]
        types[index] = type
        objects[index] = object
        // Released once the slot holds the new spare: a displaced spare
        // holds no instance, so its deinit runs no user code, but the
        // table is consistent whatever it does.
        displaced?.release()
    }
}
