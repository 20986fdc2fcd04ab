import CSyringeTable
@_spi(SyringeSwinject) import Syringe

/// A container's registrations as Syringe's engine keeps its own: the C table
/// of `include/syringe_table.h`, keyed by (service type, arguments type,
/// name) identities and read without a lock.
///
/// Values are unretained entry pointers. The container's `registry` keeps
/// every published entry alive, and one that is replaced or removed is
/// retired to Syringe's reclaimer, so a pointer found inside a read-side
/// section (`syr_read_enter`) stays valid until that section ends. Every call
/// but the lookups runs under the container's writer lock.
@usableFromInline
struct EntryTable: @unchecked Sendable {
    @usableFromInline
    let raw: UnsafeMutablePointer<syr_table>

    init() {
        guard let raw = syr_table_create(0) else {
            fatalError("SyringeSwinject: out of memory creating a registration table")
        }
        self.raw = raw
    }

    func destroy() {
        syr_table_destroy(raw)
    }

    /// The entry of an unnamed key, or nil. Lock-free.
    @inlinable
    @inline(__always)
    func lookup(type: UnsafeRawPointer, arguments: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        syr_table_lookup(raw, type, arguments, nil, -1)
    }

    /// The entry of a named key, or nil. Lock-free. Names are stored in NFC,
    /// as Swift compares strings by canonical equivalence; a non-ASCII name
    /// that missed on its own bytes is tried again in NFC.
    func lookup(type: UnsafeRawPointer, arguments: UnsafeRawPointer, named name: String) -> UnsafeMutableRawPointer? {
        if let found = Self.withBytes(name, { syr_table_lookup(raw, type, arguments, $0, $1) }) {
            return found
        }
        guard let canonical = canonicalRegistrationNameIfDifferent(name) else {
            return nil
        }
        return Self.withBytes(canonical) { syr_table_lookup(raw, type, arguments, $0, $1) }
    }

    /// Inserts or replaces; returns the entry it replaced.
    func insert(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?, _ value: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Self.withBytes(name.map(canonicalRegistrationName)) { bytes, length in
            var replaced: UnsafeMutableRawPointer?
            guard syr_table_insert(raw, type, arguments, bytes, length, value, &replaced) == 0 else {
                fatalError("SyringeSwinject: out of memory registering a service")
            }
            return replaced
        }
    }

    /// Removes a key; returns the entry it removed.
    func remove(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?) -> UnsafeMutableRawPointer? {
        Self.withBytes(name.map(canonicalRegistrationName)) { bytes, length in
            syr_table_remove(raw, type, arguments, bytes, length)
        }
    }

    func removeAll() {
        guard syr_table_clear(raw) == 0 else {
            fatalError("SyringeSwinject: out of memory clearing a registration table")
        }
    }

    /// Calls `body` with the UTF-8 bytes of `name`, or `(nil, -1)` for no name.
    private static func withBytes<R>(_ name: String?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        guard var name else {
            return body(nil, -1)
        }
        name.makeContiguousUTF8()
        return name.utf8.withContiguousStorageIfAvailable { body(UnsafeRawPointer($0.baseAddress), $0.count) }!
    }
}

/// The identity the table compares for a type: its metadata pointer.
@inlinable
@inline(__always)
func identity(_ type: Any.Type) -> UnsafeRawPointer {
    unsafeBitCast(ObjectIdentifier(type), to: UnsafeRawPointer.self)
}
