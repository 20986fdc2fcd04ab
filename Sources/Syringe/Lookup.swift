import CSyringeTable

/// Step 2 of a resolve: find the registration for a key in the container that
/// was asked, then in each of its ancestors.

/// What the engine needs of a resolution table.
///
/// `ResolutionTable` (the C table) is the only conformer in Syringe. The
/// benchmarks package builds this module's sources a second time with a
/// Swift `Dictionary` table in its place, so that its "Swift dict" column
/// differs from Syringe by the table and nothing else; this protocol is the
/// contract both must meet. The engine uses the concrete type, never the
/// protocol, so the protocol costs the C path nothing.
///
/// Lookups are lock-free for the engine's purposes (the dictionary baseline
/// takes a lock of its own inside); every other requirement is called under
/// the container's writer lock.
protocol ResolutionTableInterface {
    init()
    /// Frees the table. Called once, when its container is destroyed.
    func destroy()
    /// The definition registered for an unnamed key, or nil.
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UnsafeMutableRawPointer?
    /// What `lookup(type:signature:identityHash:)` takes: the part of an
    /// unnamed key's hash that does not depend on the table, so that a walk
    /// through a container's ancestors computes it once.
    static func identityHash(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UInt64
    /// `lookup(type:signature:)`, given the key's `identityHash`.
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, identityHash: UInt64) -> UnsafeMutableRawPointer?
    /// The definition registered for a named key, or nil. `name` is
    /// compared as Swift compares strings (canonical equivalence).
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> UnsafeMutableRawPointer?
    /// Inserts or replaces; returns the definition it replaced.
    func insert(_ key: DefinitionKey, _ value: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
    /// Removes a key; returns the definition it removed.
    func remove(_ key: DefinitionKey) -> UnsafeMutableRawPointer?
    /// Removes every key.
    func removeAll()
    /// Empties a table that no container uses any more, so that a new one
    /// can (`SpareTables`): the owner area keeps what it holds. False,
    /// changing nothing, when the table is not worth keeping (it grew); the
    /// caller then destroys it.
    func recycle() -> Bool
    /// `ResolutionTableOwnerArea.byteCount` bytes, aligned to
    /// `ResolutionTableOwnerArea.alignment`, that the table keeps for its
    /// container (its `WriterLock`) until `destroy()`.
    var ownerArea: UnsafeMutableRawPointer { get }
    /// The per-thread slot (`include/syringe_thread.h`) this build's engine
    /// keeps its `ResolutionContext` in: two builds of the engine can share a
    /// process (the benchmarks do), and each must have its own.
    static var contextSlot: UInt32 { get }
}

/// The size and alignment of a table's `ownerArea`: the C table's
/// `SYR_TABLE_OWNER_BYTES`, at the start of its block, which is aligned to
/// the 32 bytes a slot needs (see `syr_table_owner_area`).
enum ResolutionTableOwnerArea {
    static let byteCount = Int(SYR_TABLE_OWNER_BYTES)
    static let alignment = 32
}

/// Where a key was found: the definition and the container that holds it.
/// Unretained: the holder is the container that was asked or one of its
/// ancestors (kept alive by it), and the definition stays allocated until the
/// resolve's read-side section ends, even if a writer replaces it meanwhile
/// (see Reclamation.swift).
@usableFromInline
struct Located {
    @usableFromInline
    let definition: UnsafeMutableRawPointer
    @usableFromInline
    let holder: Unmanaged<Container>

    @usableFromInline
    init(definition: UnsafeMutableRawPointer, holder: Unmanaged<Container>) {
        self.definition = definition
        self.holder = holder
    }

    /// A definition found some other way (`resolveAll` walks registries).
    @usableFromInline
    init(_ definition: AnyDefinition, in holder: Container) {
        self.definition = Unmanaged.passUnretained(definition).toOpaque()
        self.holder = .passUnretained(holder)
    }
}

extension Container {
    /// Finds a key here or in an ancestor. Lock-free.
    ///
    /// Inlined only to pick one of two shared, out-of-line lookups: when the
    /// caller passes no name (nearly always, and usually known at compile
    /// time) the string handling of named keys is not even called.
    @inlinable
    @inline(__always)
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: String?) -> Located? {
        if let name {
            return locate(type: type, signature: signature, named: name)
        }
        return locate(type: type, signature: signature)
    }

    /// Finds an unnamed key. One copy for all types.
    ///
    /// A closed container ends the walk when the key is not in its own
    /// table: nothing resolves through it, and the miss reports `.closed`
    /// (`notRegistered`). A key in its own table is not checked here, so
    /// that a resolve from the root pays nothing: `close()` took the
    /// instances of its registrations, so their resolves reach
    /// `produceSlowly`, which checks.
    @usableFromInline
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> Located? {
        // Hashed once for the walk: a resolve from a request's scope misses
        // there and finds most keys in the scope's parent.
        let hash = ResolutionTable.identityHash(type: type, signature: signature)
        return walkAncestors { $0.lookup(type: type, signature: signature, identityHash: hash) }
    }

    /// Finds a named key. One copy for all types.
    @usableFromInline
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> Located? {
        walkAncestors { $0.lookup(type: type, signature: signature, named: name) }
    }

    /// Probes this container's table, then each ancestor's, until one has
    /// the key, or the walk would leave a closed container.
    ///
    /// A scope-local definition (a scope's own copy of a `.scoped`
    /// registration) is passed over once the walk has left a scope: a scope
    /// made from a scope has instances of its own.
    ///
    /// Works on unretained references: every ancestor is kept alive by its
    /// child, and `self` by the caller.
    @inline(__always)
    private func walkAncestors(_ probe: (ResolutionTable) -> UnsafeMutableRawPointer?) -> Located? {
        // Two loops, so that a hit before any scope was left (nearly every
        // lookup) tests nothing but the table.
        var container = Unmanaged.passUnretained(self)
        while true {
            if let found = container._withUnsafeGuaranteedRef({ probe($0.table) }) {
                return Located(definition: found, holder: container)
            }
            // A closed container reads as one without a parent: one exit
            // for both, which kept a resolve from the root as short as it
            // was (a separate one cost S2 two instructions). The flag is
            // relaxed, as `isClosedNow` reads it: a resolve that misses a
            // concurrent close is one that began before it.
            let next: (isScope: Bool, parent: Unmanaged<Container>?) = container._withUnsafeGuaranteedRef { current in
                (current.isScope, current.isClosedNow ? nil : current.parent.map { Unmanaged.passUnretained($0) })
            }
            guard let parent = next.parent else {
                return nil
            }
            container = parent
            if next.isScope {
                break
            }
        }
        // Above a scope: a scope-local copy there belongs to an outer scope.
        while true {
            if let found = container._withUnsafeGuaranteedRef({ probe($0.table) }), !Self.isScopeLocal(found) {
                return Located(definition: found, holder: container)
            }
            let parent: Unmanaged<Container>? = container._withUnsafeGuaranteedRef { current in
                current.isClosedNow ? nil : current.parent.map { Unmanaged.passUnretained($0) }
            }
            guard let parent else {
                return nil
            }
            container = parent
        }
    }

    /// Whether the definition at `raw` is a scope's copy of a `.scoped` registration.
    private static func isScopeLocal(_ raw: UnsafeMutableRawPointer) -> Bool {
        Unmanaged<AnyDefinition>.fromOpaque(raw).takeUnretainedValue().kind == .scopeLocal
    }
}

