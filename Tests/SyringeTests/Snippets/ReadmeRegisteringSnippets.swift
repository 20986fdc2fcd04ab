import Synchronization
import Syringe
import Testing

/// README "Registering and resolving" and "Scopes". `Dog`, `Cat`, `Tiger` and
/// `Animal` are the shared fixtures of `Fixtures.swift`; the rest is nested here.
@Suite("README: Registering and resolving, Scopes")
struct ReadmeRegisteringSnippets {
    @Test("Registering and resolving")
    func registeringAndResolving() throws {
        let c = Container()
        c.register(type: Dog.self, dependency: Dog())                     // an instance, created lazily, shared
        c.register(type: Clock.self, instance: SystemClock())             // an instance that exists already, shared
        c.register(type: Animal.self, name: "Cat", dependency: Cat())     // several registrations of one type, by name
        c.register(type: Animal.self, name: "Tiger") { _ in Tiger() }

        let dog = c.resolve(type: Dog.self)
        let cat = try c.tryResolve(type: Animal.self, name: "Cat")
        let lion = c.resolveIfRegistered(type: Animal.self, name: "Lion")   // nil: nothing is registered
        c.isRegistered(type: Animal.self, name: "Cat")                      // true

        c.remove(type: Dog.self)
        c.remove(type: Animal.self, name: "Cat")
        c.removeAll()

        #expect(dog.sound == "wooof")
        #expect(!c.isRegistered(type: Clock.self), "removeAll removes the instance's registration too")
        #expect(cat is Cat)
        #expect(lion == nil)
        #expect(!c.isRegistered(type: Dog.self))
        #expect(!c.isRegistered(type: Animal.self, name: "Cat"))
        #expect(!c.isRegistered(type: Animal.self, name: "Tiger"), "removeAll removes the rest")

        // What the comments say of the lines above, observed one at a time.
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        #expect(c.isRegistered(type: Animal.self, name: "Cat"))
        let counter = Counter()
        c.register(type: Tracked.self, dependency: Tracked(counter))
        #expect(counter.created == 0, "register(type:dependency:) creates the instance lazily")
        let tracked = c.resolve(type: Tracked.self)
        #expect(c.resolve(type: Tracked.self) === tracked, "and shares it")
        #expect(counter.created == 1)

        // A later registration replaces the earlier one; names compare as Swift strings do.
        c.register(type: Animal.self, name: "Cat", dependency: Tiger())
        #expect(c.resolve(type: Animal.self, name: "Cat") is Tiger)
        c.register(type: Animal.self, name: "caf\u{E9}", dependency: Cat())
        #expect(c.resolve(type: Animal.self, name: "cafe\u{301}") is Cat)
    }

    protocol Clock: AnyObject {}
    final class SystemClock: Clock {}
    final class Request {}
    final class UnitOfWork {}
    /// Numbered, to tell a new instance from an old one at the same address.
    final class Cache {
        static let made = Atomic(0)
        let serial = Cache.made.add(1, ordering: .relaxed).newValue
    }
    final class Cart {}

    @Test("Scopes")
    func scopes() {
        let c = Container()
        c.register(type: Clock.self, in: .shared) { _ in SystemClock() }     // one per container (the default)
        c.register(type: Request.self, in: .new) { _ in Request() }          // one per resolve
        c.register(type: UnitOfWork.self, in: .graph) { _ in UnitOfWork() }  // one per top-level resolve
        c.register(type: Cache.self, in: .weak) { _ in Cache() }             // shared while somebody holds it
        c.register(type: Cart.self, in: .scoped) { _ in Cart() }             // one per scope: see Request scopes

        c.releaseSharedInstances()   // the next resolve of each .shared registration creates a new instance

        let clock = c.resolve(type: Clock.self)
        #expect(c.resolve(type: Clock.self) === clock)
        c.releaseSharedInstances()
        #expect(c.resolve(type: Clock.self) !== clock, "released: the next resolve creates a new instance")
        #expect(c.resolve(type: Request.self) !== c.resolve(type: Request.self))

        c.register(type: Pair<UnitOfWork>.self, in: .new) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        let pair = c.resolve(type: Pair<UnitOfWork>.self)
        #expect(pair.first === pair.second, "one UnitOfWork within a top-level resolve")
        #expect(c.resolve(type: UnitOfWork.self) !== pair.first, "and another for the next one")

        var cache: Cache? = c.resolve(type: Cache.self)
        let serial = cache?.serial
        #expect(c.resolve(type: Cache.self).serial == serial, "shared while held")
        cache = nil
        #expect(c.resolve(type: Cache.self).serial != serial, "made anew once nobody holds it")

        let scope = c.makeScope()
        #expect(scope.resolve(type: Cart.self) === scope.resolve(type: Cart.self))
        #expect(scope.resolve(type: Cart.self) !== c.makeScope().resolve(type: Cart.self))
        expectResolutionError(.noScope) { try c.tryResolve(type: Cart.self) }
    }

    final class UserSession: Sendable {
        static let closed = Atomic(false)
        let user: String
        init(user: String) { self.user = user }
        deinit { UserSession.closed.store(true, ordering: .relaxed) }
    }

    @Test("Scopes: what releaseSharedInstances drops is gone when it returns")
    func releasedSession() async {
        // A process of its own: another test's resolve in flight would rightly
        // defer the free.
        await #expect(processExitsWith: .success) {
            let c = Container()
            c.register { _ in UserSession(user: "ada") }
            weak var session = c.resolve(type: UserSession.self)
            c.releaseSharedInstances()   // logout
            // session == nil here: its deinit (closing sockets, files, caches) has run
            precondition(session == nil, "the released session is alive")
            precondition(UserSession.closed.load(ordering: .relaxed), "the released session's deinit has not run")
        }
    }
}
