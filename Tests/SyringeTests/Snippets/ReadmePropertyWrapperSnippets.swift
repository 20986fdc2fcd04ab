import Synchronization
import Syringe
import Testing

/// README "Property wrappers and the shared container".
@Suite("README: Property wrappers and the shared container")
struct ReadmePropertyWrapperSnippets {
    final class Manager: Sendable {}
    final class Store: Sendable {}

    /// The container the snippet's `from: container` names: a `Store` named
    /// "store" (.shared), and a new `Manager` per resolve, counted.
    static let container: Container = {
        let container = Container()
        container.register(type: Store.self, name: "store") { _ in Store() }
        container.register(type: Manager.self, in: .new) { _ in
            managersMade.add(1, ordering: .relaxed)
            return Manager()
        }
        return container
    }()
    static let managersMade = Atomic(0)

    final class Screen {
        @Injected var manager: Manager                                     // from Container.shared, at init
        @Injected(name: "store", from: container) var store: Store
        @LazyInjected(from: container) var lazyManager: Manager            // on first access, once, thread-safe
        @WeakInjected(name: "store", from: container) var weakStore: Store?   // held weakly
    }

    @Test("Property wrappers")
    func propertyWrappers() {
        let shared = Container()
        let sharedManager = Manager()
        shared.register(type: Manager.self, dependency: sharedManager)
        let before = Self.managersMade.load(ordering: .relaxed)
        let screen = Container.$shared.withValue(shared) { Screen() }

        let container = Self.container
        // The static container outlives the test: let its Store go, so no
        // object with a weak reference to it is alive at exit (LeakSanitizer
        // cannot see the weak reference's side table through the object's
        // reference count, and would report it).
        defer { container.releaseSharedInstances() }
        #expect(screen.manager === sharedManager, "@Injected without a container resolves from Container.shared, at init")
        #expect(screen.store === container.resolve(type: Store.self, name: "store"))
        #expect(screen.weakStore === screen.store)
        #expect(Self.managersMade.load(ordering: .relaxed) == before, "@LazyInjected resolves nothing at init")
        let lazyManager = screen.lazyManager
        #expect(Self.managersMade.load(ordering: .relaxed) == before + 1, "resolved on first access")
        #expect(screen.lazyManager === lazyManager, "once")
        #expect(Self.managersMade.load(ordering: .relaxed) == before + 1)
    }

    final class WeakHolder {
        @WeakInjected(from: ReadmePropertyWrapperSnippets.weakContainer) var store: Store?
    }
    static let weakContainer: Container = {
        let container = Container()
        container.register(type: Store.self) { _ in Store() }
        return container
    }()

    @Test("@WeakInjected holds weakly")
    func weakInjectedHoldsWeakly() async {
        // A process of its own: another test's resolve in flight would rightly
        // defer the release.
        await #expect(processExitsWith: .success) {
            let holder = ReadmePropertyWrapperSnippets.WeakHolder()
            precondition(holder.store != nil)
            ReadmePropertyWrapperSnippets.weakContainer.releaseSharedInstances()
            precondition(holder.store == nil, "@WeakInjected kept the released Store alive")
        }
    }

    final class Checkout {
        @LazyInjected var manager: Manager
        init(container: Container) {
            _manager = LazyInjected(from: container)   // resolved from `container` on first read
        }
    }

    @Test("A container picked in an initialiser")
    func containerPickedInInitialiser() {
        // Container.shared has no Manager: a resolve there would stop the program.
        let checkout = Container.$shared.withValue(Container()) { Checkout(container: Self.container) }
        let before = Self.managersMade.load(ordering: .relaxed)
        _ = checkout.manager
        #expect(Self.managersMade.load(ordering: .relaxed) == before + 1, "resolved from the container the initialiser gave")
    }

    final class UsesShared { @Injected var manager: Manager }

    @Test("Container.shared is task-local")
    func sharedIsTaskLocal() {
        let testContainer = Container()
        let fake = Manager()
        testContainer.register(type: Manager.self, dependency: fake)

        let manager = Container.$shared.withValue(testContainer) { UsesShared().manager }

        #expect(manager === fake)
    }
}
