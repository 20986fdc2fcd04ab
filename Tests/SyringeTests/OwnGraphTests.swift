import Synchronization
import Testing
import Syringe

/// Within one resolve each container has its own object graph. A `.shared`,
/// `.weak` or `.scoped` instance is built by its own container (its factory
/// resolves from there); when a resolve through another container (a child,
/// a scope's child) makes it, its factory builds in its container's graph: a
/// `.graph` instance that resolve built may hold the other container's
/// registrations, and kept inside the instance it would reach every later
/// resolve. The same holds for a container a factory asks directly. Built
/// through its own container, the instance shares the graph as any other.
@Suite("One object graph per container in a resolve")
struct OwnGraphTests {
    final class Dependency: Sendable {
        let label: String
        init(_ label: String) { self.label = label }
    }
    final class PerGraph: Sendable {
        let dependency: Dependency
        init(dependency: Dependency) { self.dependency = dependency }
    }
    final class Cached: Sendable {
        let perGraph: PerGraph
        init(perGraph: PerGraph) { self.perGraph = perGraph }
    }
    final class Root: Sendable {
        let perGraph: PerGraph
        let cached: Cached
        init(perGraph: PerGraph, cached: Cached) {
            self.perGraph = perGraph
            self.cached = cached
        }
    }

    final class Pair: Sendable {
        let first: PerGraph, second: PerGraph
        init(_ first: PerGraph, _ second: PerGraph) { (self.first, self.second) = (first, second) }
    }
    final class BeforeAndAfter: Sendable {
        let before: PerGraph, pair: Pair, after: PerGraph
        init(before: PerGraph, pair: Pair, after: PerGraph) { (self.before, self.pair, self.after) = (before, pair, after) }
    }
    final class Holder: Sendable {}
    final class Other: Sendable {
        let perGraph: PerGraph
        init(perGraph: PerGraph) { self.perGraph = perGraph }
    }
    final class Both: Sendable {
        let cached: Cached, other: Other
        init(cached: Cached, other: Other) { (self.cached, self.other) = (cached, other) }
    }
    /// A cycle closed by property injection (`onResolved`).
    final class Server: @unchecked Sendable {
        var client: Client?
    }
    final class Client: Sendable {
        unowned let server: Server   // the server holds its client: no cycle to leak
        init(server: Server) { self.server = server }
    }
    final class Service: Sendable {
        let server: Server
        init(server: Server) { self.server = server }
    }

    /// An app whose `Root` builds a `.graph` service, then a `Cached` one in
    /// `scope` that needs the same service, and a child that overrides the
    /// service's dependency.
    static func app(_ scope: Scope) -> (app: Container, child: Container) {
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ in Dependency("live") }
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
        app.register(type: Cached.self, in: scope) { r in Cached(perGraph: try r.resolve()) }
        app.register(type: Root.self, in: .new) { r in Root(perGraph: try r.resolve(), cached: try r.resolve()) }
        let child = Container(parent: app)
        child.register(type: Dependency.self, in: .new) { _ in Dependency("fake") }
        return (app, child)
    }

    /// Before, the parent's singleton got (and kept) the `.graph` instance
    /// the child's resolve had built, made with the child's override.
    @Test("a parent's .shared or .weak instance built in a child's resolve does not get the child's .graph instance",
          arguments: [Scope.shared, .weak])
    func cached(_ scope: Scope) throws {
        let (app, child) = Self.app(scope)
        let root = try child.tryResolve(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
        #expect(try app.tryResolve(type: Cached.self) === root.cached)
    }

    @Test("a .scoped instance built in a resolve through the scope's child does not get the child's .graph instance")
    func scopedThroughAScopesChild() async throws {
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ in Dependency("live") }
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
        app.register(type: Cached.self, in: .scoped) { r in Cached(perGraph: try r.resolve()) }
        app.register(type: Root.self, in: .new) { r in Root(perGraph: try r.resolve(), cached: try r.resolve()) }
        let scope = app.makeScope()
        let child = Container(parent: scope)
        child.register(type: Dependency.self, in: .new) { _ in Dependency("fake") }
        let root = try child.tryResolve(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
        #expect(try scope.tryResolve(type: Cached.self) === root.cached)
        try await scope.close()
    }

    @Test("a parent's singleton resolved from a child's factory through the parent itself gets its own graph too")
    func throughTheParentDirectly() throws {
        let (app, child) = Self.app(.shared)
        child.register(type: Root.self, in: .new) { [unowned app] r in
            Root(perGraph: try r.resolve(), cached: try app.tryResolve())
        }
        let root = try child.tryResolve(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
    }

    @Test("built through its own container, a singleton shares the resolve's graph")
    func sameContainerSharesTheGraph() throws {
        let (app, _) = Self.app(.shared)
        let root = try app.tryResolve(type: Root.self)
        #expect(root.cached.perGraph === root.perGraph)
    }

    @Test("the instance's own graph is one graph: its dependencies share it, and the resolve's graph goes on after it")
    func itsGraphIsOneGraph() throws {
        let (app, child) = Self.app(.shared)
        app.register(type: Pair.self) { r in Pair(try r.resolve(), try r.resolve(type: Cached.self).perGraph) }
        app.register(type: BeforeAndAfter.self, in: .new) { r in
            BeforeAndAfter(before: try r.resolve(), pair: try r.resolve(), after: try r.resolve())
        }
        let outer = try child.tryResolve(type: BeforeAndAfter.self)
        #expect(outer.pair.first === outer.pair.second)
        #expect(outer.pair.first.dependency.label == "live")
        #expect(outer.before === outer.after)
        #expect(outer.before.dependency.label == "fake")
    }

    @Test("two of the parent's singletons made in one child's resolve share the parent's graph")
    func oneGraphPerContainer() throws {
        let (app, child) = Self.app(.shared)
        app.register(type: Other.self) { r in Other(perGraph: try r.resolve()) }
        app.register(type: Both.self, in: .new) { r in Both(cached: try r.resolve(), other: try r.resolve()) }
        let both = try child.tryResolve(type: Both.self)
        #expect(both.cached.perGraph === both.other.perGraph)
        #expect(both.cached.perGraph.dependency.label == "live")
    }

    @Test("the graph a singleton was built in is released when the resolve ends")
    func itsGraphEndsWithTheResolve() throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        app.register(type: Holder.self) { r in
            _ = try r.resolve(type: Tracked.self)   // used while building, not kept
            return Holder()
        }
        let child = Container(parent: app)
        child.register(type: Int.self, in: .new) { r in
            _ = try r.resolve(type: Holder.self)
            return 0
        }
        _ = try child.tryResolve(type: Int.self)
        #expect(counter.created == 1)
        #expect(counter.alive == 0)
    }

    /// Property injection through `onResolved` closes a cycle of `.graph`
    /// services: the callback's resolve must find the instance of the graph
    /// that built the one it configures.
    @Test("onResolved callbacks of what a singleton's graph built resolve in that graph")
    func callbacksResolveInTheirGraph() throws {
        let app = Container()
        app.register(type: Server.self, in: .graph) { _ in Server() }
            .onResolved { r, server in server.client = try r.resolve(type: Client.self) }
        app.register(type: Client.self, in: .graph) { r in Client(server: try r.resolve()) }
        app.register(type: Service.self) { r in Service(server: try r.resolve()) }
        let child = Container(parent: app)
        child.register(type: Int.self, in: .new) { r in
            _ = try r.resolve(type: Server.self)   // the child's graph has a Server too
            _ = try r.resolve(type: Service.self)
            return 0
        }
        _ = try child.tryResolve(type: Int.self)
        let service = try app.tryResolve(type: Service.self)
        #expect(service.server.client?.server === service.server)
    }

    @Test("a cycle through an instance built in its own graph is still a cycle, with its whole path")
    func cyclesAcrossTheGraphs() throws {
        final class Loop: Sendable {}
        final class Back: Sendable {}
        let app = Container()
        app.register(type: Loop.self) { r in _ = try r.resolve(type: Back.self); return Loop() }
        app.register(type: Back.self, in: .new) { r in _ = try r.resolve(type: Loop.self); return Back() }
        let child = Container(parent: app)
        let error = try #require(expectResolutionError(.cycle) { try child.tryResolve(type: Back.self) })
        #expect(error.path == ["Back", "Loop", "Back"])
    }

    @Test("onResolved callbacks of what the own graph built run when the whole resolve has finished")
    func callbacksRunAtTheEnd() throws {
        let log = Locked<[String]>([])
        let (app, child) = Self.app(.shared)
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
            .onResolved { _, perGraph in log.withLock { $0.append("configured \(perGraph.dependency.label)") } }
        child.register(type: Root.self, in: .new) { r in
            let root = Root(perGraph: try r.resolve(), cached: try r.resolve())
            log.withLock { $0.append("built root") }
            return root
        }
        _ = try child.tryResolve(type: Root.self)
        #expect(log.withLock { $0 } == ["built root", "configured fake", "configured live"])
    }

    final class Late: @unchecked Sendable {
        let perGraph: PerGraph
        var late: PerGraph?
        init(perGraph: PerGraph) { self.perGraph = perGraph }
    }

    @Test("a singleton's own onResolved callback resolves in its container's graph too",
          arguments: [Scope.shared, .weak])
    func ownCallbackInItsGraph(_ scope: Scope) throws {
        let (app, child) = Self.app(.shared)
        app.register(type: Late.self, in: scope) { r in Late(perGraph: try r.resolve()) }
            .onResolved { r, late in late.late = try r.resolve(type: PerGraph.self) }
        let kept = Locked<Late?>(nil)
        child.register(type: Int.self, in: .new) { r in
            _ = try r.resolve(type: PerGraph.self)   // the child's graph has one
            let late = try r.resolve(type: Late.self)
            kept.withLock { $0 = late }
            return 0
        }
        _ = try child.tryResolve(type: Int.self)
        let late = try #require(kept.withLock { $0 })
        #expect(late.perGraph.dependency.label == "live")
        #expect(late.late === late.perGraph)
    }

    @Test("a factory that asks a child of its container directly: the child's resolve does not reach the container's singletons")
    func factoryAskingAChildDirectly() throws {
        final class Outer: Sendable {
            let root: Root
            init(root: Root) { self.root = root }
        }
        let (app, _) = Self.app(.shared)
        app.register(type: Outer.self, in: .new) { [unowned app] _ in
            let child = Container(parent: app)
            child.register(type: Dependency.self, in: .new) { _ in Dependency("fake") }
            return Outer(root: try child.tryResolve(type: Root.self))
        }
        let outer = try app.tryResolve(type: Outer.self)
        #expect(outer.root.perGraph.dependency.label == "fake")
        #expect(outer.root.cached.perGraph.dependency.label == "live")
    }

    @Test("an alias of a .graph service resolved through a child directly builds in the child's graph")
    func aliasThroughAChildDirectly() throws {
        final class Outer: Sendable {
            let viaAlias: PerGraph, cached: Cached
            init(viaAlias: PerGraph, cached: Cached) { (self.viaAlias, self.cached) = (viaAlias, cached) }
        }
        let (app, _) = Self.app(.shared)
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
            .implements(AnyObject.self, name: "perGraph")
        app.register(type: Outer.self, in: .new) { [unowned app] r in
            let child = Container(parent: app)
            child.register(type: Dependency.self, in: .new) { _ in Dependency("fake") }
            let viaAlias = try child.tryResolve(type: AnyObject.self, name: "perGraph")
            return Outer(viaAlias: try #require(viaAlias as? PerGraph), cached: try r.resolve())
        }
        let outer = try app.tryResolve(type: Outer.self)
        #expect(outer.viaAlias.dependency.label == "fake")
        #expect(outer.cached.perGraph.dependency.label == "live")
    }

    /// Its graph's entry holds the container until the resolve ends; it is
    /// let go of once the context is idle, so that a `deinit` of what it
    /// held that resolves starts a resolve of its own.
    @Test("a child a factory let go of, whose graph the resolve made, is freed when the resolve ends; its instances' deinits may resolve")
    func droppedChildFreedAtTheEnd() throws {
        final class Resolving: Sendable {
            let onDeinit: @Sendable () -> Void
            init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class WeakContainer: @unchecked Sendable {
            weak var container: Container?
        }
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ in Dependency("live") }
        let resolvedInDeinit = Locked<String?>(nil)
        let callbackRuns = Atomic(0)
        let dropped = WeakContainer()
        app.register(type: Int.self, in: .new) { [unowned app] _ in
            let child = Container(parent: app)
            child.register(type: Resolving.self) { _ in
                Resolving { resolvedInDeinit.withLock { $0 = try? app.tryResolve(type: Dependency.self).label } }
            }
            _ = try child.tryResolve(type: Resolving.self)   // built in the child's graph of this resolve
            dropped.container = child
            return 0
        }
        .onResolved { _, _ in callbackRuns.add(1, ordering: .relaxed) }
        _ = try app.tryResolve(type: Int.self)
        #expect(dropped.container == nil)
        #expect(resolvedInDeinit.withLock { $0 } == "live")
        #expect(callbackRuns.load(ordering: .relaxed) == 1, "the deinit's resolve ran this resolve's callbacks again")
    }

    /// Each scope's graph was found by the scope's address, and a scope made
    /// after one freed could take its address, and its graph.
    @Test("scopes made and freed one after another inside one resolve each get a graph of their own")
    func freedScopesDoNotShareAGraph() throws {
        final class ItemID: Sendable {
            let id: Int
            init(_ id: Int) { self.id = id }
        }
        final class Context: Sendable {
            let item: ItemID
            init(item: ItemID) { self.item = item }
        }
        final class Handler: Sendable {
            let context: Context
            init(context: Context) { self.context = context }
        }
        let app = Container()
        app.register(type: Context.self, in: .graph) { r in Context(item: try r.resolve()) }
        app.register(type: Handler.self, in: .scoped) { r in Handler(context: try r.resolve()) }
        app.register(type: [Int].self, in: .new) { [unowned app] _ in
            try (0..<8).map { id in
                let scope = app.makeScope()
                scope.register(type: ItemID.self, instance: ItemID(id))
                return try scope.tryResolve(type: Handler.self).context.item.id
            }
        }
        #expect(try app.tryResolve(type: [Int].self) == Array(0..<8))
    }

    /// A `deinit` run as one container's graph ends needs another's that
    /// had ended already: it was reopened, and its instance outlived the
    /// resolve, handed to the next one.
    @Test("a deinit that needs an ended graph while the graphs end does not keep its instance past the resolve")
    func teardownDoesNotReopenAnEndedGraph() throws {
        final class First: Sendable {}
        final class Second: Sendable {}
        final class Third: Sendable {}
        final class Serial: Sendable {
            let serial: Int
            init(_ serial: Int) { self.serial = serial }
        }
        final class Dying: Sendable {
            let onDeinit: @Sendable () -> Void
            init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let counter = Counter()
        let grandparent = Container()
        grandparent.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        grandparent.register(type: First.self) { _ in First() }
        grandparent.register(type: Second.self) { r in _ = try r.resolve(type: Tracked.self); return Second() }
        grandparent.register(type: Serial.self) { r in Serial(try r.resolve(type: Tracked.self).serial) }
        let parent = Container(parent: grandparent)
        parent.register(type: Dying.self, in: .graph) { [unowned grandparent] _ in
            Dying { _ = try? grandparent.tryResolve(type: Second.self) }
        }
        parent.register(type: Third.self) { r in _ = try r.resolve(type: Dying.self); return Third() }
        let child = Container(parent: parent)
        child.register(type: Int.self, in: .new) { r in
            _ = try r.resolve(type: First.self)   // the grandparent's graph, first
            _ = try r.resolve(type: Third.self)   // the parent's: its Dying needs the grandparent's again
            return 0
        }
        _ = try child.tryResolve(type: Int.self)
        #expect(counter.alive == 0)
        child.register(type: Int.self, in: .new) { r in try r.resolve(type: Serial.self).serial }
        #expect(try child.tryResolve(type: Int.self) == 2, "a later resolve got the earlier resolve's instance")
    }

    // MARK: - Async

    /// `app(_:)` with async factories.
    static func asyncApp(_ scope: Scope) -> (app: Container, child: Container) {
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ async in Dependency("live") }
        app.register(type: PerGraph.self, in: .graph) { (r: Resolver) async throws in PerGraph(dependency: try await r.resolve()) }
        app.register(type: Cached.self, in: scope) { (r: Resolver) async throws in Cached(perGraph: try await r.resolve()) }
        app.register(type: Root.self, in: .new) { (r: Resolver) async throws in
            Root(perGraph: try await r.resolve(), cached: try await r.resolve())
        }
        let child = Container(parent: app)
        child.register(type: Dependency.self, in: .new) { _ async in Dependency("fake") }
        return (app, child)
    }

    @Test("async: a parent's singleton built in a child's resolve does not get the child's .graph instance",
          arguments: [Scope.shared, .weak])
    func asyncCached(_ scope: Scope) async throws {
        let (app, child) = Self.asyncApp(scope)
        let root = try await child.resolveAsync(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
        #expect(try await app.resolveAsync(type: Cached.self) === root.cached)
    }

    @Test("async: a .scoped instance built in a resolve through the scope's child does not get the child's .graph instance")
    func asyncScoped() async throws {
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ async in Dependency("live") }
        app.register(type: PerGraph.self, in: .graph) { (r: Resolver) async throws in PerGraph(dependency: try await r.resolve()) }
        app.register(type: Cached.self, in: .scoped) { (r: Resolver) async throws in Cached(perGraph: try await r.resolve()) }
        app.register(type: Root.self, in: .new) { (r: Resolver) async throws in
            Root(perGraph: try await r.resolve(), cached: try await r.resolve())
        }
        let scope = app.makeScope()
        let child = Container(parent: scope)
        child.register(type: Dependency.self, in: .new) { _ async in Dependency("fake") }
        let root = try await child.resolveAsync(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
        try await scope.close()
    }

    @Test("async: built through its own container, a singleton shares the resolve's graph")
    func asyncSameContainerSharesTheGraph() async throws {
        let (app, _) = Self.asyncApp(.shared)
        let root = try await app.resolveAsync(type: Root.self)
        #expect(root.cached.perGraph === root.perGraph)
    }

    @Test("async: a synchronous singleton and .graph service inside an async resolve through a child")
    func bridged() async throws {
        let (_, child) = Self.app(.shared)
        child.register(type: Root.self, in: .new) { (r: Resolver) async throws in
            Root(perGraph: try await r.resolve(), cached: try await r.resolve())
        }
        let root = try await child.resolveAsync(type: Root.self)
        #expect(root.perGraph.dependency.label == "fake")
        #expect(root.cached.perGraph.dependency.label == "live")
    }

    @Test("async: the instance's own graph is one graph, and the resolve's graph goes on after it")
    func asyncItsGraphIsOneGraph() async throws {
        let (app, child) = Self.asyncApp(.shared)
        app.register(type: Pair.self) { (r: Resolver) async throws in
            Pair(try await r.resolve(), try await r.resolve(type: Cached.self).perGraph)
        }
        app.register(type: BeforeAndAfter.self, in: .new) { (r: Resolver) async throws in
            BeforeAndAfter(before: try await r.resolve(), pair: try await r.resolve(), after: try await r.resolve())
        }
        let outer = try await child.resolveAsync(type: BeforeAndAfter.self)
        #expect(outer.pair.first === outer.pair.second)
        #expect(outer.pair.first.dependency.label == "live")
        #expect(outer.before === outer.after)
        #expect(outer.before.dependency.label == "fake")
    }

    @Test("async: child tasks of the instance's factory share its own graph")
    func asyncChildTasksShareItsGraph() async throws {
        let (app, child) = Self.asyncApp(.shared)
        // `.weak`, and not kept: each resolve makes one.
        app.register(type: Pair.self, in: .weak) { (r: Resolver) async throws in
            async let first = r.resolve(type: PerGraph.self)
            async let second = r.resolve(type: PerGraph.self)
            return Pair(try await first, try await second)
        }
        child.register(type: Root.self, in: .new) { (r: Resolver) async throws in
            let perGraph = try await r.resolve(type: PerGraph.self)
            let pair = try await r.resolve(type: Pair.self)
            #expect(pair.first === pair.second)
            #expect(pair.first !== perGraph)
            return Root(perGraph: pair.first, cached: Cached(perGraph: perGraph))
        }
        for _ in 0..<50 {
            let root = try await child.resolveAsync(type: Root.self)
            #expect(root.perGraph.dependency.label == "live")
            #expect(root.cached.perGraph.dependency.label == "fake")
        }
    }

    @Test("async: two of the parent's singletons made in one child's resolve share the parent's graph, with synchronous ones too")
    func asyncOneGraphPerContainer() async throws {
        let (app, child) = Self.asyncApp(.shared)
        // Synchronous, with the graph's service resolved by the synchronous engine.
        app.register(type: Other.self) { r in Other(perGraph: try r.resolve()) }
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
        app.register(type: Dependency.self, in: .new) { _ in Dependency("live") }
        child.register(type: Dependency.self, in: .new) { _ in Dependency("fake") }
        app.register(type: Both.self, in: .new) { (r: Resolver) async throws in
            Both(cached: try await r.resolve(), other: try await r.resolve())
        }
        let both = try await child.resolveAsync(type: Both.self)
        #expect(both.cached.perGraph === both.other.perGraph)
        #expect(both.cached.perGraph.dependency.label == "live")
    }

    @Test("async: onResolved callbacks of what a singleton's graph built resolve in that graph")
    func asyncCallbacksResolveInTheirGraph() async throws {
        let app = Container()
        // Synchronous, as the callback's resolves are: bridged into the async graphs.
        app.register(type: Server.self, in: .graph) { _ in Server() }
            .onResolved { r, server in server.client = try r.resolve(type: Client.self) }
        app.register(type: Client.self, in: .graph) { r in Client(server: try r.resolve()) }
        app.register(type: Service.self) { (r: Resolver) async throws in Service(server: try await r.resolve()) }
        let child = Container(parent: app)
        child.register(type: Int.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Server.self)   // the child's graph has a Server too
            _ = try await r.resolve(type: Service.self)
            return 0
        }
        _ = try await child.resolveAsync(type: Int.self)
        let service = try await app.resolveAsync(type: Service.self)
        #expect(service.server.client?.server === service.server)
    }

    @Test("async: the graph a singleton was built in is released when the resolve ends")
    func asyncItsGraphEndsWithTheResolve() async throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .graph) { _ async in Tracked(counter) }
        app.register(type: Holder.self) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Tracked.self)
            return Holder()
        }
        let child = Container(parent: app)
        child.register(type: Int.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Holder.self)
            return 0
        }
        _ = try await child.resolveAsync(type: Int.self)
        #expect(counter.created == 1)
        #expect(counter.alive == 0)
    }

    @Test("async: a synchronous singleton's own onResolved callback, bridged, resolves in its container's graph")
    func bridgedOwnCallbackInItsGraph() async throws {
        let (app, child) = Self.app(.shared)
        app.register(type: Late.self) { r in Late(perGraph: try r.resolve()) }
            .onResolved { r, late in late.late = try r.resolve(type: PerGraph.self) }
        child.register(type: Int.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: PerGraph.self)
            _ = try await r.resolve(type: Late.self)
            return 0
        }
        _ = try await child.resolveAsync(type: Int.self)
        let late = try app.tryResolve(type: Late.self)
        #expect(late.perGraph.dependency.label == "live")
        #expect(late.late === late.perGraph)
    }

    @Test("async: a main-actor singleton made for a child's resolve, and its own callback, use its container's graph")
    func mainActorSingleton() async throws {
        let (app, child) = Self.app(.shared)
        app.register(type: Late.self, in: .shared, isolatedTo: MainActor.self) { r in Late(perGraph: try r.resolve()) }
            .onResolved { r, late in late.late = try r.resolve(type: PerGraph.self) }
        child.register(type: Int.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: PerGraph.self)
            _ = try await r.resolve(type: Late.self)
            return 0
        }
        _ = try await child.resolveAsync(type: Int.self)
        let late = try await app.resolveAsync(type: Late.self)
        #expect(late.perGraph.dependency.label == "live")
        #expect(late.late === late.perGraph)
    }

    @Test("async: children made and freed one after another by synchronous factories each get a graph of their own")
    func asyncFreedChildrenDoNotShareAGraph() async throws {
        final class Labels: Sendable {
            let first: String, second: String
            init(_ first: String, _ second: String) { (self.first, self.second) = (first, second) }
        }
        let app = Container()
        app.register(type: Dependency.self, in: .new) { _ in Dependency("live") }
        app.register(type: PerGraph.self, in: .graph) { r in PerGraph(dependency: try r.resolve()) }
        @Sendable func throughAChild(_ label: String, of app: Container) throws -> String {
            let child = Container(parent: app)
            child.register(type: Dependency.self, in: .new) { _ in Dependency(label) }
            child.register(type: Cached.self) { r in Cached(perGraph: try r.resolve()) }
            return try child.tryResolve(type: Cached.self).perGraph.dependency.label
        }
        app.register(type: String.self, name: "first", in: .new) { [unowned app] _ in try throughAChild("first", of: app) }
        app.register(type: String.self, name: "second", in: .new) { [unowned app] _ in try throughAChild("second", of: app) }
        app.register(type: Labels.self, in: .new) { (r: Resolver) async throws in
            Labels(try await r.resolve(type: String.self, name: "first"), try await r.resolve(type: String.self, name: "second"))
        }
        let labels = try await app.resolveAsync(type: Labels.self)
        #expect(labels.first == "first")
        #expect(labels.second == "second")
    }
}
