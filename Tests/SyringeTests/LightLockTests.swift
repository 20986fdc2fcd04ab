#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
@testable import Syringe

/// `LightLock`, the `Mutex` behind the writer lock and the async engine's
/// bookkeeping: mutual exclusion under contention, a result and a typed
/// error through `withLock`, and a lock kept in a table's owner bytes
/// (`WriterLock`) reused by the next container. Under ThreadSanitizer (CI)
/// the contended test also checks that what one holder wrote is seen as
/// ordered before what the next reads: the contended lock is handed over
/// in the kernel, which only the lock's handoff atomic makes visible to it.
@Suite("LightLock")
struct LightLockTests {
    /// A counter guarded by a lock, not atomic itself.
    private final class Guarded: @unchecked Sendable {
        let lock = LightLock()
        var count = 0
        var history: [Int] = []
    }

    @Test("four threads incrementing a plain counter under the lock lose no increment")
    func mutualExclusion() {
        let guarded = Guarded()
        let perThread = 50_000
        // All four start together, so that they contend from the first
        // increment rather than run one after another.
        let ready = Atomic<Int>(0)
        let threads = (0..<4).map { _ in
            Thread {
                ready.add(1, ordering: .relaxed)
                while ready.load(ordering: .relaxed) < 4 { sched_yield() }
                for _ in 0..<perThread {
                    guarded.lock.withLock {
                        guarded.count += 1
                        if guarded.count % 1_000 == 0 {
                            guarded.history.append(guarded.count)
                        }
                    }
                }
            }
        }
        threads.forEach { $0.start() }
        threads.forEach { $0.join() }
        #expect(guarded.lock.withLock { guarded.count } == 4 * perThread)
        #expect(guarded.lock.withLock { guarded.history } == Array(stride(from: 1_000, through: 4 * perThread, by: 1_000)))
    }

    @Test("withLock returns the body's result and rethrows its typed error, releasing the lock either way")
    func resultAndError() throws {
        struct Refused: Error, Equatable {}
        let guarded = Guarded()
        #expect(guarded.lock.withLock { 42 } == 42)
        #expect(throws: Refused()) {
            try guarded.lock.withLock { () throws(Refused) -> Int in throw Refused() }
        }
        // Released after the throw: taking it again does not deadlock.
        #expect(guarded.lock.withLock { "again" } == "again")
    }

    @Test("a container's writer lock, kept in its table's owner bytes, works in the container that reuses the table")
    func writerLockReusedWithItsTable() throws {
        // A resolve makes this thread's context, which keeps freed tables.
        let warm = Container()
        warm.register(type: Int.self, dependency: 1)
        _ = warm.resolve(type: Int.self)
        for round in 0..<3 {
            let container = Container()
            // Registering takes the writer lock; a table a freed container
            // left brings its lock, unlocked.
            container.register(type: Int.self, dependency: round)
            container.register(type: String.self, dependency: "\(round)")
            #expect(try container.tryResolve(type: Int.self) == round)
            #expect(container.writerLock.withLock { container.registry.ordered.count } == 2)
        }
    }
}
