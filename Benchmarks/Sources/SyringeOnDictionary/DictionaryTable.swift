// The benchmarks' "Swift dict" baseline: Syringe's engine with a Swift
// `Dictionary` for its table.
//
// This target compiles every file of /Sources/Syringe (through the `Engine`
// link) except ResolutionTable.swift, which this file replaces: the same
// containers, definitions, scopes, per-thread context and diagnostics, the
// same inlinable paths, built with the same settings. The column therefore
// differs from Syringe's by the table and nothing else, by construction; the
// contract both tables meet is `ResolutionTableInterface` (Lookup.swift).
//
// Where Syringe hashes (type, signature, name bytes) with XXH3 and probes a C
// open-addressing table, this table hashes a `Hashable` struct with the
// standard library's `Hasher` (SipHash-1-3). Syringe's C table lets
// registration run while other threads resolve without a lock on the read
// side; a `Dictionary` cannot (a write may reallocate its storage under a
// reader), so every lookup takes a lock, as a container built on it would.
// `freeze()` offers the other choice: afterwards the table is read-only and
// lookups read an immutable snapshot without a lock. The benchmark table
// shows both columns, so the dictionary's cost and the lock's can be told
// apart.
public import CSyringeTable
import Synchronization

/// The key: the C table's three parts, hashed by `Hasher`.
struct TableKey: Hashable {
    let type: UnsafeRawPointer
    let signature: UnsafeRawPointer
    let name: String?
}

@usableFromInline
struct ResolutionTable: ResolutionTableInterface, @unchecked Sendable {
    let storage = DictionaryStorage()
    /// A block of its own: the C table keeps these bytes in its own block.
    let ownerArea = UnsafeMutableRawPointer.allocate(
        byteCount: ResolutionTableOwnerArea.byteCount,
        alignment: ResolutionTableOwnerArea.alignment
    )

    init() {}

    func destroy() {
        ownerArea.deallocate()
    }

    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        storage.lookup(TableKey(type: type, signature: signature, name: nil))
    }

    /// `Hasher` hashes the whole key in each lookup: nothing to compute
    /// once per walk.
    static func identityHash(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> UInt64 {
        0
    }

    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, identityHash: UInt64) -> UnsafeMutableRawPointer? {
        lookup(type: type, signature: signature)
    }

    /// `String`'s `==` is canonical equivalence already: no NFC retry.
    func lookup(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> UnsafeMutableRawPointer? {
        storage.lookup(TableKey(type: type, signature: signature, name: name))
    }

    func insert(_ key: DefinitionKey, _ value: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        storage.write { $0.updateValue(value, forKey: TableKey(key)) }
    }

    func remove(_ key: DefinitionKey) -> UnsafeMutableRawPointer? {
        storage.write { $0.removeValue(forKey: TableKey(key)) }
    }

    func removeAll() {
        storage.write { $0.removeAll() }
    }

    func recycle() -> Bool {
        storage.recycle()
    }

    @inlinable
    static var contextSlot: UInt32 { SYR_THREAD_SLOT_BASELINE }
}

extension TableKey {
    init(_ key: DefinitionKey) {
        self.init(type: key.type, signature: key.signature, name: key.name)
    }
}

/// The dictionary, the lock every reader takes, and the frozen snapshot.
final class DictionaryStorage: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`.
    private var entries: [TableKey: UnsafeMutableRawPointer] = [:]
    /// A retained `FrozenEntries` once `freeze()` was called.
    private let frozen = Atomic<UnsafeRawPointer?>(nil)

    deinit {
        if let snapshot = frozen.load(ordering: .acquiring) {
            Unmanaged<FrozenEntries>.fromOpaque(snapshot).release()
        }
    }

    @inline(__always)
    func lookup(_ key: TableKey) -> UnsafeMutableRawPointer? {
        if let snapshot = frozen.load(ordering: .acquiring) {
            return Unmanaged<FrozenEntries>.fromOpaque(snapshot)._withUnsafeGuaranteedRef { $0.entries[key] }
        }
        return lock.withLock { entries[key] }
    }

    func write<R>(_ body: (inout [TableKey: UnsafeMutableRawPointer]) -> R) -> R {
        lock.withLock {
            precondition(frozen.load(ordering: .relaxed) == nil, "SyringeOnDictionary: registering after freeze()")
            return body(&entries)
        }
    }

    /// Empties the entries, keeping their capacity, unless frozen.
    func recycle() -> Bool {
        lock.withLock {
            guard frozen.load(ordering: .relaxed) == nil else { return false }
            entries.removeAll(keepingCapacity: true)
            return true
        }
    }

    func freeze() {
        lock.withLock {
            precondition(frozen.load(ordering: .relaxed) == nil, "SyringeOnDictionary: frozen twice")
            let snapshot = Unmanaged.passRetained(FrozenEntries(entries)).toOpaque()
            frozen.store(UnsafeRawPointer(snapshot), ordering: .releasing)
        }
    }
}

/// The table after `freeze()`: immutable, so read without a lock.
final class FrozenEntries: @unchecked Sendable {
    let entries: [TableKey: UnsafeMutableRawPointer]

    init(_ entries: [TableKey: UnsafeMutableRawPointer]) {
        self.entries = entries
    }
}

extension Container {
    /// Makes this container's table read-only: later lookups take no lock, and
    /// registering traps. Only in this baseline build.
    public func freeze() {
        table.storage.freeze()
    }
}
