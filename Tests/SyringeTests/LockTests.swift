import Testing
@_spi(SyringeSwinject) @testable import Syringe

/// `Lock` and `WriterLock`, Syringe's wrappers of the C target's lock (whose
/// own tests, contention included, are CSyringeTableTests' "Lock"): a
/// result and a typed error through `withLock`, and a writer lock kept in a
/// table's owner bytes reused by the next container.
@Suite("Lock and writer lock")
struct LockTests {
    @Test("withLock returns the body's result and rethrows its typed error, releasing the lock either way")
    func resultAndError() throws {
        struct Refused: Error, Equatable {}
        let lock = Lock()
        #expect(lock.withLock { 42 } == 42)
        #expect(throws: Refused()) {
            try lock.withLock { () throws(Refused) -> Int in throw Refused() }
        }
        // Released after the throw: taking it again does not deadlock.
        #expect(lock.withLock { "again" } == "again")
        lock.lock()
        lock.unlock()
        #expect(lock.withLock { true })
    }

    @Test("A container's writer lock, kept in its table's owner bytes, works in the container that reuses the table")
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
