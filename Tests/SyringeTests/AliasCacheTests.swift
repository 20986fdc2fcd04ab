import Synchronization
import Testing
import Syringe

/// An alias of a `.shared` registration keeps its target's instance
/// converted (`AliasCache`): the same instance as the target's, as long as
/// the target has it, and nothing kept once it is released or closed.
@Suite("An alias of a .shared registration, resolved again")
struct AliasCacheTests {
    private protocol Reader: AnyObject {}
    private final class Store: Reader, Sendable {
        let tracked: Tracked
        init(counter: Counter) { tracked = Tracked(counter) }
    }

    @Test("returns the target's instance, resolved again and again, and the new one after releaseSharedInstances; the released one is freed")
    func followsRelease() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
        weak var released: AnyObject?
        do {
            let first = try c.tryResolve(type: Reader.self)
            #expect(first === (try c.tryResolve(type: Store.self)))
            for _ in 0..<3 {
                #expect(try c.tryResolve(type: Reader.self) === first)
            }
            released = first
        }
        c.releaseSharedInstances()
        // Freed with no resolve of the alias since: nothing else would have
        // let go of what the alias kept.
        #expect(afterReclamation { released == nil }, "the alias kept the released instance")
        let second = try c.tryResolve(type: Reader.self)
        #expect(second === (try c.tryResolve(type: Store.self)))
        #expect(try c.tryResolve(type: Reader.self) === second)
        #expect(counter.alive == 1)
    }

    @Test("a closed container's alias fails as the type does, and the instance goes with the container")
    func followsClose() async throws {
        let counter = Counter()
        do {
            let c = Container()
            c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
            _ = try c.tryResolve(type: Reader.self)
            _ = try c.tryResolve(type: Reader.self)
            try await c.close()
            expectResolutionError(.closed) { try c.tryResolve(type: Store.self) }
            expectResolutionError(.closed) { try c.tryResolve(type: Reader.self) }
        }
        #expect(afterReclamation { counter.alive == 0 }, "the alias kept the closed container's instance")
    }

    @Test("a re-registered target's alias goes with it; a new alias returns the new registration's instance")
    func followsReplacement() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
        let old = try c.tryResolve(type: Reader.self)
        _ = try c.tryResolve(type: Reader.self)
        c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
        let new = try c.tryResolve(type: Reader.self)
        #expect(new !== old)
        #expect(new === (try c.tryResolve(type: Store.self)))
        #expect(try c.tryResolve(type: Reader.self) === new)
    }

    @Test("an instance that is not of the alias's type fails every time, and is not kept as if it were")
    func incompatibleEveryTime() throws {
        let c = Container()
        c.register(type: Int.self) { _ in 7 }.implements(String.self)
        for _ in 0..<3 {
            expectResolutionError(.incompatibleAlias(instanceType: "Int")) { try c.tryResolve(type: String.self) }
        }
        #expect(try c.tryResolve(type: Int.self) == 7)
    }

    @Test("async: the same instance as the target's, and the new one after a release")
    func asyncFollowsRelease() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Store.self) { (_: Resolver) async in Store(counter: counter) }.implements(Reader.self)
        let first = try await c.resolveAsync(type: Reader.self)
        #expect(try await c.resolveAsync(type: Reader.self) === first)
        #expect(try c.tryResolve(type: Reader.self) === first)
        c.releaseSharedInstances()
        let second = try await c.resolveAsync(type: Reader.self)
        #expect(second !== first)
        #expect(second === (try await c.resolveAsync(type: Store.self)))
    }

    @Test("threads resolving the alias while another releases: each gets an instance the target had, never a freed one")
    func releaseRacingResolves() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
        let failures = StressFailures()
        runThreads(3) { thread in
            for _ in 0..<2_000 {
                if thread == 0 {
                    c.releaseSharedInstances()
                } else {
                    do {
                        guard let store = try c.tryResolve(type: Reader.self) as? Store else {
                            failures.record("not a Store")
                            continue
                        }
                        // Reading it: a freed instance fails under the sanitizers.
                        _ = store.tracked
                    } catch {
                        failures.record("\(error)")
                    }
                }
            }
        }
        #expect(failures.count == 0, "\(failures.summary)")
        c.releaseSharedInstances()
        #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) instances outlived their release")
    }
}
