import CSyringeTable
import Testing

/// `syr_table_recycle`: a table nobody can reach any more, emptied in place
/// for its block to serve the next container (a request's scope).
@Suite("Recycling a table's block")
struct TableRecycleTests {
    @Test("a table of a few keys comes back empty, with its owner's bytes and as good as new")
    func emptiesInPlace() {
        let table = TestTable()
        let area = syr_table_owner_area(table.raw)!
        let pattern = (0..<Int(SYR_TABLE_OWNER_BYTES)).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
        area.copyMemory(from: pattern, byteCount: pattern.count)
        let initialCapacity = table.capacity
        // Unnamed, inline-named and long-named keys (a name block each),
        // and a tombstone: all of it must go.
        let keys = [
            TableKey(type: 1),
            TableKey(type: 2, name: "short"),
            TableKey(type: 3, name: String(repeating: "a long name ", count: 8)),
            TableKey(type: 4),
        ]
        for (n, key) in keys.enumerated() { table.insert(key, fakeValue(n)) }
        table.remove(keys[3])
        #expect(table.count == 3)

        #expect(syr_table_recycle(table.raw) == 0)
        #expect(table.count == 0)
        #expect(table.capacity == initialCapacity)
        #expect(table.slotValues.isEmpty)
        for key in keys { #expect(table.lookup(key) == nil) }
        #expect(table.invariantsHold)
        #expect(Array(UnsafeRawBufferPointer(start: area, count: pattern.count)) == pattern)

        // Used again: as many keys as a new table takes before it grows,
        // then past that.
        for n in 0..<40 { table.insert(TableKey(type: 100 + n, name: n % 3 == 0 ? "k\(n)" : nil), fakeValue(n)) }
        for n in 0..<40 { #expect(table.lookup(TableKey(type: 100 + n, name: n % 3 == 0 ? "k\(n)" : nil)) == fakeValue(n)) }
        #expect(table.count == 40)
        #expect(table.invariantsHold)
    }

    @Test("a table that outgrew its first storage, or was cleared, or collides on purpose, is left as it was")
    func refusesWhatANewTableIsNot() {
        let grown = TestTable()
        for n in 0..<50 { grown.insert(TableKey(type: n + 1), fakeValue(n)) }
        #expect(syr_table_recycle(grown.raw) == -1)
        #expect(grown.count == 50)
        #expect(grown.lookup(TableKey(type: 7)) == fakeValue(6))

        let cleared = TestTable()
        cleared.insert(TableKey(type: 1), fakeValue(1))
        #expect(syr_table_clear(cleared.raw) == 0)
        cleared.insert(TableKey(type: 2), fakeValue(2))
        #expect(syr_table_recycle(cleared.raw) == -1)
        #expect(cleared.lookup(TableKey(type: 2)) == fakeValue(2))

        let colliding = TestTable()
        colliding.setHashMask(0xFF)
        colliding.insert(TableKey(type: 1), fakeValue(1))
        #expect(syr_table_recycle(colliding.raw) == -1)
        #expect(colliding.lookup(TableKey(type: 1)) == fakeValue(1))
    }
}
