import Dispatch
import Testing
@_spi(SyringeSwinject) @testable import Syringe

/// Scopes reuse the copies of `.scoped` registrations that freed scopes gave
/// back (`ScopeLocalPool`): nothing of the scope that used a copy before may
/// show in the next.
@Suite("Scope-local copies reused")
struct ScopeLocalPoolTests {
    /// The number of copies waiting in `registration`'s pool, taken out and
    /// given back.
    private static func pooled<T>(_ registration: Registration<T>) -> Int {
        let definition = registration.definition
        var taken: [AnyDefinition] = []
        while let copy = definition.extras!.pool.take() {
            taken.append(copy)
        }
        for copy in taken {
            let retained = Unmanaged.passRetained(copy)
            if !definition.extras!.pool.give(retained) {
                retained.release()
            }
        }
        return taken.count
    }

    @Test("a freed scope's copy goes back to its registration, and the next scope gets a new instance through it")
    func reusedCopyHasNoInstance() throws {
        let counter = Counter()
        let app = Container()
        let work = app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        do {
            let scope = app.makeScope()
            #expect(try scope.tryResolve(type: Tracked.self).serial == 1)
        }
        #expect(Self.pooled(work) == 1, "the freed scope gave its copy back")
        #expect(afterReclamation { counter.alive == 0 }, "the first scope's instance outlived it (never closed): \(counter.alive)")
        let next = app.makeScope()
        let instance = try next.tryResolve(type: Tracked.self)
        #expect(instance.serial == 2)
        #expect(try next.tryResolve(type: Tracked.self) === instance)
        #expect(Self.pooled(work) == 0, "the next scope took the copy")
    }

    @Test("hooks added after a copy was given back run for the instance made through it")
    func reusedCopyTakesNewHooks() async throws {
        let app = Container()
        let work = app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
        do {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: Tracked.self)
            try await scope.close()
        }
        #expect(Self.pooled(work) == 1)
        let events = Locked<[String]>([])
        work.onResolved { _, _ in events.withLock { $0.append("resolved") } }
            .onDispose { _ in events.withLock { $0.append("disposed") } }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Tracked.self)
        try await scope.close()
        #expect(events.withLock { $0 } == ["resolved", "disposed"])
    }

    @Test("a copy whose instance close() disposed goes back too")
    func disposedCopyGoesBack() async throws {
        let app = Container()
        let disposed = Locked(0)
        let work = app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
            .onDispose { _ in disposed.withLock { $0 += 1 } }
        do {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: Tracked.self)
            try await scope.close()
        }
        #expect(disposed.withLock { $0 } == 1)
        #expect(Self.pooled(work) == 1, "what the closed scope kept held the copy")
    }

    @Test("a registration's pool keeps as many copies as scopes in flight gave back, up to its capacity; the others are freed")
    func poolIsBounded() throws {
        let app = Container()
        let work = app.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
        do {
            // More than the four lock-free slots: the rest go to the overflow.
            let scopes = (0..<10).map { _ in app.makeScope() }
            for scope in scopes {
                _ = try scope.tryResolve(type: Tracked.self)
            }
        }
        #expect(Self.pooled(work) == 10)
        do {
            let scopes = (0..<(ScopeLocalPool.capacity + 6)).map { _ in app.makeScope() }
            for scope in scopes {
                _ = try scope.tryResolve(type: Tracked.self)
            }
        }
        #expect(Self.pooled(work) == ScopeLocalPool.capacity)
    }

    @Test("copies kept in the overflow go with their registration too")
    func overflowCopiesGoWithRegistration() throws {
        let counter = Counter()
        do {
            let app = Container()
            // The factory holds a `Tracked`; every copy holds the factory.
            let held = Tracked(counter)
            app.register(type: Tracked.self, in: .scoped) { _ in held }
            let scopes = (0..<12).map { _ in app.makeScope() }
            for scope in scopes {
                _ = try scope.tryResolve(type: Tracked.self)
            }
        }
        #expect(afterReclamation { counter.alive == 0 }, "the overflow's copies kept the factory alive: \(counter.alive)")
    }

    @Test("the copies kept for later scopes go with their registration")
    func pooledCopiesGoWithRegistration() throws {
        let counter = Counter()
        do {
            let app = Container()
            // The factory holds a `Tracked`; every copy holds the factory.
            let held = Tracked(counter)
            app.register(type: Tracked.self, in: .scoped) { _ in held }
            for _ in 0..<3 {
                let scope = app.makeScope()
                _ = try scope.tryResolve(type: Tracked.self)
            }
        }
        #expect(afterReclamation { counter.alive == 0 }, "the pooled copies kept the factory alive: \(counter.alive)")
    }

    @Test("a copy freed after its registration was removed is not kept")
    func copyOutlivingItsRegistration() throws {
        let counter = Counter()
        let app = Container()
        var scope: Container? = app.makeScope()
        do {
            // The factory holds a `Tracked`; the scope's copy holds the factory.
            let held = Tracked(counter)
            app.register(type: Tracked.self, in: .scoped) { _ in held }
            _ = try scope!.tryResolve(type: Tracked.self)
        }
        app.remove(type: Tracked.self)
        scope = nil
        #expect(afterReclamation { counter.alive == 0 }, "the copy outlived its registration and its scope: \(counter.alive)")
    }

    @Test("threads making, using and freeing scopes at once share the copies; every scope gets its own instance")
    func concurrentScopes() {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                let scope = app.makeScope()
                let first = try? scope.tryResolve(type: Tracked.self)
                let second = try? scope.tryResolve(type: Tracked.self)
                if first == nil || first !== second {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(counter.created == 4_000)
        #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) instances outlived their scopes")
    }
}
