public import CSyringeTable

/// Syringe's one meeting point with the C resolution table.
///
/// The table maps `(type, argument signature, name)` to an unretained
/// `AnyDefinition` pointer; the owning `Container` keeps every definition
/// alive (live ones in its registry, replaced ones in its retired list) for as
/// long as the table exists, so a pointer a lock-free reader found stays valid.
/// Lookups may run on any thread; every other call happens under the
/// container's writer lock (see `include/syringe_table.h`).
@usableFromInline
struct ResolutionTable: @unchecked Sendable {
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

    /// Finds the definition for a key. Lock-free; the hot path.
    @inlinable
    @inline(__always)
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: UnsafeRawPointer?, length: Int) -> UnsafeMutableRawPointer? {
        syr_table_lookup(raw, type, signature, name, length)
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

    func removeAll() {
        guard syr_table_clear(raw) == 0 else {
            fatalError("Syringe: out of memory clearing a resolution table")
        }
    }

    var count: Int { syr_table_count(raw) }
}

/// A registration key as the writer side keeps it: identities plus the
/// canonical (NFC) name.
@usableFromInline
struct DefinitionKey: @unchecked Sendable, CustomStringConvertible {
    let type: UnsafeRawPointer
    let signature: UnsafeRawPointer
    let name: String?

    @usableFromInline
    init(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: String?) {
        self.type = type
        self.signature = signature
        self.name = name.map(KeyName.canonical)
    }

    @usableFromInline
    var description: String {
        "type \(type), signature \(signature), name \(name.map { "\"\($0)\"" } ?? "nil")"
    }
}
