import Synchronization
import Syringe
import Testing

/// A `.shared` or `.weak` instance is published when its factory returns and
/// configured by `onResolved` when the outermost resolve has built the whole
/// graph. If that resolve fails first, the half-configured instance must not
/// be handed out later.
@Suite("Instances whose onResolved callbacks did not all run")
struct CallbackFailureTests {
    /// Throws `Failure(code:)` on its first call only.
    final class FailOnce: Sendable {
        private let calls = Atomic(0)
        let code: Int

        init(code: Int) { self.code = code }

        func call() throws {
            if calls.add(1, ordering: .relaxed).newValue == 1 {
                throw Failure(code: code)
            }
        }
    }

    final class Root: Sendable {}
    final class Sibling: Sendable {}

    @Test("a .shared instance whose own onResolved throws is created anew by the next resolve")
    func sharedOwnCallbackThrows() throws {
        let counter = Counter()
        let failOnce = FailOnce(code: 1)
        let configured = Atomic(0)
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { _, _ in
                try failOnce.call()
                configured.add(1, ordering: .relaxed)
            }
        expectResolutionError(.factoryFailed(Failure(code: 1))) { try c.tryResolve(type: Tracked.self) }
        let second = try c.tryResolve(type: Tracked.self)
        #expect(second.serial == 2, "the half-configured first instance was returned again")
        #expect(configured.load(ordering: .relaxed) == 1)
        #expect(try c.tryResolve(type: Tracked.self) === second)
        #expect(counter.created == 2)
    }

    @Test("a .shared instance whose callbacks never ran, because an earlier one threw, is created anew")
    func sharedCallbackSkipped() throws {
        let counter = Counter()
        let failOnce = FailOnce(code: 2)
        let configured = Atomic(0)
        let c = Container()
        // Root's factory resolves Sibling (whose callback throws) first, then
        // the shared Tracked: Tracked's callback is queued after Sibling's and
        // never runs in the failing resolve.
        c.register(type: Sibling.self, in: .new) { _ in Sibling() }
            .onResolved { _, _ in try failOnce.call() }
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { _, _ in configured.add(1, ordering: .relaxed) }
        c.register(type: Root.self, in: .new) { r in
            _ = try r.resolve(type: Sibling.self)
            _ = try r.resolve(type: Tracked.self)
            return Root()
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self) }
        #expect(configured.load(ordering: .relaxed) == 0)
        let tracked = try c.tryResolve(type: Tracked.self)
        #expect(tracked.serial == 2)
        #expect(configured.load(ordering: .relaxed) == 1)
    }

    @Test("a .shared instance created in a resolve whose factory later throws is created anew if its callbacks had not run")
    func sharedThenFactoryThrows() throws {
        let counter = Counter()
        let configured = Atomic(0)
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { _, _ in configured.add(1, ordering: .relaxed) }
        c.register(type: Root.self, in: .new) { r in
            _ = try r.resolve(type: Tracked.self)
            throw Failure(code: 3)
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self) }
        let tracked = try c.tryResolve(type: Tracked.self)
        #expect(tracked.serial == 2)
        #expect(configured.load(ordering: .relaxed) == 1)
    }

    @Test("a .shared instance without callbacks stays shared when a later part of the resolve fails")
    func sharedWithoutCallbacksIsKept() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        c.register(type: Root.self, in: .new) { r in
            _ = try r.resolve(type: Tracked.self)
            throw Failure(code: 4)
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self) }
        #expect(try c.tryResolve(type: Tracked.self).serial == 1)
    }

    /// Configured by its `onResolved` callback, which may fail once.
    final class Part: Sendable {
        let configured = Atomic(false)

        /// What its `onResolved` does: fails on `failOnce`'s first call.
        func configure(_ failOnce: FailOnce) throws {
            try failOnce.call()
            configured.store(true, ordering: .relaxed)
        }
    }

    final class Holder: Sendable {
        let part: Part
        init(part: Part) { self.part = part }
    }

    @Test("a .shared instance without callbacks, holding one whose callback failed, is created anew")
    func sharedHoldingAHalfConfiguredInstance() throws {
        let failOnce = FailOnce(code: 6)
        let c = Container()
        c.register(type: Part.self, in: .new) { _ in Part() }
            .onResolved { _, part in try part.configure(failOnce) }
        c.register(type: Holder.self) { r in Holder(part: try r.resolve()) }
        expectResolutionError(.factoryFailed(Failure(code: 6))) { try c.tryResolve(type: Holder.self) }
        let holder = try c.tryResolve(type: Holder.self)
        let configured = holder.part.configured.load(ordering: .relaxed)
        #expect(configured, "the first Holder, around an unconfigured Part, was kept")
        #expect(try c.tryResolve(type: Holder.self) === holder)
    }

    @Test("an async .shared instance without callbacks, holding one whose callback failed, is created anew")
    func asyncSharedHoldingAHalfConfiguredInstance() async throws {
        let failOnce = FailOnce(code: 9)
        let c = Container()
        c.register(type: Part.self, in: .new) { (_: Resolver) async in Part() }
            .onResolved { _, part in try part.configure(failOnce) }
        c.register(type: Holder.self) { (r: Resolver) async throws in Holder(part: try await r.resolve()) }
        await #expect(throws: ResolutionError.self) { try await c.resolveAsync(type: Holder.self) }
        let holder = try await c.resolveAsync(type: Holder.self)
        let configured = holder.part.configured.load(ordering: .relaxed)
        #expect(configured, "the first Holder, around an unconfigured Part, was kept")
        #expect(try await c.resolveAsync(type: Holder.self) === holder)
    }

    @Test("a .weak instance without callbacks, holding one whose callback failed, is created anew")
    func weakHoldingAHalfConfiguredInstance() throws {
        let failOnce = FailOnce(code: 7)
        let c = Container()
        c.register(type: Part.self, in: .new) { _ in Part() }
            .onResolved { _, part in try part.configure(failOnce) }
        c.register(type: Holder.self, in: .weak) { r in Holder(part: try r.resolve()) }
        let failed = Locked<Holder?>(nil)
        c.register(type: Sibling.self, in: .new) { r in
            let holder = try r.resolve(type: Holder.self)
            failed.withLock { $0 = holder }   // kept alive past the failure
            return Sibling()
        }
        expectResolutionError(.factoryFailed(Failure(code: 7))) { try c.tryResolve(type: Sibling.self) }
        let kept = failed.withLock { $0 }
        #expect(kept != nil)
        let holder = try c.tryResolve(type: Holder.self)
        #expect(holder !== kept)
        let configured = holder.part.configured.load(ordering: .relaxed)
        #expect(configured)
    }

    @Test("a .shared instance without callbacks is kept when a callback queued after it fails")
    func sharedBuiltBeforeAFailingSiblingIsKept() throws {
        let counter = Counter()
        let failOnce = FailOnce(code: 8)
        let c = Container()
        c.register(type: Part.self, in: .new) { _ in Part() }
        c.register(type: Tracked.self) { r in
            _ = try r.resolve(type: Part.self)
            return Tracked(counter)
        }
        c.register(type: Sibling.self, in: .new) { _ in Sibling() }
            .onResolved { _, _ in try failOnce.call() }
        c.register(type: Root.self, in: .new) { r in
            _ = try r.resolve(type: Tracked.self)
            _ = try r.resolve(type: Sibling.self)
            return Root()
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self) }
        #expect(try c.tryResolve(type: Tracked.self).serial == 1)
    }

    final class Leaf: Sendable {}
    final class Branch: Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }
    final class Unregistered: Sendable {}

    @Test("what an onResolved callback throws, or a resolve it makes, is reported on the instance's path, as the callback's")
    func callbackFailuresHaveTheirPath() throws {
        let c = Container()
        c.register(type: Branch.self, in: .new) { r in Branch(leaf: try r.resolve()) }
        c.register(type: Leaf.self, in: .new) { _ in Leaf() }
            .onResolved { _, _ in throw Failure(code: 10) }
        let thrown = try #require(expectResolutionError(.factoryFailed(Failure(code: 10))) { try c.tryResolve(type: Branch.self) })
        #expect(thrown.path == ["Branch", "Leaf"])
        #expect(thrown.description.contains("its onResolved callback threw Failure(code: 10)"))
        #expect(thrown.description.contains("Branch → Leaf"))

        let resolving = Container()
        resolving.register(type: Branch.self, in: .new) { r in Branch(leaf: try r.resolve()) }
        resolving.register(type: Leaf.self, in: .new) { _ in Leaf() }
            .onResolved { r, _ in _ = try r.resolve(type: Unregistered.self) }
        let missing = try #require(expectResolutionError(.notRegistered) { try resolving.tryResolve(type: Branch.self) })
        #expect(missing.path == ["Branch", "Leaf", "Unregistered"])

        // A factory's own failure still says so.
        let factory = Container()
        factory.register(type: Leaf.self, in: .new) { _ in throw Failure(code: 11) }
        let fromFactory = try #require(expectResolutionError(.factoryFailed(Failure(code: 11))) { try factory.tryResolve(type: Leaf.self) })
        #expect(fromFactory.description.contains("the factory threw Failure(code: 11)"))
    }

    @Test("what an async resolve's onResolved callback throws is reported on the instance's path, as the callback's")
    func asyncCallbackFailuresHaveTheirPath() async throws {
        let c = Container()
        c.register(type: Branch.self, in: .new) { (r: Resolver) async throws in Branch(leaf: try await r.resolve()) }
        c.register(type: Leaf.self, in: .new) { (_: Resolver) async in Leaf() }
            .onResolved { _, _ in throw Failure(code: 12) }
        do {
            _ = try await c.resolveAsync(type: Branch.self)
            Issue.record("resolved")
        } catch {
            #expect(error.path == ["Branch", "Leaf"])
            #expect(error.description.contains("its onResolved callback threw Failure(code: 12)"))
        }
    }

    @Test("an async registration not built yet, resolved synchronously by an async resolve's callback, is .registeredAsync on the instance's path")
    func asyncCallbackResolvingAnAsyncRegistration() async throws {
        let c = Container()
        c.register(type: Branch.self, in: .new) { (r: Resolver) async throws in Branch(leaf: try await r.resolve()) }
        c.register(type: Leaf.self, in: .new) { (_: Resolver) async in Leaf() }
            .onResolved { r, _ in _ = try r.resolve(type: Branch.self) }
        // Its own ancestor: built by now, so not a cycle.
        let error = try #require(await expectAsyncResolutionError(.registeredAsync) { try await c.resolveAsync(type: Branch.self) })
        #expect(error.path == ["Branch", "Leaf", "Branch"])
    }

    @Test("releaseSharedInstances inside the failing callback: the next resolve creates one new instance")
    func retractOnlyWhatWasPublished() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { [unowned c] _, tracked in
                guard tracked.serial == 1 else { return }
                // Drop the instance being configured, then fail.
                c.releaseSharedInstances()
                throw Failure(code: 5)
            }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Tracked.self) }
        let second = try c.tryResolve(type: Tracked.self)
        #expect(second.serial == 2)
        #expect(try c.tryResolve(type: Tracked.self) === second)
    }

    @Test("a .weak instance whose onResolved throws is created anew while the failed one is still held")
    func weakCallbackThrows() throws {
        let counter = Counter()
        let failOnce = FailOnce(code: 6)
        let held = Locked<Tracked?>(nil)
        let c = Container()
        c.register(type: Tracked.self, in: .weak) { _ in Tracked(counter) }
            .onResolved { _, tracked in
                held.withLock { $0 = tracked }  // something outside keeps it alive
                try failOnce.call()
            }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Tracked.self) }
        #expect(held.withLock { $0?.serial } == 1)
        let second = try c.tryResolve(type: Tracked.self)
        #expect(second.serial == 2)
        #expect(try c.tryResolve(type: Tracked.self) === second)
    }
}
