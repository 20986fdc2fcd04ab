import CSyringeTable
import Foundation
import Synchronization
import Testing

/// Counts how often the reclaimer freed it. The test keeps it alive; the
/// free function only counts.
private final class FreeCount: @unchecked Sendable {
    let count = Atomic(0)

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Acquiring, paired with the frees' releasing adds: a test that sees
    /// an object freed also sees everything its free function did before
    /// (`reentrantFree` then clears what the function read).
    var freed: Int { count.load(ordering: .acquiring) }
}

private let countFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
    Unmanaged<FreeCount>.fromOpaque(object!).takeUnretainedValue().count.add(1, ordering: .releasing)
}

/// Polls until `condition` holds; false after 30 s. Other tests run in this
/// process at the same time, and their sections rightly delay frees.
private func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<30_000 {
        if condition() { return true }
        syr_reclaim_poll()
        usleep(1_000)
    }
    return condition()
}

/// A thread that enters a section (or several nested ones), says so, and
/// stays inside until told to leave.
private final class ReaderThread: @unchecked Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let leave = DispatchSemaphore(value: 0)
    private let left = DispatchSemaphore(value: 0)

    init(depth: Int = 1, afterInnerExit: Bool = false) {
        Thread { [self] in
            var exits: [UnsafeMutablePointer<UInt64>] = []
            for _ in 0..<depth {
                exits.append(syr_read_enter())
            }
            if afterInnerExit {
                // Leave every section but the outermost before reporting in.
                while exits.count > 1 {
                    syr_read_exit(exits.removeLast())
                }
            }
            entered.signal()
            leave.wait()
            while let exit = exits.popLast() {
                syr_read_exit(exit)
            }
            left.signal()
        }.start()
        entered.wait()
    }

    func finish() {
        leave.signal()
        left.wait()
    }
}

@Suite("Reclaimer")
struct ReclaimTests {
    @Test("An object retired while another thread is in a section is freed only after that section ends, exactly once")
    func waitsForSection() {
        let reader = ReaderThread()
        let object = FreeCount()
        syr_reclaim_retire(object.pointer, countFree)
        for _ in 0..<20 {
            syr_reclaim_poll()
        }
        #expect(object.freed == 0, "freed while a section that may hold it was open")
        #expect(syr_reclaim_pending_count() >= 1)
        reader.finish()
        #expect(eventually { object.freed == 1 })
        syr_reclaim_poll()
        #expect(object.freed == 1)
    }

    @Test("What a section held back is freed after it ends with nobody polling: the reclaimer's thread does it")
    func freedByReclaimerThread() {
        let reader = ReaderThread()
        let object = FreeCount()
        syr_reclaim_retire(object.pointer, countFree)
        syr_reclaim_poll()   // leaves it pending, and wakes the reclaimer's thread
        #expect(object.freed == 0)
        reader.finish()
        var waited = 0
        while object.freed == 0 && waited < 30_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(object.freed == 1)
    }

    @Test("Only the outermost section counts: leaving a nested one keeps the object", arguments: [2, 5])
    func nestedSections(depth: Int) {
        let reader = ReaderThread(depth: depth, afterInnerExit: true)
        let object = FreeCount()
        syr_reclaim_retire(object.pointer, countFree)
        for _ in 0..<20 {
            syr_reclaim_poll()
        }
        #expect(object.freed == 0)
        reader.finish()
        #expect(eventually { object.freed == 1 })
    }

    @Test("A section entered after the retire does not hold the object back")
    func laterSectionDoesNotBlock() {
        let object = FreeCount()
        syr_reclaim_retire(object.pointer, countFree)
        // This reader loads the advanced epoch: it cannot have seen the object.
        let reader = ReaderThread()
        #expect(eventually { object.freed == 1 })
        reader.finish()
    }

    @Test("A poll inside a section frees nothing; the object goes after the section")
    func pollInsideSection() {
        let object = FreeCount()
        let exit = syr_read_enter()
        #expect(syr_read_is_inside() != 0)
        syr_reclaim_retire(object.pointer, countFree)
        syr_reclaim_poll()
        #expect(object.freed == 0)
        syr_read_exit(exit)
        #expect(syr_read_is_inside() == 0)
        #expect(eventually { object.freed == 1 })
    }

    @Test("Retiring advances the epoch by two per object")
    func epochAdvances() {
        let objects = (0..<3).map { _ in FreeCount() }
        let before = syr_reclaim_epoch_now()
        for object in objects {
            syr_reclaim_retire(object.pointer, countFree)
        }
        let after = syr_reclaim_epoch_now()
        // Other tests may retire at the same time: at least, not exactly.
        #expect(after >= before + 6)
        #expect(after % 2 == 0)
        #expect(eventually { objects.allSatisfy { $0.freed == 1 } })
    }

    @Test("A free function may retire and poll itself")
    func reentrantFree() {
        let second = FreeCount()
        RetireAgain.second = second
        let first = FreeCount()
        syr_reclaim_retire(first.pointer, RetireAgain.free)
        #expect(eventually { first.freed == 1 && second.freed == 1 })
        RetireAgain.second = nil
    }

    @Test("Records of exited threads are reused: 200 threads one after another need one record, not 200")
    func recordsReused() {
        let before = syr_reclaim_reader_records()
        for _ in 0..<200 {
            ReaderThread().finish()
        }
        // Other tests' threads come and go meanwhile: allow for them.
        #expect(syr_reclaim_reader_records() < before + 50)
    }
}

/// A free function that retires a second object from inside the reclaimer.
private enum RetireAgain {
    nonisolated(unsafe) static var second: FreeCount?

    static let free: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
        Unmanaged<FreeCount>.fromOpaque(object!).takeUnretainedValue().count.add(1, ordering: .releasing)
        if let second = RetireAgain.second {
            syr_reclaim_retire(second.pointer, countFree)
            syr_reclaim_poll()
        }
    }
}
