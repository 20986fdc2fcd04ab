import Testing
import Syringe

// A container and everything it created are freed when its last reference
// goes: registrations, replaced and removed (retired) registrations,
// released shared instances, aliases, callbacks, child containers, and the C
// tables and names (those are not observable from Swift: the ASan run of the
// suite checks them through LeakSanitizer). Retired objects are freed by the
// reclaimer once no resolve could be using them, which another test's
// resolve running in parallel may delay: hence `afterReclamation`.

/// A weak reference that can be kept in an array.
final class LeakWeak: @unchecked Sendable {
    weak var object: AnyObject?
    let label: String

    init(_ object: AnyObject, _ label: String) {
        self.object = object
        self.label = label
    }
}

/// Collects weak references to what a workload resolved.
final class LeakWatch: @unchecked Sendable {
    private(set) var refs: [LeakWeak] = []

    func watch(_ object: AnyObject, _ label: String) {
        refs.append(LeakWeak(object, label))
    }

    var survivors: [String] { refs.filter { $0.object != nil }.map(\.label) }
}

/// A node of a small object graph with a back reference.
final class LeakNode: Sendable {
    let tracked: Tracked
    let child: LeakNode?

    init(_ counter: Counter, child: LeakNode? = nil) {
        tracked = Tracked(counter)
        self.child = child
    }
}

protocol LeakService: AnyObject {}
final class LeakServiceImp: LeakService, Sendable {
    let tracked: Tracked
    init(_ counter: Counter) { tracked = Tracked(counter) }
}

@Suite("Leaks")
struct LeakTests {
    /// Runs a workload touching every feature on a fresh container and
    /// returns weak references to the container, its children and instances.
    static func workload(counter: Counter, aliases: Bool, watch: LeakWatch) throws {
        let c = Container()
        watch.watch(c, "container")
        // Scopes, arguments, callbacks.
        let shared = c.register(type: Tracked.self, name: "shared") { _ in Tracked(counter) }
            .onResolved { r, _ in _ = try r.resolve(type: Tracked.self, name: "new") }
        let new = c.register(type: Tracked.self, name: "new", in: .new) { _ in Tracked(counter) }
        c.register(type: Tracked.self, name: "graph", in: .graph) { _ in Tracked(counter) }
        let weak = c.register(type: Tracked.self, name: "weak", in: .weak) { _ in Tracked(counter) }
        c.register(type: LeakNode.self, in: .new) { r in
            let graph = try r.resolve(type: Tracked.self, name: "graph")
            _ = try r.resolve(type: Tracked.self, name: "graph")
            _ = graph
            return LeakNode(counter, child: LeakNode(counter))
        }
        .onResolved { r, node in _ = try r.resolve(type: Tracked.self, name: "shared") }
        c.register(type: LeakNode.self, name: "args") { (_: Resolver, depth: Int) in
            var node = LeakNode(counter)
            for _ in 0..<depth { node = LeakNode(counter, child: node) }
            return node
        }
        let service = c.register(type: LeakService.self, in: .shared) { _ in LeakServiceImp(counter) as LeakService }
        if aliases {
            shared.implements(AnyObject.self, name: "alias-shared")
            new.implements(AnyObject.self, name: "alias-new")
            weak.implements(AnyObject.self, name: "alias-weak")
            service.implements(AnyObject.self, name: "alias-service")
        }

        let first = try c.tryResolve(type: Tracked.self, name: "shared")
        watch.watch(first, "first shared")
        watch.watch(try c.tryResolve(type: Tracked.self, name: "new"), "new")
        watch.watch(try c.tryResolve(type: LeakNode.self), "node")
        watch.watch(try c.tryResolve(type: LeakNode.self, name: "args", arguments: 5), "args node")
        let weakInstance = try c.tryResolve(type: Tracked.self, name: "weak")
        watch.watch(weakInstance, "weak")
        watch.watch(try c.tryResolve(type: LeakService.self), "service")
        if aliases {
            watch.watch(try c.tryResolve(type: AnyObject.self, name: "alias-shared"), "alias-shared")
            watch.watch(try c.tryResolve(type: AnyObject.self, name: "alias-new"), "alias-new")
            watch.watch(try c.tryResolve(type: AnyObject.self, name: "alias-weak"), "alias-weak")
            watch.watch(try c.tryResolve(type: AnyObject.self, name: "alias-service"), "alias-service")
        }

        // Releases: the old instance is retired, a new one made.
        c.releaseSharedInstances()
        watch.watch(try c.tryResolve(type: Tracked.self, name: "shared"), "second shared")
        // Replacement of a resolved registration (and of its aliases).
        let replacement = c.register(type: Tracked.self, name: "shared") { _ in Tracked(counter) }
        if aliases {
            replacement.implements(AnyObject.self, name: "alias-shared")
        }
        watch.watch(try c.tryResolve(type: Tracked.self, name: "shared"), "replacement shared")
        // Removal of a resolved registration.
        c.remove(type: LeakService.self)
        // More callbacks on a live registration (the old callback list is retired).
        replacement.onResolved { _, _ in }
        c.releaseSharedInstances()
        watch.watch(try c.tryResolve(type: Tracked.self, name: "shared"), "third shared")

        // Child containers: overrides, a parent's shared instance made through a child.
        c.register(type: Tracked.self, name: "parent-only") { _ in Tracked(counter) }
        for round in 0..<3 {
            let child = Container(parent: c)
            watch.watch(child, "child \(round)")
            child.register(type: Tracked.self, name: "graph", in: .graph) { _ in Tracked(counter) }
            child.register(type: Tracked.self, name: "shared") { _ in Tracked(counter) }
                .onResolved { r, _ in _ = try r.resolve(type: Tracked.self, name: "parent-only") }
            if aliases {
                child.register(type: LeakService.self, in: .weak) { _ in LeakServiceImp(counter) as LeakService }
                    .implements(AnyObject.self, name: "child-alias")
                watch.watch(try child.tryResolve(type: AnyObject.self, name: "child-alias"), "child alias \(round)")
            }
            watch.watch(try child.tryResolve(type: LeakNode.self), "node through child \(round)")
            watch.watch(try child.tryResolve(type: Tracked.self, name: "shared"), "child shared \(round)")
            let grandchild = Container(parent: child)
            watch.watch(grandchild, "grandchild \(round)")
            watch.watch(try grandchild.tryResolve(type: Tracked.self, name: "shared"), "grandchild shared \(round)")
        }
        // A removeAll of a child with registrations and instances.
        let cleared = Container(parent: c)
        watch.watch(cleared, "cleared child")
        cleared.register(type: Tracked.self, name: "x") { _ in Tracked(counter) }
        watch.watch(try cleared.tryResolve(type: Tracked.self, name: "x"), "cleared child's instance")
        cleared.removeAll()
        _ = weakInstance
    }

    @Test("a container and everything it created are freed after a workload with every feature, with and without aliases",
          arguments: [true, false])
    func everythingFreed(aliases: Bool) throws {
        let counter = Counter()
        let watch = LeakWatch()
        try Self.workload(counter: counter, aliases: aliases, watch: watch)
        #expect(counter.created > 0)
        #expect(afterReclamation { watch.survivors.isEmpty }, "still alive: \(watch.survivors)")
        #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) of \(counter.created) instances outlived the container")
    }

    @Test("a shared instance behind a live alias is freed with the container")
    func aliasFreedWithContainer() throws {
        let counter = Counter()
        weak var weakContainer: Container?
        weak var weakInstance: Tracked?
        do {
            let c = Container()
            weakContainer = c
            c.register(type: Tracked.self) { _ in Tracked(counter) }.implements(AnyObject.self)
            weakInstance = try c.tryResolve(type: Tracked.self)
        }
        #expect(weakContainer == nil)
        #expect(weakInstance == nil, "the shared instance outlived its container")
        #expect(afterReclamation { counter.alive == 0 })
    }

    @Test("a shared instance behind an alias is freed with the container after removeAll")
    func aliasFreedAfterRemoveAll() throws {
        let counter = Counter()
        do {
            let c = Container()
            c.register(type: Tracked.self) { _ in Tracked(counter) }.implements(AnyObject.self)
            _ = try c.tryResolve(type: AnyObject.self)
            c.removeAll()
        }
        #expect(afterReclamation { counter.alive == 0 }, "the shared instance outlived its container")
    }

    @Test("an alias removed or replaced with its registration frees its instance with the container")
    func aliasRemovedOrReplaced() throws {
        let counter = Counter()
        do {
            let c = Container()
            c.register(type: Tracked.self, name: "removed") { _ in Tracked(counter) }.implements(AnyObject.self, name: "a")
            c.register(type: Tracked.self, name: "replaced") { _ in Tracked(counter) }.implements(AnyObject.self, name: "b")
            _ = try c.tryResolve(type: AnyObject.self, name: "a")
            _ = try c.tryResolve(type: AnyObject.self, name: "b")
            c.remove(type: Tracked.self, name: "removed")
            c.register(type: Tracked.self, name: "replaced") { _ in Tracked(counter) }
            #expect(!c.isRegistered(type: AnyObject.self, name: "a"))
            #expect(!c.isRegistered(type: AnyObject.self, name: "b"))
        }
        #expect(afterReclamation { counter.alive == 0 })
    }

    @Test("factories and callbacks capturing the container weakly do not keep it alive")
    func weakCaptures() throws {
        let counter = Counter()
        weak var weakContainer: Container?
        weak var weakChild: Container?
        do {
            let c = Container()
            weakContainer = c
            c.register(type: Tracked.self, name: "dependency") { _ in Tracked(counter) }
            c.register(type: Tracked.self) { [weak c] _ in
                guard let c else { throw Failure(code: 1) }
                return try c.tryResolve(type: Tracked.self, name: "dependency")
            }
            .onResolved { [weak c] _, _ in _ = c?.isRegistered(type: Int.self) }
            let child = Container(parent: c)
            weakChild = child
            child.register(type: Tracked.self, name: "child", in: .weak) { [weak child] _ in
                _ = child?.isRegistered(type: Int.self)
                return Tracked(counter)
            }
            .onResolved { [weak child, weak c] _, _ in _ = (child, c) }
            _ = try c.tryResolve(type: Tracked.self)
            _ = try child.tryResolve(type: Tracked.self, name: "child")
            _ = try child.tryResolve(type: Tracked.self)
        }
        #expect(weakChild == nil)
        #expect(weakContainer == nil)
        #expect(afterReclamation { counter.alive == 0 })
    }

    @Test("a failed or partly failed resolve leaves no .graph instance behind")
    func failedResolveKeepsNothing() throws {
        final class Root: Sendable {
            let tracked: Tracked
            init(_ tracked: Tracked) { self.tracked = tracked }
        }
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, name: "graph", in: .graph) { _ in Tracked(counter) }
        c.register(type: Root.self, name: "throws", in: .new) { r in
            _ = try r.resolve(type: Tracked.self, name: "graph")
            throw Failure(code: 1)
        }
        c.register(type: Root.self, name: "callback throws", in: .new) { r in
            Root(try r.resolve(type: Tracked.self, name: "graph"))
        }
        .onResolved { _, _ in throw Failure(code: 2) }
        c.register(type: Root.self, name: "swallows", in: .new) { r in
            // A failure inside the graph that the factory recovers from.
            _ = try? r.resolve(type: Root.self, name: "throws")
            return Root(try r.resolve(type: Tracked.self, name: "graph"))
        }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self, name: "throws") }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Root.self, name: "callback throws") }
        #expect(counter.alive == 0, "a failed resolve kept \(counter.alive) .graph instances")
        do {
            let root = try c.tryResolve(type: Root.self, name: "swallows")
            #expect(counter.alive == 1)
            _ = root
        }
        #expect(counter.alive == 0, "the resolve context kept \(counter.alive) instances")
        #expect(counter.created == 3)
    }

    @Test("released and replaced shared instances go while the container lives, each exactly once")
    func retiredInstancesGoWhileContainerLives() throws {
        let counter = Counter()
        weak var firstWeak: Tracked?
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        firstWeak = try c.tryResolve(type: Tracked.self)
        for _ in 0..<100 {
            c.releaseSharedInstances()
            _ = try c.tryResolve(type: Tracked.self)
            c.register(type: Tracked.self) { _ in Tracked(counter) }
            _ = try c.tryResolve(type: Tracked.self)
        }
        #expect(afterReclamation { firstWeak == nil })
        // The current registration's instance is the only one left.
        #expect(afterReclamation { counter.alive == 1 }, "\(counter.alive) alive")
        #expect(counter.created == 201)
        #expect(counter.deinitialised == 200)
    }

    @Test("a dropped child frees its own instances while the parent lives")
    func childFreedBeforeParent() throws {
        let parentCounter = Counter()
        let childCounter = Counter()
        let parent = Container()
        parent.register(type: Tracked.self, name: "parent") { _ in Tracked(parentCounter) }
        weak var weakChild: Container?
        do {
            let child = Container(parent: parent)
            weakChild = child
            child.register(type: Tracked.self, name: "child") { _ in Tracked(childCounter) }
            child.register(type: Tracked.self, name: "weak", in: .weak) { _ in Tracked(childCounter) }
            _ = try child.tryResolve(type: Tracked.self, name: "child")
            _ = try child.tryResolve(type: Tracked.self, name: "parent")  // lives in the parent
            let held = try child.tryResolve(type: Tracked.self, name: "weak")
            child.releaseSharedInstances()
            _ = try child.tryResolve(type: Tracked.self, name: "child")
            _ = held
        }
        #expect(weakChild == nil)
        #expect(afterReclamation { childCounter.alive == 0 })
        #expect(parentCounter.alive == 1, "the parent's shared instance stays with the parent")
        #expect(parent.resolve(type: Tracked.self, name: "parent").serial == 1)
    }
}
