import Testing
import Syringe

@Suite("Scopes")
struct ScopeTests {
    @Test(".new makes an instance per resolve")
    func newScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, in: .new) { _ in Tracked(counter) }
        let a = c.resolve(type: Tracked.self)
        let b = c.resolve(type: Tracked.self)
        #expect(a !== b)
        #expect(counter.created == 2)
    }

    @Test(".shared is the default and makes one instance")
    func sharedScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        #expect(c.resolve(type: Tracked.self) === c.resolve(type: Tracked.self))
        #expect(counter.created == 1)
    }

    @Test(".graph shares within one top-level resolve, not across them")
    func graphScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        let first = c.resolve(type: Pair<Tracked>.self)
        let second = c.resolve(type: Pair<Tracked>.self)
        #expect(first.first === first.second)
        #expect(first.first !== second.first)
        #expect(counter.created == 2)
    }

    @Test(".weak is shared while held outside and recreated after release")
    func weakScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, in: .weak) { _ in Tracked(counter) }
        var held: Tracked? = c.resolve(type: Tracked.self)
        #expect(c.resolve(type: Tracked.self) === held)
        #expect(counter.created == 1)
        let firstSerial = held?.serial
        held = nil
        #expect(counter.alive == 0, "the container must not keep a .weak instance alive")
        let again = c.resolve(type: Tracked.self)
        #expect(again.serial != firstSerial)
        #expect(counter.created == 2)
    }

    @Test(".weak through a protocol existential")
    func weakExistential() {
        let c = Container()
        c.register(type: Animal.self, in: .weak) { _ in Cat() }
        let held = c.resolve(type: Animal.self)
        #expect(c.resolve(type: Animal.self) === held)
        #expect(held.sound == "miaow")
    }

    @Test(".weak of a value type behaves like .new")
    func weakValue() {
        let c = Container()
        let counter = Counter()
        c.register(type: Int.self, in: .weak) { _ in Tracked(counter).serial }
        #expect(c.resolve(type: Int.self) == 1)
        #expect(c.resolve(type: Int.self) == 2)
    }

    @Test("releaseSharedInstances makes the next resolve create anew")
    func releaseShared() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        let first = c.resolve(type: Tracked.self)
        c.releaseSharedInstances()
        let second = c.resolve(type: Tracked.self)
        #expect(first !== second)
        #expect(c.resolve(type: Tracked.self) === second)
        #expect(counter.created == 2)
    }

    @Test("a shared factory that throws caches nothing")
    func sharedThrowCachesNothing() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { _ in
            let attempt = Tracked(counter)
            if attempt.serial == 1 { throw Failure(code: 1) }
            return attempt
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Tracked.self) }
        let second = try c.tryResolve(type: Tracked.self)
        #expect(second.serial == 2)
        #expect(try c.tryResolve(type: Tracked.self) === second)
    }

    @Test("instances go when the container goes")
    func containerReleasesEverything() {
        let counter = Counter()
        weak var weakContainer: Container?
        do {
            let c = Container()
            weakContainer = c
            c.register(type: Tracked.self, name: "shared") { _ in Tracked(counter) }
            c.register(type: Tracked.self, name: "replaced") { _ in Tracked(counter) }
            _ = c.resolve(type: Tracked.self, name: "shared")
            _ = c.resolve(type: Tracked.self, name: "replaced")
            c.register(type: Tracked.self, name: "replaced") { _ in Tracked(counter) }
            _ = c.resolve(type: Tracked.self, name: "replaced")
            c.releaseSharedInstances()
            _ = c.resolve(type: Tracked.self, name: "shared")
            #expect(counter.created == 4)
        }
        #expect(weakContainer == nil)
        #expect(afterReclamation { counter.alive == 0 })
    }
}
