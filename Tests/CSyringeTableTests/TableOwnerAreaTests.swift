import CSyringeTable
import Testing

/// A table's block starts with its owner's bytes (Syringe keeps a
/// container's writer mutex there), then the table, then its first storage.
@Suite("The owner's bytes in a table's block")
struct TableOwnerAreaTests {
    @Test("zeroed and 32-byte aligned at creation, right before the table")
    func zeroedAndAligned() {
        let table = TestTable()
        let area = syr_table_owner_area(table.raw)!
        #expect(Int(bitPattern: area) % 32 == 0)
        #expect(area + Int(SYR_TABLE_OWNER_BYTES) == UnsafeMutableRawPointer(table.raw))
        let bytes = UnsafeRawBufferPointer(start: area, count: Int(SYR_TABLE_OWNER_BYTES))
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test("the table never touches them: growth, removal, a new hash mask and clearing leave them as the owner wrote them")
    func untouchedByEveryWriter() {
        let table = TestTable()
        let area = syr_table_owner_area(table.raw)!
        let pattern = (0..<Int(SYR_TABLE_OWNER_BYTES)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        area.copyMemory(from: pattern, byteCount: pattern.count)
        func ownerBytesIntact() -> Bool {
            Array(UnsafeRawBufferPointer(start: area, count: pattern.count)) == pattern
        }

        // Each doubling replaces the storage; the first one shares the
        // owner's block and must stay, untouched, until the table goes.
        for n in 0..<5_000 { table.insert(TableKey(type: n + 1, name: n % 2 == 0 ? nil : "o\(n % 7)"), fakeValue(n)) }
        #expect(ownerBytesIntact())
        for n in stride(from: 0, to: 5_000, by: 3) { table.remove(TableKey(type: n + 1, name: n % 2 == 0 ? nil : "o\(n % 7)")) }
        #expect(ownerBytesIntact())
        table.setHashMask(0xFF)
        #expect(ownerBytesIntact())
        #expect(syr_table_clear(table.raw) == 0)
        #expect(ownerBytesIntact())
        table.insert(TableKey(type: 1), fakeValue(1))
        #expect(table.lookup(TableKey(type: 1)) == fakeValue(1))
        #expect(table.invariantsHold)
        #expect(ownerBytesIntact())
    }
}
