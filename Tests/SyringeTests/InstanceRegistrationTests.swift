import Testing
import Syringe

@Suite("Registering an instance that exists")
struct InstanceRegistrationTests {
    @Test("every resolve, sync or async, by type, by name or behind a protocol, returns the instance given")
    func resolvesTheInstance() async throws {
        let c = Container()
        let counter = Counter()
        let tracked = Tracked(counter)
        c.register(type: Tracked.self, instance: tracked)
        c.register(type: Animal.self, name: "Cat", instance: Cat())
        c.register(type: Service.self, instance: ServiceImp())
        #expect(c.resolve(type: Tracked.self) === tracked)
        #expect(try c.tryResolve(type: Tracked.self) === tracked)
        #expect(try await c.resolveAsync(type: Tracked.self) === tracked)
        #expect(c.resolve(type: Animal.self, name: "Cat").sound == "miaow")
        #expect(!c.isRegistered(type: Animal.self))
        #expect(c.resolve(type: Service.self) is ServiceImp)
        #expect(counter.created == 1)
    }

    @Test("a value type is returned as given, and a later registration replaces it")
    func valueAndReplacement() {
        struct RequestID: Equatable { let id: String }
        let c = Container()
        c.register(type: RequestID.self, instance: RequestID(id: "b7c1"))
        #expect(c.resolve(type: RequestID.self) == RequestID(id: "b7c1"))
        c.register(type: RequestID.self, instance: RequestID(id: "c8d2"))
        #expect(c.resolve(type: RequestID.self) == RequestID(id: "c8d2"))
    }

    @Test("factories depend on it like on any registration; a trailing closure still means a factory")
    func dependedOn() {
        let c = Container()
        let counter = Counter()
        c.register(type: Counter.self, instance: counter)
        c.register { r in Tracked(try r.resolve()) }
        #expect(counter.created == 0)
        let tracked = c.resolve(type: Tracked.self)
        #expect(tracked.counter === counter)
        #expect(counter.created == 1)
    }

    @Test("each request's scope resolves its own instance; the scoped service built from it sees that one")
    func perRequestValue() async throws {
        final class Unit: Sendable {
            let request: Tracked
            init(request: Tracked) { self.request = request }
        }
        let app = Container()
        app.register(type: Unit.self, in: .scoped) { r in Unit(request: try r.resolve()) }
        let counter = Counter()
        let first = app.makeScope()
        let second = app.makeScope()
        let one = Tracked(counter)
        let two = Tracked(counter)
        first.register(type: Tracked.self, instance: one)
        second.register(type: Tracked.self, instance: two)
        #expect(first.resolve(type: Unit.self).request === one)
        #expect(second.resolve(type: Unit.self).request === two)
        #expect(!app.isRegistered(type: Tracked.self))
        try await first.close()
        try await second.close()
    }

    @Test("releaseSharedInstances keeps it (nothing could build it again) and rebuilds what a factory made")
    func releaseKeepsIt() {
        let c = Container()
        let counter = Counter()
        let given = Tracked(counter)
        c.register(type: Tracked.self, instance: given)
        c.register(type: Tracked.self, name: "built") { _ in Tracked(counter) }
        let built = c.resolve(type: Tracked.self, name: "built")
        c.releaseSharedInstances()
        #expect(c.resolve(type: Tracked.self) === given)
        #expect(c.resolve(type: Tracked.self, name: "built") !== built)
    }

    @Test("onResolved never runs for it: the container built nothing")
    func noCallbacks() {
        let c = Container()
        let calls = Locked(0)
        c.register(type: Cat.self, instance: Cat()).onResolved { _, _ in calls.withLock { $0 += 1 } }
        _ = c.resolve(type: Cat.self)
        _ = c.resolve(type: Cat.self)
        #expect(calls.withLock { $0 } == 0)
    }

    @Test("close() disposes it, as a Disposable and with onDispose; then resolves fail as closed, from a child too")
    func closeDisposes() async throws {
        let log = DisposalLog()
        let app = Container()
        app.register(type: SyncResource.self, instance: SyncResource("given", log: log))
        app.register(type: Cat.self, instance: Cat()).onDispose { _ in log.record("cat") }
        let child = Container(parent: app)
        try await app.close()
        #expect(log.all == ["cat", "given"])
        expectResolutionError(.closed) { try app.tryResolve(type: SyncResource.self) }
        // The child is not closed: its resolve reaches the registration,
        // whose instance is gone.
        let error = try #require(expectResolutionError(.closed) { try child.tryResolve(type: Cat.self) })
        #expect(error.path == ["Cat"])
        await expectAsyncResolutionError(.closed) { try await child.resolveAsync(type: Cat.self) }
    }

    @Test("the instance is freed with its container, and when a later registration replaces it")
    func freed() {
        let counter = Counter()
        do {
            let c = Container()
            c.register(type: Tracked.self, instance: Tracked(counter))
            #expect(counter.alive == 1)
        }
        #expect(counter.alive == 0)
        let c = Container()
        c.register(type: Tracked.self, instance: Tracked(counter))
        c.register(type: Tracked.self, instance: Tracked(counter))
        #expect(afterReclamation { counter.alive == 1 })
        #expect(c.resolve(type: Tracked.self).serial == 3)
    }
}
