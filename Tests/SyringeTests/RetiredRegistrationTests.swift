import CSyringeTable
import Testing
@testable import Syringe

/// The definition `c` has for `Tracked` now, as a resolve finds it.
private func current(_ c: Container) throws -> Definition<Tracked> {
    let key = DefinitionKey(type: typeIdentity(Tracked.self), signature: NoArguments.identity, name: nil)
    return try #require(c.lookup(key) as? Definition<Tracked>)
}

/// A resolve that finds a `.shared` registration just before a writer
/// replaces or removes it: the race the mixed-scopes stress test caught
/// once (a second instance of the replaced registration), made
/// deterministic by handing the engine the registration that was found.
@Suite("A resolve racing the replacement of the registration it found")
struct RetiredRegistrationTests {
    @Test("a resolve in progress when its registration is replaced or removed still gets the instance it found")
    func inProgress() throws {
        for removing in [false, true] {
            let old = Counter()
            let c = Container()
            c.register(type: Tracked.self) { _ in Tracked(old) }
            let first = c.resolve(type: Tracked.self)
            // A factory runs inside its resolve's read-side section, as the
            // resolve that found the registration does.
            // Weak: the container holds this factory.
            c.register(type: Pair<Tracked>.self, in: .new) { [weak c] _ in
                let c = try #require(c)
                let found = try current(c)
                if removing {
                    c.remove(type: Tracked.self)
                } else {
                    c.register(type: Tracked.self) { _ in Tracked(Counter()) }
                }
                let again = try c.createShared(found, holder: c, arguments: Container.noArguments, context: ResolutionContext.current)
                return Pair(first: again, second: again)
            }
            let pair = c.resolve(type: Pair<Tracked>.self)
            #expect(pair.first === first, "removing: \(removing)")
            #expect(old.created == 1, "the replaced registration's factory ran again (removing: \(removing))")
        }
    }

    @Test("a replaced registration whose instance is gone is resolved anew, not built a second time")
    func replacedAndReleased() throws {
        let old = Counter()
        let new = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(old) }
        _ = c.resolve(type: Tracked.self)
        let found = try current(c)
        c.register(type: Tracked.self) { _ in Tracked(new) }
        #expect(afterReclamation { found.sharedInstance() == nil }, "the replaced registration kept its instance")
        let instance = try c.createShared(found, holder: c, arguments: Container.noArguments, context: ResolutionContext.current)
        #expect(old.created == 1, "the replaced registration's factory ran again")
        #expect(instance.counter === new)
        #expect(c.resolve(type: Tracked.self) === instance)
    }

    @Test("a registration not yet built when it is found is built once, as before")
    func neverBuilt() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        let found = try current(c)
        let instance = try c.createShared(found, holder: c, arguments: Container.noArguments, context: ResolutionContext.current)
        #expect(counter.created == 1)
        #expect(c.resolve(type: Tracked.self) === instance)
    }

    @Test("a resolve that found a .scoped registration its scope then registered again gets the new one's copy, not a second one")
    func scopedReplacedInItsScope() throws {
        let scope = Container().makeScope()
        let old = scope.register(type: Tracked.self, in: .scoped) { _ in Tracked(Counter()) }
        _ = try scope.tryResolve(type: Tracked.self)
        let counter = Counter()
        scope.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        let first = try scope.tryResolve(type: Tracked.self)
        // The resolve that found `old` before the second registration.
        let section = syr_read_enter()
        let copy = scope.scopeLocal(of: old.definition, heldBy: scope)
        syr_read_exit(section)
        #expect((copy.takeUnretainedValue() as? Definition<Tracked>)?.sharedInstance() === first)
        #expect(try scope.tryResolve(type: Tracked.self) === first)
        #expect(counter.created == 1, "the new registration's factory ran twice in one scope")
    }
}

@Suite("An async resolve racing the replacement of the registration it found")
struct RetiredAsyncRegistrationTests {
    @Test("a replaced async registration whose instance is gone is resolved anew, not built a second time")
    func replacedAndReleased() async throws {
        let old = Counter()
        let new = Counter()
        let c = Container()
        c.register(type: Tracked.self) { (_: Resolver) async in Tracked(old) }
        _ = try await c.resolveAsync(type: Tracked.self)
        let found = try current(c)
        c.register(type: Tracked.self) { (_: Resolver) async in Tracked(new) }
        #expect(afterReclamation { found.sharedInstance() == nil }, "the replaced registration kept its instance")
        let box = try await Container.produceSharedAsync(found, in: .passUnretained(c), holder: c, arguments: Container.noArguments, parent: nil)
        let instance = box.value(as: Tracked.self)
        #expect(old.created == 1, "the replaced registration's factory ran again")
        #expect(instance.counter === new)
        #expect(try await c.resolveAsync(type: Tracked.self) === instance)
    }

    @Test("a removed async registration whose instance is gone is built from what the resolve found, as before")
    func removedAndReleased() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { (_: Resolver) async in Tracked(counter) }
        _ = try await c.resolveAsync(type: Tracked.self)
        let found = try current(c)
        c.remove(type: Tracked.self)
        #expect(afterReclamation { found.sharedInstance() == nil }, "the removed registration kept its instance")
        let box = try await Container.produceSharedAsync(found, in: .passUnretained(c), holder: c, arguments: Container.noArguments, parent: nil)
        #expect(box.value(as: Tracked.self).counter === counter)
    }
}
