import CSyringeTable
import Foundation
import Testing

/// A registration key built from small integers, so tests can enumerate many
/// distinct keys cheaply. The table only compares identity pointers, so fake
/// (never dereferenced) addresses are enough.
struct TableKey: Hashable, Sendable, CustomStringConvertible {
    var type: Int
    var signature: Int
    /// `nil` is SYR_NO_NAME, which is a different key from the empty name.
    var name: [UInt8]?

    /// A key whose name is given as raw bytes (which may include NULs).
    init(type: Int, signature: Int = 1, bytes: [UInt8]) {
        self.type = type
        self.signature = signature
        self.name = bytes
    }

    /// A key named by the UTF-8 of `name`, or without a name when it is nil.
    init(type: Int, signature: Int = 1, name: String? = nil) {
        self.type = type
        self.signature = signature
        self.name = name.map { Array($0.utf8) }
    }

    var typePointer: UnsafeRawPointer { fakePointer(0x1000 * type) }
    var signaturePointer: UnsafeRawPointer { fakePointer(0x1000 * signature + 0x8) }

    /// Calls `body` with the (pointer, length) pair the C API takes for the name.
    func withName<R>(_ body: (UnsafeRawPointer?, Int) -> R) -> R {
        guard let name else { return body(nil, SYR_NO_NAME) }
        return name.withUnsafeBytes { body($0.baseAddress, $0.count) }
    }

    var description: String {
        let shownName = name.map { $0.count > 32 ? "<\($0.count) bytes>" : "\($0)" } ?? "NO_NAME"
        return "(type: \(type), signature: \(signature), name: \(shownName))"
    }
}

func fakePointer(_ bits: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(bitPattern: bits)!
}

/// A distinct, non-NULL value pointer for each `n >= 0`.
func fakeValue(_ n: Int) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(bitPattern: 0x10 * (n + 1))!
}

/// Owns one `syr_table` and destroys it at deinit; what it retired before is
/// freed by the reclaimer.
///
/// `@unchecked Sendable` because the concurrency test shares it between one
/// writer thread and reader threads, which is exactly the table's contract:
/// lookups are safe against a single serialised writer.
final class TestTable: @unchecked Sendable {
    let raw: UnsafeMutablePointer<syr_table>

    init(expected: Int = 0) {
        raw = syr_table_create(expected)!
    }

    deinit {
        syr_table_destroy(raw)
    }

    var count: Int { syr_table_count(raw) }
    var capacity: Int { syr_table_capacity(raw) }
    var invariantsHold: Bool { syr_table_check_invariants(raw) }

    /// Inserts or overwrites; returns the replaced value.
    @discardableResult
    func insert(_ key: TableKey, _ value: UnsafeMutableRawPointer,
                sourceLocation: SourceLocation = #_sourceLocation) -> UnsafeMutableRawPointer? {
        var replaced: UnsafeMutableRawPointer?
        let status = key.withName { name, length in
            syr_table_insert(raw, key.typePointer, key.signaturePointer, name, length, value, &replaced)
        }
        #expect(status == 0, "insert of \(key) failed", sourceLocation: sourceLocation)
        return replaced
    }

    /// Looks up inside a read-side section, as Syringe does: storage and
    /// names the writer retires meanwhile stay readable until it ends.
    func lookup(_ key: TableKey) -> UnsafeMutableRawPointer? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return key.withName { name, length in
            syr_table_lookup(raw, key.typePointer, key.signaturePointer, name, length)
        }
    }

    /// `lookup` of an unnamed key through `syr_table_lookup_unnamed`, with
    /// the key's identity hash computed by the caller.
    func lookupUnnamed(_ key: TableKey, identityHash: UInt64) -> UnsafeMutableRawPointer? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return syr_table_lookup_unnamed(raw, key.typePointer, key.signaturePointer, identityHash)
    }

    @discardableResult
    func remove(_ key: TableKey) -> UnsafeMutableRawPointer? {
        key.withName { name, length in
            syr_table_remove(raw, key.typePointer, key.signaturePointer, name, length)
        }
    }

    func setHashMask(_ mask: UInt64, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(syr_table_set_hash_mask(raw, mask) == 0, sourceLocation: sourceLocation)
    }

    /// Whether the full slots form one unbroken run (wrapping at the end),
    /// which linear probing produces exactly when every key has the same home.
    var fullSlotsAreOneRun: Bool {
        let full = (0..<capacity).map { syr_table_value_at(raw, $0) != nil }
        let runStarts = full.indices.filter { full[$0] && !full[($0 + capacity - 1) % capacity] }
        return runStarts.count == 1
    }

    /// Every value in a full slot, in slot order.
    var slotValues: [UnsafeMutableRawPointer] {
        (0..<capacity).compactMap { syr_table_value_at(raw, $0) }
    }
}

/// Hash masks under which the key tests must behave identically: the real
/// hash, every key colliding (all unnamed keys on one hash, all named ones on
/// another: bit 0 says which), and only two distinguishing bits besides it.
let collisionMasks: [UInt64] = [.max, 0, 0x7]

/// A result handed from a finished thread to the one that waited for it.
private final class Outcome<R>: @unchecked Sendable {
    var value: R?
}

/// Runs `body` on a new thread and waits for it; nil when it has not
/// returned by `deadline`. A thread that overruns is left running: a C call
/// cannot be cancelled, but the test fails instead of hanging.
func onNewThread<R: Sendable>(deadline: DispatchTime = .distantFuture,
                              _ body: @escaping @Sendable () -> R) -> R? {
    let outcome = Outcome<R>()
    let done = DispatchSemaphore(value: 0)
    Thread {
        outcome.value = body()
        done.signal()
    }.start()
    guard done.wait(timeout: deadline) == .success else { return nil }
    return outcome.value
}
