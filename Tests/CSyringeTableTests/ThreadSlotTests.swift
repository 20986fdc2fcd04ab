import CSyringeTable
import Foundation
import Testing

private func fakePointer(_ bits: UInt) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(bitPattern: bits)!
}

@Suite("Thread slots")
struct ThreadSlotTests {
    static let slots = [SYR_THREAD_SLOT_ENGINE, SYR_THREAD_SLOT_BASELINE, SYR_THREAD_SLOT_SWINJECT]

    @Test("A new thread's slot is empty", arguments: slots)
    func startsEmpty(slot: UInt32) {
        #expect(onNewThread { syr_thread_get(slot) == nil } == true)
    }

    @Test("A stored pointer reads back on its thread, and NULL clears it", arguments: slots)
    func roundTrip(slot: UInt32) {
        let results = onNewThread { () -> [UInt] in
            syr_thread_set(slot, fakePointer(0x1230))
            let first = UInt(bitPattern: syr_thread_get(slot))
            syr_thread_set(slot, fakePointer(0x4560))
            let second = UInt(bitPattern: syr_thread_get(slot))
            syr_thread_set(slot, nil)
            let cleared = UInt(bitPattern: syr_thread_get(slot))
            return [first, second, cleared]
        }
        #expect(results == [0x1230, 0x4560, 0])
    }

    @Test("Each thread has its own slot", arguments: slots)
    func perThread(slot: UInt32) {
        let results = onNewThread { () -> [UInt] in
            syr_thread_set(slot, fakePointer(0xA0))
            let other = onNewThread { () -> UInt in
                let seen = UInt(bitPattern: syr_thread_get(slot))
                syr_thread_set(slot, fakePointer(0xB0))
                return seen
            }
            let mine = UInt(bitPattern: syr_thread_get(slot))
            syr_thread_set(slot, nil)
            return [other ?? 1, mine]
        }
        #expect(results == [0, 0xA0], "the other thread saw an empty slot and its store did not leak into this one")
    }

    @Test("Every engine's slot is a distinct index below the count")
    func slotIndices() {
        #expect(Set(Self.slots).count == Self.slots.count)
        #expect(Self.slots.allSatisfy { $0 < SYR_THREAD_SLOT_COUNT })
    }

    /// Two builds of the engine in one process each keep their context in
    /// their own slot: a store or a clear in one must not show in the other.
    @Test("The engine's and the baseline's slots are independent on one thread")
    func slotsIndependent() {
        let results = onNewThread { () -> [UInt] in
            syr_thread_set(SYR_THREAD_SLOT_ENGINE, fakePointer(0xE0))
            let baselineBeforeStore = UInt(bitPattern: syr_thread_get(SYR_THREAD_SLOT_BASELINE))
            syr_thread_set(SYR_THREAD_SLOT_BASELINE, fakePointer(0xB0))
            let engine = UInt(bitPattern: syr_thread_get(SYR_THREAD_SLOT_ENGINE))
            let baseline = UInt(bitPattern: syr_thread_get(SYR_THREAD_SLOT_BASELINE))
            syr_thread_set(SYR_THREAD_SLOT_ENGINE, nil)
            let baselineAfterEngineCleared = UInt(bitPattern: syr_thread_get(SYR_THREAD_SLOT_BASELINE))
            syr_thread_set(SYR_THREAD_SLOT_BASELINE, nil)
            return [baselineBeforeStore, engine, baseline, baselineAfterEngineCleared]
        }
        #expect(results == [0, 0xE0, 0xB0, 0xB0])
    }
}

@Suite struct ObserverFlagTests {
    /// Other suites in the process may trace or validate at the same time,
    /// so this checks what its own additions do, not an absolute count.
    @Test func countsObserversAndReportsWhetherAnyIs() {
        let before = syr_observers_add(1)
        #expect(before >= 1)
        #expect(syr_observed())
        #expect(syr_observers_add(1) == before + 1)
        #expect(syr_observers_add(-1) == before)
        _ = syr_observers_add(-1)
    }
}
