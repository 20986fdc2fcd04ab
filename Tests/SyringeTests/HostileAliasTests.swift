import Testing
import Syringe

extension HostileInputTests {
    @Suite("Aliases of their own type and through stale handles")
    struct Aliases {
        @Test("a registration that implements its own type")
        func implementsItself() throws {
            let counter = Counter()
            let c = Container()
            c.register(type: Tracked.self) { _ in Tracked(counter) }.implements(Tracked.self)
            let first = try c.tryResolve(type: Tracked.self)
            #expect(try c.tryResolve(type: Tracked.self) === first)
            #expect(counter.created == 1)
            c.remove(type: Tracked.self)
            #expect(!c.isRegistered(type: Tracked.self))
        }

        @Test("a registration that implements its own type is still released and disposed")
        func implementsItselfKeepsItsLifetime() async throws {
            let counter = Counter()
            let disposed = Locked(0)
            let c = Container()
            c.register(type: Tracked.self) { _ in Tracked(counter) }
                .onDispose { _ in disposed.withLock { $0 += 1 } }
                .implements(Tracked.self)
            let first = try c.tryResolve(type: Tracked.self)
            c.releaseSharedInstances()
            #expect(try c.tryResolve(type: Tracked.self) !== first)
            let closing = Container()
            closing.register(type: Tracked.self) { _ in Tracked(counter) }
                .onDispose { _ in disposed.withLock { $0 += 10 } }
                .implements(Tracked.self)
            _ = try closing.tryResolve(type: Tracked.self)
            try await closing.close()
            #expect(disposed.withLock { $0 } >= 10)
        }

        @Test("an alias added through a handle whose registration was already replaced is not installed")
        func aliasThroughStaleHandle() throws {
            let first = Counter()
            let second = Counter()
            let c = Container()
            let stale = c.register(type: Tracked.self, name: "x", in: .new) { _ in Tracked(first) }
            c.register(type: Tracked.self, name: "x", in: .new) { _ in Tracked(second) }  // replaces it
            // What a second thread configuring the same key can interleave with
            // `register(...).implements(...)`.
            stale.implements(AnyObject.self, name: "alias")
            // Documented: called on a registration that was already replaced, `implements` does nothing.
            #expect(!c.isRegistered(type: AnyObject.self, name: "alias"), "an alias was added through a stale handle")
            #expect(c.resolveIfRegistered(type: AnyObject.self, name: "alias") == nil)
            #expect(c.resolve(type: Tracked.self, name: "x").counter === second, "the stale handle changed the live registration")
            c.remove(type: Tracked.self, name: "x")
            #expect(!c.isRegistered(type: Tracked.self, name: "x"))
            #expect(!c.isRegistered(type: AnyObject.self, name: "alias"),
                    "the alias outlives the removal of its registration")
        }
    }
}
