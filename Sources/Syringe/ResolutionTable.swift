public import CSyringeTable

/// Step 3 of a resolve: the C table, Syringe's one meeting point with
/// `include/syringe_table.h`.
///
/// The table maps `(type, argument signature, name)` to an unretained
/// `AnyDefinition` pointer; the owning `Container`'s registry keeps every live
/// definition alive, and one that is replaced or removed is retired to the
/// reclaimer, so a pointer a lock-free reader found stays valid until its
/// read-side section ends. Lookups may run on any thread, inside a section;
/// every other call happens under the container's writer lock.
///
/// The benchmarks' "Swift dict" baseline compiles every other file of this
/// module unchanged and replaces this one (see `ResolutionTableInterface`).
@usableFromInline
struct ResolutionTable: ResolutionTableInterface, @unchecked Sendable {
    @usableFromInline
    let raw: UnsafeMutablePointer<syr_table>

    init() {
        guard let raw = syr_table_create(0) else {
            fatalError("Syringe: out of memory creating a resolution table")
        }
        self.raw = raw
    }

    func destroy() {
        syr_table_destroy(raw)
    }

    var ownerArea: UnsafeMutableRawPointer {
        syr_table_owner_area(raw)
    }

    /// Finds the definition of an unnamed key. Lock-free; the hot path.
    @inlinable
    @inline(__always)
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        syr_table_lookup(raw, type, signature, nil, KeyName.absent)
    }

    /// An unnamed key's XXH3 before any table's mask
    /// (`syr_key_identity_hash`), for `lookup(type:signature:identityHash:)`.
    @inlinable
    @inline(__always)
    static func identityHash(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UInt64 {
        syr_key_identity_hash(type, signature)
    }

    /// `lookup(type:signature:)` without hashing the key again. Lock-free.
    @inlinable
    @inline(__always)
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, identityHash: UInt64) -> UnsafeMutableRawPointer? {
        syr_table_lookup_unnamed(raw, type, signature, identityHash)
    }

    /// Finds the definition of a named key. Lock-free.
    ///
    /// The table compares name bytes and registrations store NFC names (see
    /// `KeyName`), so a non-ASCII name that missed is tried again in NFC, out
    /// of line: nearly every name hits on its own bytes.
    @inline(__always)
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> UnsafeMutableRawPointer? {
        if let found = KeyName.withBytes(name, { syr_table_lookup(raw, type, signature, $0, $1) }) {
            return found
        }
        return lookupCanonical(type: type, signature: signature, named: name)
    }

    @inline(never)
    private func lookupCanonical(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> UnsafeMutableRawPointer? {
        guard let canonical = KeyName.canonicalIfDifferent(name) else {
            return nil
        }
        return KeyName.withBytes(canonical) { bytes, length in
            syr_table_lookup(raw, type, signature, bytes, length)
        }
    }

    /// Inserts or replaces; returns the replaced definition pointer.
    func insert(_ key: DefinitionKey, _ value: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        KeyName.withBytes(key.name) { name, length in
            var replaced: UnsafeMutableRawPointer?
            guard syr_table_insert(raw, key.type, key.signature, name, length, value, &replaced) == 0 else {
                fatalError("Syringe: out of memory registering \(key)")
            }
            return replaced
        }
    }

    /// Removes a key; returns the removed definition pointer.
    func remove(_ key: DefinitionKey) -> UnsafeMutableRawPointer? {
        KeyName.withBytes(key.name) { name, length in
            syr_table_remove(raw, key.type, key.signature, name, length)
        }
    }

    func recycle() -> Bool {
        syr_table_recycle(raw) == 0
    }

    func removeAll() {
        guard syr_table_clear(raw) == 0 else {
            fatalError("Syringe: out of memory clearing a resolution table")
        }
    }

    /// The engine keeps its per-thread `ResolutionContext` in this slot.
    @inlinable
    static var contextSlot: UInt32 { SYR_THREAD_SLOT_ENGINE }
}
