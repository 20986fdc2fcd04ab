import CSyringeTable
import Foundation
import Testing

private func fakePointer(_ bits: UInt) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(bitPattern: bits)!
}

@Suite("Thread slot")
struct ThreadSlotTests {
    @Test("A new thread's slot is empty")
    func startsEmpty() {
        #expect(onNewThread { syr_thread_get() == nil } == true)
    }

    @Test("A stored pointer reads back on its thread, and NULL clears it")
    func roundTrip() {
        let results = onNewThread { () -> [UInt] in
            syr_thread_set(fakePointer(0x1230))
            let first = UInt(bitPattern: syr_thread_get())
            syr_thread_set(fakePointer(0x4560))
            let second = UInt(bitPattern: syr_thread_get())
            syr_thread_set(nil)
            let cleared = UInt(bitPattern: syr_thread_get())
            return [first, second, cleared]
        }
        #expect(results == [0x1230, 0x4560, 0])
    }

    @Test("Each thread has its own slot")
    func perThread() {
        let results = onNewThread { () -> [UInt] in
            syr_thread_set(fakePointer(0xA0))
            let other = onNewThread { () -> UInt in
                let seen = UInt(bitPattern: syr_thread_get())
                syr_thread_set(fakePointer(0xB0))
                return seen
            }
            let mine = UInt(bitPattern: syr_thread_get())
            syr_thread_set(nil)
            return [other ?? 1, mine]
        }
        #expect(results == [0, 0xA0], "the other thread saw an empty slot and its store did not leak into this one")
    }
}
