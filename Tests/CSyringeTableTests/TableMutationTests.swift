import CSyringeTable
import Testing

@Suite("Table mutation")
struct TableMutationTests {
    @Test("Overwrite reports the replaced value and keeps the count", arguments: collisionMasks)
    func overwrite(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let key = TableKey(type: 1, signature: 1, name: "k")
        let neighbour = TableKey(type: 2, signature: 1, name: "k")
        table.insert(neighbour, fakeValue(100))

        #expect(table.insert(key, fakeValue(1)) == nil)
        #expect(table.insert(key, fakeValue(2)) == fakeValue(1))
        #expect(table.insert(key, fakeValue(3)) == fakeValue(2))
        #expect(table.count == 2)
        #expect(table.lookup(key) == fakeValue(3))
        #expect(table.lookup(neighbour) == fakeValue(100))
        // Exactly one slot holds the key: an overwrite that appended a second
        // copy would show up here and in the invariants.
        #expect(table.slotValues.count == 2)
        #expect(table.invariantsHold)
    }

    @Test("Remove returns the value, the key is then absent and the count drops", arguments: collisionMasks)
    func remove(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let keys = (1...5).map { TableKey(type: $0, name: "r") }
        for (n, key) in keys.enumerated() { table.insert(key, fakeValue(n)) }

        #expect(table.remove(keys[2]) == fakeValue(2))
        #expect(table.lookup(keys[2]) == nil)
        #expect(table.count == 4)
        for n in [0, 1, 3, 4] {
            #expect(table.lookup(keys[n]) == fakeValue(n), "key \(n) lost behind the tombstone")
        }
        #expect(table.remove(keys[2]) == nil, "second remove of the same key")
        #expect(table.count == 4)
        #expect(table.invariantsHold)
    }

    @Test("Remove of an absent key returns nil and changes nothing", arguments: collisionMasks)
    func removeAbsent(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        #expect(table.remove(TableKey(type: 1)) == nil)
        table.insert(TableKey(type: 1), fakeValue(1))
        #expect(table.remove(TableKey(type: 1, name: "")) == nil)
        #expect(table.remove(TableKey(type: 2)) == nil)
        #expect(table.count == 1)
        #expect(table.lookup(TableKey(type: 1)) == fakeValue(1))
        #expect(table.invariantsHold)
    }

    @Test("Re-insert after remove lands past the tombstone and is found", arguments: collisionMasks)
    func reinsertAfterRemove(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let key = TableKey(type: 1, name: "again")
        let other = TableKey(type: 2, name: "again")
        table.insert(key, fakeValue(1))
        table.insert(other, fakeValue(2))
        #expect(table.remove(key) == fakeValue(1))

        // A fresh insert, not an overwrite: nothing was replaced.
        #expect(table.insert(key, fakeValue(3)) == nil)
        #expect(table.lookup(key) == fakeValue(3))
        #expect(table.lookup(other) == fakeValue(2))
        #expect(table.count == 2)
        #expect(table.invariantsHold)

        // The old slot must not be revived by a second remove/insert either.
        #expect(table.remove(key) == fakeValue(3))
        #expect(table.lookup(key) == nil)
        #expect(table.insert(key, fakeValue(4)) == nil)
        #expect(table.lookup(key) == fakeValue(4))
        #expect(Set(table.slotValues) == [fakeValue(2), fakeValue(4)])
    }

    @Test("Clear empties the table and it is usable afterwards", arguments: collisionMasks)
    func clear(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let keys = (1...100).map { TableKey(type: $0, signature: $0 % 3 + 1, name: $0 % 2 == 0 ? "even" : nil) }
        for (n, key) in keys.enumerated() { table.insert(key, fakeValue(n)) }
        table.remove(keys[0])

        #expect(syr_table_clear(table.raw) == 0)
        #expect(table.count == 0)
        #expect(table.slotValues.isEmpty)
        #expect(table.invariantsHold)
        for key in keys {
            #expect(table.lookup(key) == nil)
        }

        for (n, key) in keys.enumerated() {
            #expect(table.insert(key, fakeValue(n + 1000)) == nil, "\(key) survived clear")
        }
        for (n, key) in keys.enumerated() {
            #expect(table.lookup(key) == fakeValue(n + 1000))
        }
        #expect(table.count == keys.count)
        #expect(table.invariantsHold)
    }

    @Test("Clear keeps a forced hash mask in effect")
    func clearKeepsMask() {
        // Few enough keys that the cleared table is not rebuilt, which would
        // reapply the mask and hide a clear that dropped it.
        let keys = (1...5).map { TableKey(type: $0, name: "after clear") }
        func clearedAndRefilled(mask: UInt64) -> TestTable {
            let table = TestTable()
            table.setHashMask(mask)
            for n in 1...20 { table.insert(TableKey(type: n), fakeValue(n)) }
            #expect(syr_table_clear(table.raw) == 0)
            for (n, key) in keys.enumerated() { table.insert(key, fakeValue(n)) }
            #expect(table.invariantsHold)
            for (n, key) in keys.enumerated() { #expect(table.lookup(key) == fakeValue(n)) }
            return table
        }
        // Control: under the real hash these keys leave gaps.
        #expect(!clearedAndRefilled(mask: .max).fullSlotsAreOneRun)
        #expect(clearedAndRefilled(mask: 0).fullSlotsAreOneRun, "keys stopped colliding after clear")
    }

    @Test("value_at walks exactly the live values")
    func valueAtWalksLiveValues() {
        let table = TestTable()
        func key(_ n: Int) -> TableKey { TableKey(type: n + 1, name: n % 4 == 0 ? nil : "v\(n % 7)") }
        var expected: [TableKey: Int] = [:]
        for n in 0..<300 {
            table.insert(key(n), fakeValue(n))
            expected[key(n)] = n
        }
        for n in stride(from: 0, to: 300, by: 3) {
            #expect(table.remove(key(n)) == fakeValue(n))
            expected[key(n)] = nil
        }
        for n in stride(from: 1, to: 300, by: 5) where expected[key(n)] != nil {
            #expect(table.insert(key(n), fakeValue(n + 10_000)) == fakeValue(n))
            expected[key(n)] = n + 10_000
        }

        let walked = table.slotValues
        #expect(walked.count == expected.count, "a value was walked twice or skipped")
        #expect(Set(walked) == Set(expected.values.map(fakeValue)))
        #expect(walked.count == table.count)
        #expect(syr_table_value_at(table.raw, table.capacity) == nil, "index past the end")
    }
}
