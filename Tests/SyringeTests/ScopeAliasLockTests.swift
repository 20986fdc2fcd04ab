import Dispatch
import Synchronization
import Testing
@testable import Syringe

/// Resolves take no lock once what they need exists. An alias of a
/// `.scoped` registration (`implements`) forwards to the registration
/// itself, not to the scope's copy of it, so it used to look the copy up
/// under the scope's writer lock on every resolve.
@Suite("An alias of a .scoped registration, resolved in a scope")
struct ScopeAliasLockTests {
    private protocol Reader: AnyObject {}
    private final class Store: Reader {}

    /// Holds `scope`'s writer lock on a thread of its own until `release()`
    /// or for at most `limit`. The resolve under test runs on the caller's
    /// thread: taking the lock, it waits until the limit has passed and the
    /// holder has let go, which `wasLetGo` then tells.
    private final class LockHolder: Sendable {
        private final class State: Sendable {
            let locked = DispatchSemaphore(value: 0)
            let releasing = DispatchSemaphore(value: 0)
            let letGo = Atomic(false)
        }
        private let state: State
        /// The tests' joinable thread (ConcurrencyTests.swift), joined by
        /// `release()`.
        private let thread: Thread

        init(_ scope: Container, limit: Double = 5) {
            let state = State()
            self.state = state
            thread = Thread {
                scope.writerLock.withLock {
                    state.locked.signal()
                    _ = state.releasing.wait(timeout: .now() + limit)
                    state.letGo.store(true, ordering: .sequentiallyConsistent)
                }
            }
            thread.start()
            state.locked.wait()
        }

        var wasLetGo: Bool { state.letGo.load(ordering: .sequentiallyConsistent) }

        func release() {
            state.releasing.signal()
            thread.join()
        }
    }

    @Test("once the scope has the instance, it resolves while another thread holds the scope's writer lock")
    func lockFreeOnceMade() throws {
        let app = Container()
        app.register(type: Store.self, in: .scoped) { _ in Store() }.implements(Reader.self)
        let scope = app.makeScope()
        let made = try scope.tryResolve(type: Reader.self)
        let holder = LockHolder(scope)
        let again = try scope.tryResolve(type: Reader.self)
        #expect(!holder.wasLetGo, "the alias's resolve waited for the scope's writer lock")
        holder.release()
        #expect(again === made)
        #expect(try scope.tryResolve(type: Store.self) === made)
    }

    @Test("the same for an async registration resolved asynchronously")
    func asyncLockFreeOnceMade() async throws {
        let app = Container()
        app.register(type: Store.self, in: .scoped) { (_: Resolver) async in Store() }.implements(Reader.self)
        let scope = app.makeScope()
        let made = try await scope.resolveAsync(type: Reader.self)
        let holder = LockHolder(scope)
        let again = try await scope.resolveAsync(type: Reader.self)
        #expect(!holder.wasLetGo, "the alias's resolve waited for the scope's writer lock")
        holder.release()
        #expect(again === made)
        #expect(try await scope.resolveAsync(type: Store.self) === made)
    }

    @Test("the alias and the type are one instance per scope, whichever a scope resolves first")
    func oneInstancePerScope() throws {
        let app = Container()
        app.register(type: Store.self, in: .scoped) { _ in Store() }.implements(Reader.self)
        let first = app.makeScope(), second = app.makeScope()
        let viaAlias = try first.tryResolve(type: Reader.self)
        #expect(try first.tryResolve(type: Store.self) === viaAlias)
        #expect(try first.tryResolve(type: Reader.self) === viaAlias)
        let direct = try second.tryResolve(type: Store.self)
        #expect(try second.tryResolve(type: Reader.self) === direct)
        #expect(direct !== viaAlias)
    }
}
