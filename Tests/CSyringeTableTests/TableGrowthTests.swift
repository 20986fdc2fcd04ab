import CSyringeTable
import Testing

@Suite("Table growth, collisions and tombstones")
struct TableGrowthTests {
    @Test("10 000 keys: capacity grows and every key stays reachable")
    func growth() {
        let table = TestTable()
        let initialCapacity = table.capacity
        let keys = (0..<10_000).map {
            TableKey(type: $0 % 97 + 1, signature: $0 / 97 + 1, name: $0 % 3 == 0 ? nil : "g\($0 % 5)")
        }
        for batch in stride(from: 0, to: keys.count, by: 1_000) {
            for n in batch..<(batch + 1_000) {
                #expect(table.insert(keys[n], fakeValue(n)) == nil)
            }
            #expect(table.count == batch + 1_000)
            #expect(table.invariantsHold, "after \(batch + 1_000) keys")
            // Load never exceeds 3/4 and capacity stays a power of two.
            #expect(table.capacity * 3 >= table.count * 4)
            #expect(table.capacity & (table.capacity - 1) == 0)
        }
        #expect(table.capacity > initialCapacity)
        for (n, key) in keys.enumerated() where table.lookup(key) != fakeValue(n) {
            Issue.record("\(key) lost after growth")
        }
    }

    @Test("create(expected:) presizes so that many inserts need no rebuild", arguments: [1, 100, 1_000])
    func presized(expected: Int) {
        let table = TestTable(expected: expected)
        let capacity = table.capacity
        for n in 0..<expected { table.insert(TableKey(type: n + 1), fakeValue(n)) }
        #expect(table.capacity == capacity)
        #expect(table.invariantsHold)
    }

    @Test("Hash mask 0 puts every key in one probe run; restoring the mask spreads them out")
    func maskZeroCollides() {
        let table = TestTable(expected: 64)
        for n in 1...40 { table.insert(TableKey(type: n, name: "spread"), fakeValue(n)) }
        // 40 keys in 128 slots under a real hash leave gaps between them.
        #expect(!table.fullSlotsAreOneRun)

        table.setHashMask(0)
        #expect(table.fullSlotsAreOneRun)
        table.insert(TableKey(type: 41, name: "spread"), fakeValue(41))
        #expect(table.fullSlotsAreOneRun)

        table.setHashMask(.max)
        #expect(!table.fullSlotsAreOneRun)
        for n in 1...41 { #expect(table.lookup(TableKey(type: n, name: "spread")) == fakeValue(n)) }
        #expect(table.invariantsHold)
    }

    @Test("Forced collisions: insert, overwrite, remove and lookup ~300 keys", arguments: [0, 0xF, 0x7] as [UInt64])
    func collisions(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let keys = (0..<300).map {
            TableKey(type: $0 % 10 + 1, signature: $0 / 10 % 3 + 1, name: $0 < 30 ? nil : "c\($0 / 30)")
        }
        #expect(Set(keys).count == keys.count)
        var model: [TableKey: Int] = [:]

        func verify(_ stage: String) {
            #expect(table.count == model.count, "\(stage)")
            #expect(table.invariantsHold, "\(stage)")
            for key in keys where table.lookup(key) != model[key].map(fakeValue) {
                Issue.record("\(stage): wrong lookup for \(key)")
            }
        }

        for (n, key) in keys.enumerated() {
            #expect(table.insert(key, fakeValue(n)) == nil)
            model[key] = n
        }
        verify("inserted")

        for (n, key) in keys.enumerated() where n % 3 == 0 {
            #expect(table.insert(key, fakeValue(n + 1_000)) == fakeValue(n))
            model[key] = n + 1_000
        }
        verify("overwritten")

        for (n, key) in keys.enumerated() where n % 5 == 0 {
            #expect(table.remove(key) == fakeValue(model[key]!))
            model[key] = nil
        }
        verify("removed")

        for (n, key) in keys.enumerated() where n % 10 == 0 {
            #expect(table.insert(key, fakeValue(n + 2_000)) == nil)
            model[key] = n + 2_000
        }
        verify("re-inserted")

        // Leaving forced-collision mode rehashes every key.
        table.setHashMask(.max)
        verify("mask restored")
    }

    @Test("Insert/remove of one key forever keeps the table small", arguments: [UInt64.max, 0])
    func singleKeyChurn(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let key = TableKey(type: 1, name: "churn")
        for n in 0..<2_000 {
            #expect(table.insert(key, fakeValue(n)) == nil)
            #expect(table.remove(key) == fakeValue(n))
        }
        // Every insert takes a fresh slot; only rebuilds reclaim tombstones.
        #expect(table.capacity <= 16)
        #expect(table.count == 0)
        #expect(table.invariantsHold)
        #expect(table.lookup(key) == nil)
    }

    @Test("Churn around a resident set keeps capacity bounded", arguments: [UInt64.max, 0])
    func residentSetChurn(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let resident = (0..<64).map { TableKey(type: $0 + 1, signature: 1) }
        for (n, key) in resident.enumerated() { table.insert(key, fakeValue(n)) }

        var maxCapacity = 0
        for cycle in 0..<50 {
            let transient = (0..<64).map { TableKey(type: $0 + 1, signature: cycle + 2, name: "t") }
            for (n, key) in transient.enumerated() { table.insert(key, fakeValue(10_000 + n)) }
            for (n, key) in transient.enumerated() {
                #expect(table.remove(key) == fakeValue(10_000 + n))
            }
            maxCapacity = max(maxCapacity, table.capacity)
            #expect(table.invariantsHold, "cycle \(cycle)")
        }
        // 3 264 inserts in total, but never more than 128 live keys: a table
        // that kept its tombstones would have grown to 8 192 slots.
        #expect(maxCapacity <= 512)
        #expect(table.count == resident.count)
        for (n, key) in resident.enumerated() {
            #expect(table.lookup(key) == fakeValue(n))
        }
    }
}
