import Dispatch
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

    @Test("once the scope has the instance, it resolves while another thread holds the scope's writer lock")
    func lockFreeOnceMade() throws {
        let app = Container()
        app.register(type: Store.self, in: .scoped) { _ in Store() }.implements(Reader.self)
        let scope = app.makeScope()
        let made = try scope.tryResolve(type: Reader.self)
        let resolved = DispatchSemaphore(value: 0)
        let found: Bool = scope.writerLock.withLock {
            DispatchQueue.global().async {
                _ = try? scope.tryResolve(type: Reader.self)
                resolved.signal()
            }
            return resolved.wait(timeout: .now() + 5) == .success
        }
        #expect(found, "the alias's resolve waited for the scope's writer lock")
        if !found {
            resolved.wait()   // it finishes once the lock is let go
        }
        #expect(try scope.tryResolve(type: Reader.self) === made)
        #expect(try scope.tryResolve(type: Store.self) === made)
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
