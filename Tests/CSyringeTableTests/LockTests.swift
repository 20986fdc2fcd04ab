import CSyringeTable
import Foundation
import Synchronization
import Testing

/// A lock and the plain counter it guards, at addresses that never move.
private final class GuardedCounter: @unchecked Sendable {
    // @unchecked: `count` and `history` are touched only under `lock`.
    let lock = UnsafeMutablePointer<syr_lock_t>.allocate(capacity: 1)
    var count = 0
    var history: [Int] = []

    init() {
        syr_lock_init(lock)
    }

    deinit {
        lock.deallocate()
    }

    func locked<R>(_ body: () -> R) -> R {
        syr_lock_acquire(lock)
        defer { syr_lock_release(lock) }
        return body()
    }
}

/// `syr_lock_t` (include/syringe_lock.h): taking, trying and releasing,
/// mutual exclusion under contention, and a waiter that has to sleep being
/// woken. Under ThreadSanitizer (CI) the contended tests also check that
/// what one holder wrote is ordered before what the next one reads, on the
/// path where the lock is released to a sleeping thread too.
@Suite("Lock")
struct LockTests {
    @Test("Zeroed memory is an unlocked lock; a held lock cannot be tried, a released one can")
    func tryAcquire() {
        var lock = syr_lock_t()
        #expect(syr_lock_try_acquire(&lock))
        #expect(!syr_lock_try_acquire(&lock))
        syr_lock_release(&lock)
        #expect(syr_lock_try_acquire(&lock))
        syr_lock_release(&lock)
        syr_lock_acquire(&lock)
        #expect(!syr_lock_try_acquire(&lock))
        syr_lock_release(&lock)
        syr_lock_init(&lock)
        #expect(syr_lock_try_acquire(&lock))
        syr_lock_release(&lock)
    }

    @Test("Four threads incrementing a plain counter under the lock lose no increment")
    func mutualExclusion() {
        let guarded = GuardedCounter()
        let perThread = 50_000
        // All four start together, so that they contend from the first
        // increment instead of running one after another.
        let ready = Atomic<Int>(0)
        let finished = DispatchGroup()
        for _ in 0..<4 {
            finished.enter()
            Thread {
                ready.add(1, ordering: .relaxed)
                while ready.load(ordering: .relaxed) < 4 { sched_yield() }
                for _ in 0..<perThread {
                    guarded.locked {
                        guarded.count += 1
                        if guarded.count % 1_000 == 0 {
                            guarded.history.append(guarded.count)
                        }
                    }
                }
                finished.leave()
            }.start()
        }
        #expect(finished.wait(timeout: .now() + 120) == .success)
        #expect(guarded.locked { guarded.count } == 4 * perThread)
        #expect(guarded.locked { guarded.history } == Array(stride(from: 1_000, through: 4 * perThread, by: 1_000)))
    }

    @Test("A thread that waits past its spinning sleeps, and the release wakes it", .timeLimit(.minutes(5)))
    func sleeperIsWoken() {
        let guarded = GuardedCounter()
        let waiting = Atomic<Bool>(false)
        syr_lock_acquire(guarded.lock)
        let waiter = DispatchSemaphore(value: 0)
        Thread {
            waiting.store(true, ordering: .relaxed)
            let seen = guarded.locked { guarded.count }
            guarded.locked { guarded.history.append(seen) }
            waiter.signal()
        }.start()
        while !waiting.load(ordering: .relaxed) { sched_yield() }
        // Held far longer than any spin: the waiter is asleep in the kernel
        // (on Linux) when the count changes and the lock is released.
        usleep(50_000)
        guarded.count = 7
        syr_lock_release(guarded.lock)
        // Generous: under ThreadSanitizer, beside the stress tests, the
        // waiting thread has taken 30 s to be scheduled.
        #expect(waiter.wait(timeout: .now() + 240) == .success)
        #expect(guarded.locked { guarded.history } == [7])
        // Left unlocked: a new holder takes it at once.
        #expect(syr_lock_try_acquire(guarded.lock))
        syr_lock_release(guarded.lock)
    }
}
