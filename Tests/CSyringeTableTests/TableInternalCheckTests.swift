import CSyringeTable
import Foundation
import Testing

// Each function below breaks a table behind its back, then makes the writer
// call whose SYR_INTERNAL_CHECKS check must notice and abort. They run in
// exit tests, in a child process: the table is never destroyed.

private func insertUnnamed(_ table: UnsafeMutablePointer<syr_table>, type: Int) {
    var replaced: UnsafeMutableRawPointer?
    _ = syr_table_insert(table, fakePointer(0x1000 * type), fakePointer(0x1008), nil, SYR_NO_NAME,
                         fakeValue(type), &replaced)
}

/// The storage layout syringe_table.c asserts: a 32-byte header (`mask`,
/// `hash_mask`, `names`), then 32-byte slots that start with `hash`. Swift
/// does not import the over-aligned structs, so the tests address raw memory.
private enum Layout {
    static let namesOffset = 16
    static let slotsOffset = 32
    static let slotSize = 32
}

private func storage(_ table: UnsafeMutablePointer<syr_table>) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(table.pointee.storage)
}

private func setSlotHash(_ table: UnsafeMutablePointer<syr_table>, _ index: Int, _ hash: UInt64) {
    storage(table).storeBytes(of: hash, toByteOffset: Layout.slotsOffset + Layout.slotSize * index, as: UInt64.self)
}

private func names(_ table: UnsafeMutablePointer<syr_table>) -> UnsafeMutablePointer<syr_slot_name> {
    storage(table).load(fromByteOffset: Layout.namesOffset, as: UnsafeMutablePointer<syr_slot_name>.self)
}

/// The counters: one key more than the slots hold, caught by the O(1)
/// counter check after an insert.
private func overcountThenInsert() {
    let table = syr_table_create(0)!
    table.pointee.count += 1
    insertUnnamed(table, type: 1)
}

/// A probe run: with hash mask 0 every unnamed key's hash is bit 63 alone and
/// its home slot 0, so the keys of types 1 and 2 sit in slots 0 and 1.
/// Emptying slot 0 hides type 2 from the next insert of it, which lands in
/// slot 0 again: the check of the written slot's run finds the key twice.
private func emptySlotThenInsert() {
    let table = syr_table_create(0)!
    _ = syr_table_set_hash_mask(table, 0)
    insertUnnamed(table, type: 1)
    insertUnnamed(table, type: 2)
    setSlotHash(table, 0, SYR_SLOT_EMPTY)
    insertUnnamed(table, type: 2)
}

/// Garbage in the zero padding of a named key's inline name entry, caught
/// by the full check after a rebuild (which carries the entry over as it is).
private func dirtyInlineNameThenRebuild() {
    let table = syr_table_create(0)!
    var replaced: UnsafeMutableRawPointer?
    _ = syr_table_insert(table, fakePointer(0x1000), fakePointer(0x1008), "n", 1, fakeValue(1), &replaced)
    let entries = names(table)
    for index in 0..<syr_table_capacity(table) where entries[index].word != 0 {
        entries[index].word |= 0xFF << 48
    }
    _ = syr_table_set_hash_mask(table, .max)
}

private func standardError(_ result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

@Suite("Table internal checks")
struct TableInternalCheckTests {
    @Test("SYR_INTERNAL_CHECKS is compiled into debug builds, and only into them")
    func enabledInDebugOnly() {
        #if DEBUG
        #expect(syr_internal_checks_enabled())
        #else
        #expect(!syr_internal_checks_enabled())
        #endif
    }

    @Test("A write that leaves an invariant broken aborts, naming the operation, the slot and the invariant",
          .enabled(if: syr_internal_checks_enabled()))
    func brokenInvariantsAbort() async {
        let overcounted = await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardErrorContent]) {
            overcountThenInsert()
        }
        #expect(standardError(overcounted).contains(
            "syringe_table: invariant broken after insert: more keys counted than slots used"))

        let emptied = await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardErrorContent]) {
            emptySlotThenInsert()
        }
        #expect(standardError(emptied).contains(
            "syringe_table: invariant broken after insert: slot 1: a key is stored twice in its probe run"))

        let nameless = await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardErrorContent]) {
            dirtyInlineNameThenRebuild()
        }
        let message = standardError(nameless)
        #expect(message.contains("syringe_table: invariant broken after set_hash_mask: slot "))
        #expect(message.contains(": an inline name's length or padding is wrong"))
    }
}
