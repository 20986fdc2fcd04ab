import Foundation
import Synchronization
import Testing
import Syringe

/// Records what was disposed, in order.
final class DisposalLog: Sendable {
    // `Locked`, not `Mutex`: ThreadSanitizer does not see Linux's futex-based Mutex.
    private let entries = Locked<[String]>([])
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A resource that disposes itself through `Disposable`.
final class SyncResource: Disposable, Sendable {
    let log: DisposalLog
    let name: String
    init(_ name: String, log: DisposalLog) { self.name = name; self.log = log }
    func dispose() throws { log.record(name) }
}

/// A resource that disposes itself through `AsyncDisposable`.
final class AsyncResource: AsyncDisposable, Sendable {
    let log: DisposalLog
    let name: String
    init(_ name: String, log: DisposalLog) { self.name = name; self.log = log }
    func dispose() async throws {
        await Task.yield()
        log.record(name)
    }
}

/// Depends on another instance, to make creation order visible.
final class Dependent<Dependency: Sendable>: Sendable {
    let dependency: Dependency
    init(_ dependency: Dependency) { self.dependency = dependency }
}

struct DisposalFailed: Error, Equatable {
    let name: String
}

/// A value larger than an `Any` holds inline, disposing itself.
struct LargeDisposableValue: Disposable, Sendable {
    let log: DisposalLog
    let name: String
    let padding = (0, 0, 0, 0)
    func dispose() throws { log.record(name) }
}

/// A protocol with a primary associated type: `any Holding<Int>` is a
/// constrained existential.
protocol Holding<Held>: Sendable {
    associatedtype Held
}

struct DisposableHolder: Holding, Disposable {
    typealias Held = Int
    let log: DisposalLog
    func dispose() throws { log.record("behind any Holding<Int>") }
}

class BaseService: @unchecked Sendable {}

final class DisposableSubservice: BaseService, Disposable, @unchecked Sendable {
    let log: DisposalLog
    init(log: DisposalLog) { self.log = log }
    func dispose() throws { log.record("subclass behind its base") }
}

@Suite("Disposal")
struct DisposalTests {
    @Test("a scope disposes its .scoped instances newest first, sync and async disposers and both protocols alike")
    func scopeDisposesNewestFirst() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, in: .scoped) { _ in SyncResource("connection", log: log) }
        app.register(type: Dependent<SyncResource>.self, in: .scoped) { r in Dependent(try r.resolve()) }
            .onDispose { _ in log.record("repository") }
        app.register(type: AsyncResource.self, in: .scoped) { r in
            _ = try r.resolve(type: Dependent<SyncResource>.self)
            return AsyncResource("transaction", log: log)
        }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: AsyncResource.self)
        #expect(log.all.isEmpty, "disposed before the scope closed")
        try await scope.close()
        // Made connection, repository, transaction: disposed the other way round.
        #expect(log.all == ["transaction", "repository", "connection"])
        try await scope.close()
        #expect(log.all.count == 3, "a second close disposed again")
    }

    @Test("onDispose with a sync or an async closure; both run, in the order added")
    func syncAndAsyncDisposers() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ in log.record("sync") }
            .onDispose { _ async in
                await Task.yield()
                log.record("async")
            }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Tracked.self)
        try await scope.close()
        #expect(log.all == ["sync", "async"])
    }

    @Test("an instance's own dispose() runs first, then its registration's onDispose closures in the order added")
    func conformanceThenClosures() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, in: .scoped) { _ in SyncResource("own", log: log) }
            .onDispose { _ in log.record("first") }
            .onDispose { _ async in log.record("second") }
            .onDispose { _ in log.record("third") }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: SyncResource.self)
        try await scope.close()
        #expect(log.all == ["own", "first", "second", "third"])
    }

    @Test("a container's close disposes its .shared instances newest first, and only those it created")
    func containerDisposesShared() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self) { _ in SyncResource("database", log: log) }
        app.register(type: Dependent<SyncResource>.self) { r in Dependent(try r.resolve()) }
            .onDispose { _ in log.record("cache") }
        app.register(type: AsyncResource.self) { _ in AsyncResource("never resolved", log: log) }
        _ = try app.tryResolve(type: Dependent<SyncResource>.self)
        try await app.close()
        #expect(log.all == ["cache", "database"])
    }

    @Test("a scope disposes per-request values registered in it, with its .scoped instances, newest first")
    func scopeDisposesItsOwnShared() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: AsyncResource.self, in: .scoped) { r in
            _ = try r.resolve(type: SyncResource.self)
            return AsyncResource("scoped", log: log)
        }
        let scope = app.makeScope()
        scope.register(type: SyncResource.self) { _ in SyncResource("per-request", log: log) }
        _ = try scope.tryResolve(type: AsyncResource.self)
        try await scope.close()
        #expect(log.all == ["scoped", "per-request"])
    }

    @Test("every disposer runs even when earlier ones throw; the failures come together, newest first")
    func failuresAreCollected() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, in: .scoped) { _ in SyncResource("first", log: log) }
            .onDispose { _ in throw DisposalFailed(name: "first") }
        app.register(type: AsyncResource.self, in: .scoped) { _ in AsyncResource("second", log: log) }
            .onDispose { _ async throws in throw DisposalFailed(name: "second") }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: SyncResource.self)
        _ = try scope.tryResolve(type: AsyncResource.self)
        do {
            try await scope.close()
            Issue.record("close did not throw")
        } catch {
            #expect(error.failures.map(\.service) == ["AsyncResource", "SyncResource"])
            #expect(error.failures.map { $0.error as? DisposalFailed } == [DisposalFailed(name: "second"), DisposalFailed(name: "first")])
            #expect(error.description.contains("Syringe could not dispose everything: 2 disposers threw:"))
            #expect(error.description.contains("• AsyncResource: DisposalFailed(name: \"second\")"))
            #expect(error.bodyError == nil)
        }
        // The protocols' disposers ran as well as the throwing ones.
        #expect(log.all == ["second", "first"])
        #expect(scope.isClosed)
    }

    @Test("an instance's later disposers run after an earlier one of its own throws; its failures keep their order")
    func oneInstancesDisposersAllRun() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ in throw DisposalFailed(name: "a") }
            .onDispose { _ in log.record("after a") }
            .onDispose { _ async throws in throw DisposalFailed(name: "b") }
            .onDispose { _ in log.record("after b") }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Tracked.self)
        do {
            try await scope.close()
            Issue.record("close did not throw")
        } catch {
            #expect(error.failures.map { $0.error as? DisposalFailed } == [DisposalFailed(name: "a"), DisposalFailed(name: "b")])
            // One instance, two disposers that threw: counted as disposers.
            #expect(error.description.hasPrefix("Syringe could not dispose everything: 2 disposers threw:\n  • Tracked: "))
        }
        #expect(log.all == ["after a", "after b"])
    }

    @Test("validate() runs an instance's later disposers after an earlier one throws, and reports the failure")
    func validateRunsEveryDisposer() throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ in throw DisposalFailed(name: "validate") }
            .onDispose { _ in log.record("second") }
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        #expect(error.problems.isEmpty)
        #expect(error.disposalFailures.map { $0.error as? DisposalFailed } == [DisposalFailed(name: "validate")])
        #expect(log.all == ["second"])
    }

    @Test("validateAsync() reports what an async disposer threw")
    func validateAsyncReportsDisposalFailures() async throws {
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ async throws in throw DisposalFailed(name: "async") }
        do {
            _ = try await app.validateAsync()
            Issue.record("validateAsync did not throw")
        } catch {
            #expect(error.problems.isEmpty)
            #expect(error.disposalFailures.map { $0.error as? DisposalFailed } == [DisposalFailed(name: "async")])
        }
    }

    @Test("a .new instance with a disposer resolved from a plain child of a scope is disposed by the scope")
    func childOfAScopeHandsTransientsToTheScope() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            .onDispose { tracked in log.record("\(tracked.serial)") }
        let scope = app.makeScope()
        let child = Container(parent: scope)
        _ = try child.tryResolve(type: Tracked.self)
        #expect(log.all.isEmpty)
        try await scope.close()
        #expect(log.all == ["1"])
    }

    @Test(".new and .graph instances with disposers are disposed by the scope they were resolved in", arguments: [Scope.new, .graph])
    func transientsTrackedByTheScope(scope kind: Scope) async throws {
        let log = DisposalLog()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: kind) { _ in Tracked(counter) }
            .onDispose { tracked in log.record("tracked \(tracked.serial)") }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Tracked.self)
        _ = try scope.tryResolve(type: Tracked.self)
        #expect(counter.alive == 2, "the scope keeps them for disposal")
        try await scope.close()
        #expect(log.all == ["tracked 2", "tracked 1"])
        // Gone once disposed, though the scope is not: nothing but their
        // disposers held them.
        #expect(afterReclamation { counter.alive == 0 })
        withExtendedLifetime(scope) {}
    }

    @Test(".new instances with async disposers are disposed in order and freed once disposed, the scope still alive")
    func transientsWithAsyncDisposers() async throws {
        let log = DisposalLog()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(counter) }
            .onDispose { tracked async in
                await Task.yield()
                log.record("first \(tracked.serial)")
            }
            .onDispose { tracked async in log.record("second \(tracked.serial)") }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Tracked.self)
        _ = try await scope.resolveAsync(type: Tracked.self)
        try await scope.close()
        #expect(log.all == ["first 2", "second 2", "first 1", "second 1"])
        #expect(afterReclamation { counter.alive == 0 })
        withExtendedLifetime(scope) {}
    }

    @Test(".new with a disposer resolved where no scope is, and .weak with a disposer, are errors: nothing would dispose them")
    func disposersWithoutOwner() throws {
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }.onDispose { _ in }
        app.register(type: SyncResource.self, in: .weak) { _ in SyncResource("weak", log: DisposalLog()) }
            .onDispose { _ in }
        let error = try #require(expectResolutionError(.disposerWithoutOwner(scope: .new)) { try app.tryResolve(type: Tracked.self) })
        #expect(error.description.contains("no scope is on the path to run it"))
        let weak = try #require(expectResolutionError(.disposerWithoutOwner(scope: .weak)) {
            try app.makeScope().tryResolve(type: SyncResource.self)
        })
        #expect(weak.description.contains("a .weak instance has no owner to run it"))
    }

    @Test("a conforming instance is disposed whatever type it was registered as; a conforming .new one only with onDispose")
    func conformanceIsAskedOfTheInstance() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: AnyObject.self, in: .scoped) { _ in SyncResource("behind AnyObject", log: log) }
        app.register(type: AsyncResource.self, in: .new) { _ in AsyncResource("transient", log: log) }
        // No scope needed, nothing kept: a .new instance without onDispose is not tracked.
        _ = try app.tryResolve(type: AsyncResource.self)
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: AnyObject.self)
        _ = try scope.tryResolve(type: AsyncResource.self)
        try await scope.close()
        #expect(log.all == ["behind AnyObject"])
    }

    @Test("a large value, a constrained existential's value and a subclass behind its base class are disposed by their own conformance")
    func conformanceOfEachKindOfType() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: LargeDisposableValue.self, in: .scoped) { _ in LargeDisposableValue(log: log, name: "large value") }
        app.register(type: (any Holding<Int>).self, in: .scoped) { _ in DisposableHolder(log: log) }
        app.register(type: BaseService.self, in: .scoped) { _ in DisposableSubservice(log: log) }
        app.register(type: Int.self, in: .scoped) { _ in 7 }
        for _ in 0..<2 {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: LargeDisposableValue.self)
            _ = try scope.tryResolve(type: (any Holding<Int>).self)
            _ = try scope.tryResolve(type: BaseService.self)
            _ = try scope.tryResolve(type: Int.self)
            try await scope.close()
        }
        #expect(log.all == Array(repeating: ["subclass behind its base", "behind any Holding<Int>", "large value"], count: 2).flatMap { $0 })
    }

    @Test("an enum, an optional, a generic class, and a subclass, a large value and an error behind existentials are disposed by their own conformance")
    func conformanceOfEnumsOptionalsAndClassBoundExistentials() async throws {
        enum Connection: Disposable, Sendable {
            case open(DisposalLog)
            func dispose() throws {
                if case .open(let log) = self { log.record("enum") }
            }
        }
        struct DisposableError: Error, Disposable {
            let log: DisposalLog
            func dispose() throws { log.record("error") }
        }
        final class Generic<Value: Sendable>: Disposable, Sendable {
            let log: DisposalLog
            init(log: DisposalLog) { self.log = log }
            func dispose() throws { log.record("generic class") }
        }
        let log = DisposalLog()
        let app = Container()
        app.register(type: Connection.self, in: .scoped) { _ in .open(log) }
        app.register(type: SyncResource?.self, in: .scoped) { _ in SyncResource("optional", log: log) }
        app.register(type: (any AnyObject & Sendable).self, in: .scoped) { _ in AsyncResource("class-bound existential", log: log) }
        app.register(type: Generic<Int>.self, in: .scoped) { _ in Generic(log: log) }
        app.register(type: Int?.self, in: .scoped) { _ in nil }
        // Behind an existential, the value's own type decides: a subclass
        // stored as its base, a value too large for the existential's
        // buffer, an error.
        app.register(type: (any Sendable).self, name: "subclass", in: .scoped) { _ in DisposableSubservice(log: log) as BaseService }
        app.register(type: (any Sendable).self, name: "large", in: .scoped) { _ in LargeDisposableValue(log: log, name: "large behind any Sendable") }
        app.register(type: (any Error).self, in: .scoped) { _ in DisposableError(log: log) }
        for _ in 0..<2 {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: Connection.self)
            _ = try scope.tryResolve(type: SyncResource?.self)
            _ = try scope.tryResolve(type: (any AnyObject & Sendable).self)
            _ = try scope.tryResolve(type: Generic<Int>.self)
            _ = try scope.tryResolve(type: Int?.self)
            _ = try scope.tryResolve(type: (any Sendable).self, name: "subclass")
            _ = try scope.tryResolve(type: (any Sendable).self, name: "large")
            _ = try scope.tryResolve(type: (any Error).self)
            try await scope.close()
        }
        let once = ["error", "large behind any Sendable", "subclass behind its base",
                    "generic class", "class-bound existential", "optional", "enum"]
        #expect(log.all == once + once)
    }

    @Test("conformance is asked of each instance's own type, whichever others the same registration made before")
    func conformanceFollowsEachInstancesType() async throws {
        struct Plain: Sendable {}
        struct DisposableValue: Disposable, Sendable {
            let log: DisposalLog
            func dispose() throws { log.record("value") }
        }
        let log = DisposalLog()
        let made = Locked(0)
        let app = Container()
        // One registration, four concrete types in turn: the answer for one
        // (remembered per type) must never be taken for another's.
        app.register(type: (any Sendable).self, in: .scoped) { _ in
            let turn = made.withLock { count in
                defer { count += 1 }
                return count % 4
            }
            switch turn {
            case 0: return SyncResource("sync", log: log)
            case 1: return Plain()
            case 2: return AsyncResource("async", log: log)
            default: return DisposableValue(log: log)
            }
        }
        for _ in 0..<3 {
            for _ in 0..<4 {
                let scope = app.makeScope()
                _ = try scope.tryResolve(type: (any Sendable).self)
                try await scope.close()
            }
        }
        #expect(log.all == Array(repeating: ["sync", "async", "value"], count: 3).flatMap { $0 })
    }

    @Test("an optional instance is disposed when its value conforms, whatever an earlier nil said")
    func optionalInstancesAreAskedEachTime() async throws {
        let log = DisposalLog()
        let made = Locked(0)
        let app = Container()
        app.register(type: SyncResource?.self, in: .scoped) { _ in
            let turn = made.withLock { count in
                defer { count += 1 }
                return count
            }
            return turn % 2 == 0 ? nil : SyncResource("resource \(turn)", log: log)
        }
        for _ in 0..<4 {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: SyncResource?.self)
            try await scope.close()
        }
        #expect(log.all == ["resource 1", "resource 3"])
    }

    @Test("released, removed and replaced instances are not disposed: they may still be in use, and go with their last reference")
    func droppedInstancesAreNotDisposed() async throws {
        let log = DisposalLog()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self) { _ in Tracked(counter) }.onDispose { _ in log.record("released") }
        app.register(type: Tracked.self, name: "removed") { _ in Tracked(counter) }.onDispose { _ in log.record("removed") }
        _ = try app.tryResolve(type: Tracked.self)
        _ = try app.tryResolve(type: Tracked.self, name: "removed")
        app.releaseSharedInstances()
        app.remove(type: Tracked.self, name: "removed")
        #expect(afterReclamation { counter.alive == 0 })
        try await app.close()
        #expect(log.all.isEmpty)
    }

    @Test("withScope closes the scope when the body returns")
    func withScopeReturns() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, in: .scoped) { _ in SyncResource("request", log: log) }
        let name = try await app.withScope { scope in
            try scope.tryResolve(type: SyncResource.self).name
        }
        #expect(name == "request")
        #expect(log.all == ["request"])
    }

    @Test("withScope closes the scope when the body throws, and rethrows the body's error")
    func withScopeThrows() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, in: .scoped) { _ in SyncResource("request", log: log) }
        await #expect(throws: DisposalFailed(name: "body")) {
            try await app.withScope { scope in
                _ = try scope.tryResolve(type: SyncResource.self)
                throw DisposalFailed(name: "body")
            }
        }
        #expect(log.all == ["request"])
    }

    // The body's sleep ends only by cancellation: when the run is busy (an
    // exit test and the stress suite can hold both of a 2-core machine's
    // cooperative threads for a minute), a shorter one could run out before
    // `task.cancel()` runs, and the body would return normally.
    @Test("withScope in a cancelled task still disposes", .timeLimit(.minutes(10)))
    func withScopeCancelled() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: AsyncResource.self, in: .scoped) { _ in AsyncResource("request", log: log) }
        let resolved = AsyncStream<Void>.makeStream()
        let task = Task {
            try await app.withScope { scope in
                _ = try scope.tryResolve(type: AsyncResource.self)
                resolved.continuation.yield()
                try await Task.sleep(for: .seconds(86_400))
            }
        }
        for await _ in resolved.stream { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(log.all == ["request"])
    }

    /// Disposes by awaiting work that checks cancellation, as a database
    /// driver's query does.
    final class RollsBack: Sendable {
        let rolledBack = Atomic(false)

        func rollBack() async throws {
            try Task.checkCancellation()
            await Task.yield()
            try Task.checkCancellation()
            rolledBack.store(true, ordering: .relaxed)
        }
    }

    @Test("a scope closed in a cancelled task runs its async disposers outside the cancellation",
          .timeLimit(.minutes(10)), arguments: [false, true])
    func asyncDisposerOutsideTheCancellation(conforming: Bool) async throws {
        let app = Container()
        if conforming {
            app.register(type: CancellationCheckingResource.self, in: .scoped) { _ in CancellationCheckingResource() }
        } else {
            app.register(type: RollsBack.self, in: .scoped) { _ in RollsBack() }
                .onDispose { (transaction: RollsBack) async throws in try await transaction.rollBack() }
        }
        let started = AsyncStream<Void>.makeStream()
        let task = Task { () async throws -> Bool in
            let scope = app.makeScope()
            let disposed: @Sendable () -> Bool
            if conforming {
                let instance = try scope.tryResolve(type: CancellationCheckingResource.self)
                disposed = { instance.disposed.load(ordering: .relaxed) }
            } else {
                let instance = try scope.tryResolve(type: RollsBack.self)
                disposed = { instance.rolledBack.load(ordering: .relaxed) }
            }
            started.continuation.yield()
            // Ends only by cancellation (see `withScopeCancelled`).
            try? await Task.sleep(for: .seconds(86_400))
            #expect(Task.isCancelled)
            try await scope.close()
            return disposed()
        }
        for await _ in started.stream { break }
        task.cancel()
        #expect(try await task.value, "the disposer saw the closing task's cancellation")
    }

    @Test("when disposal fails, withScope throws the DisposalError, carrying the body's error if it threw too")
    func withScopeDisposalFails() async throws {
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ in throw DisposalFailed(name: "rollback") }
        do {
            try await app.withScope { scope in
                _ = try scope.tryResolve(type: Tracked.self)
                throw DisposalFailed(name: "body")
            }
            Issue.record("withScope did not throw")
        } catch let error as DisposalError {
            #expect(error.failures.map { $0.error as? DisposalFailed } == [DisposalFailed(name: "rollback")])
            #expect(error.bodyError as? DisposalFailed == DisposalFailed(name: "body"))
            #expect(error.description.contains("the scope's body had failed first"))
        }
    }
    // MARK: Instances made and then refused or taken back

    @Test("a .new or .graph instance with a disposer resolved where no scope is, though refused, is disposed once", arguments: [Scope.new, .graph])
    func refusedInstanceIsDisposed(scope kind: Scope) async throws {
        let log = DisposalLog()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: kind) { _ in Tracked(counter) }
            .onDispose { tracked in log.record("sync \(tracked.serial)") }
        app.register(type: Tracked.self, name: "async", in: kind) { (_: Resolver) async in Tracked(counter) }
            .onDispose { tracked async in log.record("async \(tracked.serial)") }
        expectResolutionError(.disposerWithoutOwner(scope: kind)) { try app.tryResolve(type: Tracked.self) }
        // The synchronous registration through the async engine, then the async one.
        await expectAsyncResolutionError(.disposerWithoutOwner(scope: kind)) { try await app.resolveAsync(type: Tracked.self) }
        await expectAsyncResolutionError(.disposerWithoutOwner(scope: kind)) {
            try await app.resolveAsync(type: Tracked.self, name: "async")
        }
        #expect(counter.created == 3)
        #expect(try await settledDisposals(in: log, count: 3).sorted() == ["async 3", "sync 1", "sync 2"])
        #expect(afterReclamation { counter.alive == 0 })
    }

    @Test("a refused instance is disposed only once the resolve has failed: the factory that asked for it may use it until then")
    func refusedInstanceOutlivesTheFactoryThatAskedForIt() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            .onDispose { tracked in log.record("disposed \(tracked.serial)") }
        app.register(type: Dependent<Tracked>.self, in: .new) { r in
            let tracked = try r.resolve(type: Tracked.self)
            log.record("used \(tracked.serial)")
            return Dependent(tracked)
        }
        expectResolutionError(.disposerWithoutOwner(scope: .new)) { try app.tryResolve(type: Dependent<Tracked>.self) }
        #expect(try await settledDisposals(in: log, count: 2) == ["used 1", "disposed 1"])
    }

    @Test("a refused instance gets no onResolved callbacks, sync and async")
    func refusedInstanceIsNotConfigured() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            .onResolved { _, tracked in log.record("configured sync \(tracked.serial)") }
            .onDispose { tracked in log.record("disposed sync \(tracked.serial)") }
        app.register(type: Tracked.self, name: "async", in: .new) { (_: Resolver) async in Tracked(Counter()) }
            .onResolved { _, tracked in log.record("configured async \(tracked.serial)") }
            .onDispose { tracked in log.record("disposed async \(tracked.serial)") }
        // The async factory catches the failure and goes on: the resolve succeeds.
        app.register(type: RefusalCatcher.self, in: .new) { (r: Resolver) async in
            _ = try? await r.resolve(type: Tracked.self, name: "async")
            return RefusalCatcher()
        }
        expectResolutionError(.disposerWithoutOwner(scope: .new)) { try app.tryResolve(type: Tracked.self) }
        _ = try await app.resolveAsync(type: RefusalCatcher.self)
        #expect(try await settledDisposals(in: log, count: 2).sorted() == ["disposed async 1", "disposed sync 1"])
    }

    @Test("a .scoped instance a failed resolve takes back is disposed, once, and the one made anew by the scope's close (sync)")
    func retractedScopedInstanceIsDisposed() async throws {
        let log = DisposalLog()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
            .onResolved { _, _ in }
            .onDispose { tracked in log.record("\(tracked.serial)") }
        app.register(type: Dependent<Tracked>.self, in: .new) { r in
            let tracked = try r.resolve(type: Tracked.self)
            _ = try r.resolve(type: NeverRegistered.self)   // fails after opening the transaction
            return Dependent(tracked)
        }
        let scope = app.makeScope()
        expectResolutionError(.notRegistered) { try scope.tryResolve(type: Dependent<Tracked>.self) }
        #expect(try scope.tryResolve(type: Tracked.self).serial == 2)
        try await scope.close()
        #expect(counter.created == 2)
        #expect(try await settledDisposals(in: log, count: 2).sorted() == ["1", "2"])
    }

    @Test("an async .scoped instance whose own onResolved threw is disposed, once, and the one made anew by the scope's close")
    func retractedAsyncScopedInstanceIsDisposed() async throws {
        let log = DisposalLog()
        let counter = Counter()
        let failing = Atomic(true)
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { (_: Resolver) async in Tracked(counter) }
            .onResolved { _, _ in
                if failing.load(ordering: .relaxed) { throw Failure(code: 21) }
            }
            .onDispose { tracked async in log.record("\(tracked.serial)") }
        let scope = app.makeScope()
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 21))) { try await scope.resolveAsync(type: Tracked.self) }
        failing.store(false, ordering: .relaxed)
        #expect(try await scope.resolveAsync(type: Tracked.self).serial == 2)
        try await scope.close()
        #expect(counter.created == 2)
        #expect(try await settledDisposals(in: log, count: 2).sorted() == ["1", "2"])
    }

    @Test("a .shared instance a failed resolve takes back is disposed, once, by onDispose or its own conformance; the container's close disposes the next",
          arguments: [false, true])
    func retractedSharedInstanceIsDisposed(async: Bool) async throws {
        let log = DisposalLog()
        let failing = Atomic(true)
        let made = Atomic(0)
        let app = Container()
        let configure: @Sendable (Resolver, SyncResource) throws -> Void = { _, _ in
            if failing.load(ordering: .relaxed) { throw Failure(code: 21) }
        }
        if async {
            app.register(type: SyncResource.self) { (_: Resolver) async in
                SyncResource("conformance \(made.add(1, ordering: .relaxed).newValue)", log: log)
            }
            .onResolved(configure)
        } else {
            app.register(type: SyncResource.self) { _ in SyncResource("conformance \(made.add(1, ordering: .relaxed).newValue)", log: log) }
                .onResolved(configure)
                .onDispose { resource in log.record("onDispose \(resource.name.split(separator: " ").last!)") }
        }
        // Twice, the synchronous registration once through each engine.
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 21))) { try await app.resolveAsync(type: SyncResource.self) }
        if async {
            await expectAsyncResolutionError(.factoryFailed(Failure(code: 21))) { try await app.resolveAsync(type: SyncResource.self) }
        } else {
            expectResolutionError(.factoryFailed(Failure(code: 21))) { try app.tryResolve(type: SyncResource.self) }
        }
        failing.store(false, ordering: .relaxed)
        _ = try await app.resolveAsync(type: SyncResource.self)
        try await app.close()
        #expect(made.load(ordering: .relaxed) == 3)
        let expected = async
            ? ["conformance 1", "conformance 2", "conformance 3"]
            : ["conformance 1", "conformance 2", "conformance 3", "onDispose 1", "onDispose 2", "onDispose 3"]
        #expect(try await settledDisposals(in: log, count: expected.count).sorted() == expected)
    }

    @Test("an instance the scope's close took during the resolve that then fails is disposed by the close alone")
    func retractionAfterTheCloseDisposesNothing() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onResolved { _, _ in }
            .onDispose { tracked in log.record("\(tracked.serial)") }
        let scope = app.makeScope()
        // Unowned: the scope holds the container that holds this factory.
        app.register(type: RefusalCatcher.self, in: .new) { [unowned scope] (r: Resolver) async throws in
            _ = try await r.resolve(type: Tracked.self)
            try await scope.close()
            throw Failure(code: 22)
        }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 22))) { try await scope.resolveAsync(type: RefusalCatcher.self) }
        #expect(try await settledDisposals(in: log, count: 1) == ["1"])
    }

    @Test("a .shared factory resolving a .new instance with a disposer names the singleton as the cause, not a missing scope")
    func singletonCapturingATransientWithADisposer() async throws {
        let app = Container()
        app.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }.onDispose { _ in }
        app.register(type: Dependent<Tracked>.self) { r in Dependent(try r.resolve(type: Tracked.self)) }
        app.register(type: Dependent<Tracked>.self, name: "async") { (r: Resolver) async throws in
            Dependent(try await r.resolve(type: Tracked.self))
        }
        let scope = app.makeScope()
        let sync = try #require(expectResolutionError(.disposerWithoutOwner(scope: .new)) {
            try scope.tryResolve(type: Dependent<Tracked>.self)
        })
        let async = try #require(await expectAsyncResolutionError(.disposerWithoutOwner(scope: .new)) {
            try await scope.resolveAsync(type: Dependent<Tracked>.self, name: "async")
        })
        for error in [sync, async] {
            #expect(!error.description.contains("Resolve it from a scope"))
            #expect(error.description.contains("registered .shared, depends on it"))
            #expect(error.description.contains("Dependent<Tracked>"))
            #expect(error.localizedDescription == error.description)
        }
        // Without a singleton on the path, the advice stays.
        let plain = try #require(expectResolutionError(.disposerWithoutOwner(scope: .new)) { try app.tryResolve(type: Tracked.self) })
        #expect(plain.description.contains("Resolve it from a scope"))
    }
}

/// Never registered: resolving it fails a resolve after what came before it
/// was made.
struct NeverRegistered: Sendable {}

/// What an async factory returns after catching a failed resolve, or
/// before throwing one of its own.
struct RefusalCatcher: Sendable {}

/// What `log` holds once it has `count` entries, waiting for disposals that
/// run on a task of their own (bounded: at most about ten seconds), then a
/// little longer, so that a disposer run twice shows.
func settledDisposals(in log: DisposalLog, count: Int) async throws -> [String] {
    for _ in 0..<2_000 where log.all.count < count {
        try await Task.sleep(for: .milliseconds(5))
    }
    try await Task.sleep(for: .milliseconds(20))
    return log.all
}

/// An `AsyncDisposable` whose `dispose()` checks cancellation.
final class CancellationCheckingResource: AsyncDisposable, Sendable {
    let disposed = Atomic(false)

    func dispose() async throws {
        try Task.checkCancellation()
        await Task.yield()
        try Task.checkCancellation()
        disposed.store(true, ordering: .relaxed)
    }
}
