import CSyringeTable
import Foundation
import Synchronization
import Testing

/// State shared by the writer thread and the reader threads.
private final class RaceState: Sendable {
    let table: TestTable
    let readersReady = Atomic<Int>(0)
    let writerDone = Atomic<Bool>(false)
    let mismatches = Atomic<Int>(0)
    let passes = Atomic<Int>(0)
    let capacityChanges = Atomic<Int>(0)

    init(table: TestTable) {
        self.table = table
    }
}

@Suite("Table concurrency")
struct TableConcurrencyTests {
    static let readerCount = 3
    static let fixedKeys = (0..<64).map { TableKey(type: $0 + 1, signature: 1, name: $0 % 2 == 0 ? nil : "fixed") }
    static let churnKeys = (0..<64).map { TableKey(type: $0 + 1, signature: 2, name: "churn") }

    /// Churn values carry their key's index so a reader can tell a value of
    /// the right key (any generation) from another key's value.
    static func churnValue(key: Int, generation: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: 0x1_0000_0000 | key << 20 | (generation & 0xFFFF) << 4)!
    }

    static func isChurnValue(_ value: UnsafeMutableRawPointer, of key: Int) -> Bool {
        let bits = Int(bitPattern: value)
        return bits & 0x1_0000_0000 != 0 && (bits >> 20) & 0xFFF == key
    }

    /// One writer grows the table through several rebuilds (and one hash-mask
    /// change) while overwriting and removing churn keys; readers keep
    /// looking up keys the writer never touches, and churn keys, whose value
    /// may be absent or any generation but must belong to that key.
    @Test("Lock-free readers see untouched keys throughout rebuilds by one writer")
    func readersDuringWrites() {
        let table = TestTable(expected: 128)
        for (n, key) in Self.fixedKeys.enumerated() { table.insert(key, fakeValue(n)) }
        for (n, key) in Self.churnKeys.enumerated() { table.insert(key, Self.churnValue(key: n, generation: 0)) }
        let state = RaceState(table: table)
        let finished = DispatchGroup()

        for _ in 0..<Self.readerCount {
            finished.enter()
            Thread {
                Self.read(state)
                finished.leave()
            }.start()
        }

        finished.enter()
        Thread {
            Self.write(state)
            finished.leave()
        }.start()

        #expect(finished.wait(timeout: .now() + 60) == .success, "threads did not finish")
        #expect(state.mismatches.load(ordering: .relaxed) == 0)
        #expect(state.passes.load(ordering: .relaxed) >= Self.readerCount)
        #expect(state.capacityChanges.load(ordering: .relaxed) >= 4, "the writer should have forced several rebuilds")
        let liveChurnKeys = Self.churnKeys.count { table.lookup($0) != nil }
        #expect(table.count == Self.fixedKeys.count + liveChurnKeys)
        #expect(table.invariantsHold)
        for (n, key) in Self.fixedKeys.enumerated() {
            #expect(table.lookup(key) == fakeValue(n))
        }
    }

    private static func read(_ state: RaceState) {
        state.readersReady.add(1, ordering: .releasing)
        var done = false
        // One more full pass after the writer finishes, so the final storage is read too.
        while !done {
            done = state.writerDone.load(ordering: .acquiring)
            for (n, key) in fixedKeys.enumerated() where state.table.lookup(key) != fakeValue(n) {
                state.mismatches.add(1, ordering: .relaxed)
            }
            for (n, key) in churnKeys.enumerated() {
                if let value = state.table.lookup(key), !isChurnValue(value, of: n) {
                    state.mismatches.add(1, ordering: .relaxed)
                }
            }
            state.passes.add(1, ordering: .relaxed)
        }
    }

    private static func write(_ state: RaceState) {
        // Make sure the readers are running before the table starts moving.
        while state.readersReady.load(ordering: .acquiring) < readerCount {
            sched_yield()
        }
        let table = state.table
        var present = Array(repeating: true, count: churnKeys.count)
        var step = 0

        func churn() {
            let overwritten = step % churnKeys.count
            table.insert(churnKeys[overwritten], churnValue(key: overwritten, generation: step))
            present[overwritten] = true
            let removed = (step * 7 + 3) % churnKeys.count
            if step % 3 == 0, present[removed] {
                table.remove(churnKeys[removed])
                present[removed] = false
            }
            step += 1
        }

        // Round 0 grows the table through several doublings; round 1 runs
        // into round 0's tombstones, so its rebuilds reclaim them instead.
        var capacity = table.capacity
        for round in 0..<2 {
            let grown = (0..<6_000).map { TableKey(type: $0 + 1, signature: 3 + round, name: "grow") }
            for (n, key) in grown.enumerated() {
                table.insert(key, fakeValue(100_000 + n))
                churn()
                if table.capacity != capacity {
                    capacity = table.capacity
                    state.capacityChanges.add(1, ordering: .relaxed)
                }
                // Readers must switch to the new storage's mask along with its slots.
                if round == 0, n == 3_000 {
                    table.setHashMask(0x00FF_FFFF_FFFF_FFFF)
                }
            }
            for key in grown {
                table.remove(key)
                churn()
            }
        }
        state.writerDone.store(true, ordering: .releasing)
    }
}
