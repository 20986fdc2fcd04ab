#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
import Syringe

// MARK: Fixtures (fileprivate: exit-test bodies are expanded at file scope)

fileprivate final class PWManager: @unchecked Sendable {
    let tracked: Tracked?
    init(counter: Counter? = nil) { tracked = counter.map(Tracked.init) }
}

fileprivate final class PWStore: @unchecked Sendable {
    let tracked: Tracked?
    init(counter: Counter? = nil) { tracked = counter.map(Tracked.init) }
}

/// Resolves from `Container.shared` at init.
fileprivate final class PWSharedOwner {
    @Injected var manager: PWManager
}

fileprivate struct PWSharedStructOwner {
    @Injected var manager: PWManager
    @Injected(name: "store") var store: PWStore
}

/// Named and explicit-container injection. Each owner type has a container
/// of its own, used by one test only.
fileprivate final class PWExplicitOwner {
    static let container: Container = {
        let c = Container()
        c.register(type: PWStore.self, name: "store") { _ in PWStore() }
        c.register(type: PWStore.self) { _ in PWStore() }
        return c
    }()

    @Injected(name: "store", from: PWExplicitOwner.container) var store: PWStore
    @Injected(from: PWExplicitOwner.container) var unnamedStore: PWStore
}

fileprivate final class PWLazyOwner: @unchecked Sendable {
    @LazyInjected var lazyManager: PWManager
}

fileprivate final class PWLazyStoreOwner {
    @LazyInjected(name: "store") var lazyStore: PWStore
}

fileprivate final class PWWeakOwner {
    @WeakInjected(name: "store") var weakStore: PWStore?
}

// Owners whose injection cannot succeed, for the exit tests.

fileprivate final class PWFailingScreen {
    @Injected(from: Container()) var manager: PWManager
}

fileprivate final class PWFailingSharedScreen {
    @Injected var manager: PWManager
}

fileprivate final class PWFailingLazyScreen {
    @LazyInjected(name: "missing", from: Container()) var lazyStore: PWStore
}

fileprivate final class PWFailingWeakScreen {
    @WeakInjected(name: "gone", from: Container()) var weakStore: PWStore?
}

@Suite("Property wrappers")
struct PropertyWrapperTests {
    // MARK: @Injected

    @Test("@Injected resolves from Container.shared when the owner is initialised")
    func injectedFromShared() {
        let c = Container()
        c.register(type: PWManager.self) { _ in PWManager() }
        let owner = Container.$shared.withValue(c) { PWSharedOwner() }
        #expect(owner.manager === c.resolve(type: PWManager.self))
    }

    @Test("@Injected resolves at init, not at access")
    func injectedAtInit() {
        let c = Container()
        let counter = Counter()
        c.register(type: PWManager.self, in: .new) { _ in PWManager(counter: counter) }
        let owner = Container.$shared.withValue(c) { PWSharedOwner() }
        #expect(counter.created == 1)
        // Later accesses, even under another shared container, read the same instance.
        let other = Container()
        other.register(type: PWManager.self) { _ in PWManager() }
        let first = owner.manager
        let second = Container.$shared.withValue(other) { owner.manager }
        #expect(first === second)
        #expect(counter.created == 1)
    }

    @Test("@Injected in a struct, with a name")
    func injectedStructWithName() {
        let c = Container()
        c.register(type: PWManager.self) { _ in PWManager() }
        c.register(type: PWStore.self, name: "store") { _ in PWStore() }
        let owner = Container.$shared.withValue(c) { PWSharedStructOwner() }
        #expect(owner.manager === c.resolve(type: PWManager.self))
        #expect(owner.store === c.resolve(type: PWStore.self, name: "store"))
    }

    @Test("@Injected(name:from:) uses the given container and name, not Container.shared")
    func injectedExplicitContainer() {
        let decoy = Container()
        decoy.register(type: PWStore.self, name: "store") { _ in PWStore() }
        let owner = Container.$shared.withValue(decoy) { PWExplicitOwner() }
        #expect(owner.store === PWExplicitOwner.container.resolve(type: PWStore.self, name: "store"))
        #expect(owner.unnamedStore === PWExplicitOwner.container.resolve(type: PWStore.self))
        #expect(owner.store !== owner.unnamedStore)
        #expect(owner.store !== decoy.resolve(type: PWStore.self, name: "store"))
    }

    // MARK: @LazyInjected

    @Test("@LazyInjected resolves on first access, not at init")
    func lazyOnFirstAccess() {
        let c = Container()
        let counter = Counter()
        c.register(type: PWManager.self, in: .new) { _ in PWManager(counter: counter) }
        let owner = Container.$shared.withValue(c) { PWLazyOwner() }
        #expect(counter.created == 0, "nothing resolved at init")
        let first = owner.lazyManager
        #expect(counter.created == 1)
        let second = owner.lazyManager
        #expect(first === second, "resolved once, even for a .new registration")
        #expect(counter.created == 1)
    }

    @Test("@LazyInjected uses the container that was shared when the owner was initialised")
    func lazyKeepsInitContainer() {
        let atInit = Container()
        atInit.register(type: PWManager.self) { _ in PWManager() }
        let atAccess = Container()
        atAccess.register(type: PWManager.self) { _ in PWManager() }
        let owner = Container.$shared.withValue(atInit) { PWLazyOwner() }
        let manager = Container.$shared.withValue(atAccess) { owner.lazyManager }
        #expect(manager === atInit.resolve(type: PWManager.self))
        #expect(manager !== atAccess.resolve(type: PWManager.self))
    }

    @Test("@LazyInjected: registering after init but before first access is enough")
    func lazyRegisterLater() {
        let c = Container()
        let owner = Container.$shared.withValue(c) { PWLazyStoreOwner() }
        c.register(type: PWStore.self, name: "store") { _ in PWStore() }
        #expect(owner.lazyStore === c.resolve(type: PWStore.self, name: "store"))
    }

    @Test("copies of a @LazyInjected owner share the one resolved instance")
    func lazyCopiesShare() {
        struct Owner {
            @LazyInjected var manager: PWManager
        }
        let c = Container()
        let counter = Counter()
        c.register(type: PWManager.self, in: .new) { _ in PWManager(counter: counter) }
        let original = Container.$shared.withValue(c) { Owner() }
        let copy = original
        #expect(copy.manager === original.manager)
        #expect(counter.created == 1)
    }

    @Test("threads racing the first access of a @LazyInjected property get one instance from one factory run")
    func lazyThreadSafe() {
        let threadCount = 8
        for _ in 0..<10 {
            let c = Container()
            let counter = Counter()
            c.register(type: PWManager.self, in: .new) { _ in
                usleep(500)  // widen the window in which others arrive
                return PWManager(counter: counter)
            }
            let owner = Container.$shared.withValue(c) { PWLazyOwner() }
            let race = PWRace()
            let threads = (0..<threadCount).map { _ in
                Thread {
                    // Start line: every thread first-accesses as close together as possible.
                    race.ready.add(1, ordering: .acquiringAndReleasing)
                    while race.ready.load(ordering: .acquiring) < threadCount { sched_yield() }
                    let manager = owner.lazyManager
                    race.seen.withLock { $0.append(ObjectIdentifier(manager)) }
                }
            }
            threads.forEach { $0.start() }
            threads.forEach { $0.join() }
            let ids = race.seen.withLock { $0 }
            #expect(ids.count == threadCount)
            #expect(Set(ids).count == 1)
            #expect(counter.created == 1)
        }
    }

    @Test("@LazyInjected is safe to first-access from concurrentPerform")
    func lazyConcurrentPerform() {
        let c = Container()
        let counter = Counter()
        c.register(type: PWManager.self, in: .new) { _ in PWManager(counter: counter) }
        let owners = Container.$shared.withValue(c) { (0..<50).map { _ in PWLazyOwner() } }
        let seen = Locked<[Int: Set<ObjectIdentifier>]>([:])
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let id = ObjectIdentifier(owners[index % owners.count].lazyManager)
            seen.withLock { _ = $0[index % owners.count, default: []].insert(id) }
        }
        let perOwner = seen.withLock { $0 }
        #expect(perOwner.count == owners.count)
        #expect(perOwner.values.allSatisfy { $0.count == 1 }, "each owner saw one instance")
        #expect(Set(perOwner.values.compactMap(\.first)).count == owners.count, "owners do not share")
        #expect(counter.created == owners.count, "one factory run per owner")
    }

    /// A session configured by its `onResolved` callback.
    final class Session: @unchecked Sendable {
        var configured = false
    }

    /// Reads its session on first access, from the container it is given.
    final class Screen: @unchecked Sendable {
        @LazyInjected var session: Session

        init(container: Container) {
            _session = LazyInjected(from: container)
        }
    }

    final class Holder: Sendable {}

    @Test("a @LazyInjected property first read in a resolve that fails resolves again, rather than keep a taken-back instance")
    func lazyReadInFailingResolve() throws {
        let c = Container()
        c.register(type: Session.self) { _ in Session() }
            .onResolved { _, session in session.configured = true }
        let screen = Screen(container: c)
        // Unowned: the screen holds the container, which holds this factory.
        c.register(type: Holder.self, in: .new) { [unowned screen] _ in
            let first = screen.session
            #expect(screen.session === first, "read again in the same resolve: the same instance")
            throw Failure(code: 1)
        }
        expectResolutionError(.factoryFailed(Failure(code: 1))) { try c.tryResolve(type: Holder.self) }
        // The failed resolve took its half-configured Session back.
        let session = try c.tryResolve(type: Session.self)
        #expect(screen.session === session)
        #expect(screen.session.configured)
    }

    @Test("a @LazyInjected property first read by a callback of a resolve that then fails resolves again; in one that succeeds, keeps it")
    func lazyReadInCallbackOfFailingResolve() throws {
        final class Trigger: Sendable {}
        final class Root: Sendable {}
        let c = Container()
        c.register(type: Session.self, in: .new) { _ in Session() }
            .onResolved { _, session in session.configured = true }
        let screen = Screen(container: c)
        // The sessions themselves, not their identifiers: one freed could
        // give its address to the next (as ThreadSanitizer's allocator did).
        let seen = Locked<[Session]>([])
        // Unowned: the screen holds the container, which holds the callback.
        c.register(type: Holder.self, in: .new) { _ in Holder() }
            .onResolved { [unowned screen] _, _ in seen.withLock { $0.append(screen.session) } }
        c.register(type: Trigger.self, in: .new) { _ in Trigger() }
            .onResolved { _, _ in throw Failure(code: 2) }
        // Holder's callback runs first and reads the property: the Session's
        // callback is queued after Trigger's, which throws, and never runs.
        c.register(type: Root.self, in: .new) { r in
            _ = try r.resolve(type: Holder.self)
            _ = try r.resolve(type: Trigger.self)
            return Root()
        }
        expectResolutionError(.factoryFailed(Failure(code: 2))) { try c.tryResolve(type: Root.self) }
        let kept = screen.session
        #expect(kept.configured, "the unconfigured instance read in the failed resolve was kept")
        #expect(seen.withLock { $0 }.count == 1)
        #expect(seen.withLock { $0 }.first !== kept)
        // Without the failure, the instance read in the resolve is kept.
        c.register(type: Trigger.self, in: .new) { _ in Trigger() }
        let other = Screen(container: c)
        c.register(type: Holder.self, in: .new) { _ in Holder() }
            .onResolved { [unowned other] _, _ in seen.withLock { $0.append(other.session) } }
        _ = try c.tryResolve(type: Root.self)
        #expect(seen.withLock { $0 }.last === other.session)
        #expect(other.session.configured)
    }

    // MARK: @WeakInjected

    @Test("@WeakInjected accepts a class-bound protocol and holds its instance weakly")
    func weakInjectedProtocol() {
        final class Owner {
            @WeakInjected(name: "pet", from: PropertyWrapperTests.petContainer) var pet: Animal?
        }
        var held: Animal? = PropertyWrapperTests.petContainer.resolve(type: Animal.self, name: "pet")
        let owner = Owner()
        #expect(owner.pet === held)
        #expect(owner.pet?.sound == "miaow")
        held = nil
        #expect(owner.pet == nil)
    }

    @Test("@WeakInjected of a value type reads nil: there is no object to hold")
    func weakInjectedValue() {
        final class Owner {
            @WeakInjected(name: "number", from: PropertyWrapperTests.petContainer) var number: Int?
        }
        #expect(Owner().number == nil)
    }

    private static let petContainer: Container = {
        let c = Container()
        c.register(type: Animal.self, name: "pet", in: .weak) { _ in Cat() }
        c.register(type: Int.self, name: "number", dependency: 7)
        return c
    }()

    @Test("@WeakInjected holds a .weak instance weakly")
    func weakInjectedWeakScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: PWStore.self, name: "store", in: .weak) { _ in PWStore(counter: counter) }
        var held: PWStore? = c.resolve(type: PWStore.self, name: "store")
        let owner = Container.$shared.withValue(c) { PWWeakOwner() }
        #expect(owner.weakStore === held)
        #expect(owner.weakStore != nil)
        held = nil
        #expect(afterReclamation { counter.alive == 0 })
        #expect(owner.weakStore == nil, "the owner must not keep the instance alive")
    }

    @Test("@WeakInjected of a .new instance is nil once the owner's init is done: nobody else holds it")
    func weakInjectedNewScope() {
        let c = Container()
        let counter = Counter()
        c.register(type: PWStore.self, name: "store", in: .new) { _ in PWStore(counter: counter) }
        let owner = Container.$shared.withValue(c) { PWWeakOwner() }
        #expect(counter.created == 1, "resolved at init")
        #expect(afterReclamation { counter.alive == 0 })
        #expect(owner.weakStore == nil)
    }

    @Test("@WeakInjected of a .shared instance lives as long as the container")
    func weakInjectedSharedScope() {
        var c: Container? = Container()
        let counter = Counter()
        c!.register(type: PWStore.self, name: "store") { _ in PWStore(counter: counter) }
        let owner = Container.$shared.withValue(c!) { PWWeakOwner() }
        #expect(owner.weakStore != nil)
        #expect(owner.weakStore === c!.resolve(type: PWStore.self, name: "store"))
        weak let weakContainer = c
        c = nil
        #expect(weakContainer == nil, "the container itself should be freed")
        #expect(afterReclamation { counter.alive == 0 })
        #expect(owner.weakStore == nil)
    }

    // MARK: Failures stop the program

    @Test("a failing @Injected traps with the ResolutionError text and the owner type")
    func injectedFailureTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PWFailingScreen()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("PWFailingScreen"), "\(stderr)")
        #expect(stderr.contains("could not resolve PWManager"), "\(stderr)")
        #expect(stderr.contains("nothing is registered"), "\(stderr)")
    }

    @Test("a failing @Injected from Container.shared traps with the owner type")
    func injectedSharedFailureTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Container.$shared.withValue(Container()) { PWFailingSharedScreen() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("PWFailingSharedScreen"), "\(stderr)")
        #expect(stderr.contains("could not resolve PWManager"), "\(stderr)")
    }

    @Test("a failing @LazyInjected traps on first access with the owner type")
    func lazyFailureTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let owner = PWFailingLazyScreen()
            // Init must not have trapped: mark it, then access.
            FileDescriptorLike.writeToStandardError("initialised without resolving\n")
            _ = owner.lazyStore
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("initialised without resolving"), "\(stderr)")
        #expect(stderr.contains("PWFailingLazyScreen"), "\(stderr)")
        #expect(stderr.contains("could not resolve PWStore named \"missing\""), "\(stderr)")
    }

    @Test("a failing @WeakInjected traps with the owner type")
    func weakFailureTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PWFailingWeakScreen()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("PWFailingWeakScreen"), "\(stderr)")
        #expect(stderr.contains("could not resolve PWStore named \"gone\""), "\(stderr)")
    }
}

/// A start line for threads, and what they saw.
private final class PWRace: Sendable {
    let ready = Atomic(0)
    let seen = Locked<[ObjectIdentifier]>([])
}

private enum FileDescriptorLike {
    static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = write(2, bytes.baseAddress, bytes.count)
        }
    }
}
