import Synchronization
import Testing
@testable import Syringe

/// A freed container leaves its table and registration list on its thread
/// for the next container made there (`SpareTables`): nothing registered in
/// the one may show in the other, and what a thread keeps is bounded.
///
/// Each test is synchronous, so it runs on one thread from start to end,
/// the thread whose spares it uses.
@Suite("Tables reused by the next container")
struct SpareTablesTests {
    private static let longName = String(repeating: "a name too long to keep inline ", count: 4)

    /// Containers holding whatever this thread kept from earlier tests, so
    /// that the next container freed here is the one the next made takes.
    private static func takeEverySpare() -> [Container] {
        (0..<SpareTables.capacity).map { _ in Container() }
    }

    @Test("the next scope takes a freed scope's table and list, with none of its registrations")
    func nextScopeStartsEmpty() throws {
        let app = Container()
        app.register(type: Service.self) { _ in ServiceImp() }
        _ = try app.tryResolve(type: Service.self)  // this thread has its resolution context
        let holders = Self.takeEverySpare()
        defer { withExtendedLifetime(holders) {} }

        var first: Container? = app.makeScope()
        first!.register(type: Int.self, dependency: 1)
        first!.register(type: String.self, name: Self.longName, dependency: "named")
        first!.register(type: Double.self, name: "short", dependency: 2.5)
        #expect(try first!.tryResolve(type: String.self, name: Self.longName) == "named")
        let table = first!.table.raw
        first = nil

        let next = app.makeScope()
        #expect(next.table.raw == table, "the next scope made a table of its own")
        #expect(next.registry.ordered.isEmpty)
        #expect(next.registry.ordered.capacity >= 3, "the list's storage was not kept")
        expectResolutionError(.notRegistered) { try next.tryResolve(type: Int.self) }
        expectResolutionError(.notRegistered) { try next.tryResolve(type: String.self, name: Self.longName) }
        expectResolutionError(.notRegistered) { try next.tryResolve(type: Double.self, name: "short") }
        _ = try next.tryResolve(type: Service.self)  // its parent's, as before

        // Its lock and table work as a new one's: registering, replacing,
        // removing, and growing past the size it started at.
        next.register(type: Int.self, dependency: 7)
        next.register(type: Int.self, dependency: 8)
        #expect(try next.tryResolve(type: Int.self) == 8)
        next.remove(type: Int.self)
        expectResolutionError(.notRegistered) { try next.tryResolve(type: Int.self) }
        for index in 0..<20 {
            next.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        for index in 0..<20 {
            #expect(try next.tryResolve(type: Int.self, name: "n\(index)") == index)
        }
    }

    @Test("a root container takes a freed one's table too; one that grew leaves none")
    func rootContainersAndGrownTables() throws {
        let warmUp = Container()
        warmUp.register(type: Int.self, dependency: 0)
        _ = try warmUp.tryResolve(type: Int.self)
        let holders = Self.takeEverySpare()
        defer { withExtendedLifetime(holders) {} }

        var grown: Container? = Container()
        for index in 0..<50 {
            grown!.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        grown = nil
        var small: Container? = Container()
        small!.register(type: Int.self, dependency: 1)
        let table = small!.table.raw
        small = nil

        let next = Container()
        #expect(next.table.raw == table, "the container took a spare other than the small one's")
        expectResolutionError(.notRegistered) { try next.tryResolve(type: Int.self) }
        let after = Container()
        for index in 0..<50 {
            expectResolutionError(.notRegistered) { try after.tryResolve(type: Int.self, name: "n\(index)") }
        }
    }

    @Test("containers freed at once past what a thread keeps are freed, and none keeps another's instances alive")
    func boundedAndNothingKeptAlive() throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        var scopes: [Container] = []
        for _ in 0..<(SpareTables.capacity * 3) {
            let scope = app.makeScope()
            scope.register(type: Tracked.self, name: "own", dependency: Tracked(counter))
            _ = try scope.tryResolve(type: Tracked.self)
            _ = try scope.tryResolve(type: Tracked.self, name: "own")
            scopes.append(scope)
        }
        #expect(counter.alive == SpareTables.capacity * 3 * 2)
        scopes.removeAll()
        #expect(afterReclamation { counter.alive == 0 }, "a kept table or list held \(counter.alive) instances")

        for _ in 0..<(SpareTables.capacity * 3) {
            let scope = app.makeScope()
            expectResolutionError(.notRegistered) { try scope.tryResolve(type: Tracked.self, name: "own") }
            #expect(try scope.tryResolve(type: Tracked.self).serial > SpareTables.capacity * 3 * 2)
            scopes.append(scope)
        }
    }

    @Test("a freed scope's disposal list goes to the next scope's close, empty; a grown one does not")
    func disposalListReused() throws {
        let counter = Counter()
        let disposed = Locked(0)
        let app = Container()
        for index in 0..<20 {
            app.register(type: Tracked.self, name: "n\(index)", in: .scoped) { _ in Tracked(counter) }
                .onDispose { _ in disposed.withLock { $0 += 1 } }
        }
        _ = try app.makeScope().tryResolve(type: Tracked.self, name: "n0")  // this thread has its resolution context
        while SpareTables.takeDisposalList() != nil {}  // what earlier tests left on this thread

        func closedEntriesStorage(disposing count: Int) throws -> (scope: Container, storage: UnsafeRawPointer?) {
            let scope = app.makeScope()
            for index in 0..<count {
                _ = try scope.tryResolve(type: Tracked.self, name: "n\(index)")
            }
            #expect(scope.closeSynchronously().isEmpty)
            let storage = scope.closedEntries.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            return (scope, storage)
        }

        let firstStorage = try closedEntriesStorage(disposing: 2).storage   // the scope is freed here
        #expect(counter.alive == 0, "the kept list held \(counter.alive) instances")
        var kept = try #require(SpareTables.takeDisposalList(), "the freed scope's list was not kept")
        #expect(kept.isEmpty && kept.capacity >= 2)
        #expect(kept.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == firstStorage)
        SpareTables.keep(disposalList: &kept)
        // While the thread keeps it, no allocation can have its address:
        // the same address is the same list.
        let (second, secondStorage) = try closedEntriesStorage(disposing: 2)
        #expect(firstStorage != nil && secondStorage == firstStorage, "the second scope's close did not take the first's list")
        #expect(second.closedEntries.count == 2)
        #expect(disposed.withLock { $0 } == 4)

        // A list that outgrew what is kept goes with its scope.
        _ = try closedEntriesStorage(disposing: 20)   // the scope is freed here
        #expect(SpareTables.takeDisposalList() == nil)
        #expect(disposed.withLock { $0 } == 24)
    }

    @Test("a thread's spares go with the thread")
    func freedAtThreadExit() throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        let rounds = SpareTables.capacity * 2
        let resolved = Atomic(0)
        let thread = Thread {
            for _ in 0..<rounds {
                let scope = app.makeScope()
                scope.register(type: Int.self, name: Self.longName, dependency: 1)
                if (try? scope.tryResolve(type: Tracked.self)) != nil {
                    resolved.add(1, ordering: .relaxed)
                }
            }
        }
        thread.start()
        // Joined: the thread has exited, and its key destructors, which
        // free what it kept, have run. The sanitizer builds in CI report
        // what they did not free; here, what the spares held is gone.
        thread.join()
        #expect(resolved.load(ordering: .relaxed) == rounds)
        #expect(counter.created == rounds)
        #expect(counter.alive == 0)
        let scope = app.makeScope()
        #expect(try scope.tryResolve(type: Tracked.self).serial == rounds + 1)
    }
}
