import Foundation
import Synchronization
import Testing
import Syringe

/// Something async to make: a connection whose factory awaits.
final class Connection: Sendable {
    let tracked: Tracked
    let label: String
    init(_ counter: Counter, label: String = "") async {
        await Task.yield()
        tracked = Tracked(counter)
        self.label = label
    }

    /// One made without awaiting, for synchronous factories.
    init(sync: Void) {
        tracked = Tracked(Counter())
        label = "sync"
    }
}

/// Built from a connection, asynchronously.
final class Repository: Sendable {
    let connection: Connection
    let tracked: Tracked
    init(connection: Connection, counter: Counter) {
        self.connection = connection
        self.tracked = Tracked(counter)
    }
}

/// Two dependencies that may be the same `.graph` instance.
final class TwoConnections: Sendable {
    let first: Connection
    let second: Connection
    init(first: Connection, second: Connection) {
        self.first = first
        self.second = second
    }
}

/// An actor with an async initialiser, for autoregistration.
actor ConnectionCache {
    let connection: Connection
    init(connection: Connection) async {
        await Task.yield()
        self.connection = connection
    }
}

protocol ConnectionStore: Sendable {}
extension Connection: ConnectionStore {}

@Suite("Async factories")
struct AsyncFactoryTests {
    // MARK: The strvcom package's async behaviours

    @Test("the default scope is shared: an async factory runs once, every resolve gets its instance")
    func defaultScopeShared() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(counter) }
        let first = try await c.resolveAsync(type: Connection.self)
        let second: Connection = try await c.resolveAsync()
        #expect(first === second)
        #expect(counter.created == 1)
    }

    @Test(".new gives a distinct instance each time")
    func newDistinct() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self, in: .new) { _ async in await Connection(counter) }
        let first = try await c.resolveAsync(type: Connection.self)
        let second = try await c.resolveAsync(type: Connection.self)
        #expect(first !== second)
        #expect(counter.created == 2)
    }

    @Test("an explicit type registers the protocol, not the concrete type")
    func explicitType() async throws {
        let c = Container()
        c.register(type: (any ConnectionStore).self) { _ async in await Connection(Counter(), label: "s") }
        let store = try await c.resolveAsync(type: (any ConnectionStore).self)
        #expect((store as? Connection)?.label == "s")
        await expectAsyncResolutionError(.notRegistered) { try await c.resolveAsync(type: Connection.self) }
    }

    @Test("an unregistered type throws notRegistered, with the path from the async request")
    func unregisteredThrows() async throws {
        let c = Container()
        c.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        let error = try #require(await expectAsyncResolutionError(.notRegistered) {
            try await c.resolveAsync(type: Repository.self)
        })
        #expect(error.path == ["Repository", "Connection"])
    }

    @Test("runtime arguments of any arity, and a mismatch names the registered signature")
    func arguments() async throws {
        let c = Container()
        c.register(type: String.self) { (_: Resolver, month: Int) async in
            await Task.yield()
            return "report \(month)"
        }
        c.register(type: String.self, name: "three") { (_: Resolver, a: Int, b: String, flag: Bool) async in
            "\(a) \(b) \(flag)"
        }
        #expect(try await c.resolveAsync(type: String.self, arguments: 11) == "report 11")
        #expect(try await c.resolveAsync(type: String.self, name: "three", arguments: 1, "x", true) == "1 x true")
        await expectAsyncResolutionError(.argumentMismatch(registered: ["(Int)"])) {
            try await c.resolveAsync(type: String.self, arguments: "eleven")
        }
    }

    @Test("re-registering replaces the factory")
    func reRegistration() async throws {
        let c = Container()
        c.register(type: String.self, in: .new) { _ async in "first" }
        c.register(type: String.self, in: .new) { _ async in "second" }
        #expect(try await c.resolveAsync(type: String.self) == "second")
    }

    @Test("releaseSharedInstances makes the next async resolve create a new instance")
    func releaseShared() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(counter) }
        let first = try await c.resolveAsync(type: Connection.self)
        c.releaseSharedInstances()
        let second = try await c.resolveAsync(type: Connection.self)
        #expect(first !== second)
        #expect(counter.created == 2)
    }

    @Test("shared and new mixed, with arguments: each .new report gets the one shared connection")
    func mixingSharedAndNewWithArguments() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(counter) }
        c.register(type: Repository.self) { (r: Resolver, label: String) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        let a = try await c.resolveAsync(type: Repository.self, arguments: "a")
        let b = try await c.resolveAsync(type: Repository.self, arguments: "b")
        #expect(a !== b)
        #expect(a.connection === b.connection)
        #expect(counter.created == 1)
    }

    // MARK: Sync and async together

    @Test("a synchronous registration resolved asynchronously is the instance a sync resolve gets")
    func syncRegistrationResolvedAsync() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        let asynchronously = try await c.resolveAsync(type: Tracked.self)
        let synchronously = try c.tryResolve(type: Tracked.self)
        #expect(asynchronously === synchronously)
        #expect(counter.created == 1)
    }

    @Test("an async registration resolved synchronously is registeredAsync, saying how to resolve it")
    func asyncResolvedSynchronously() throws {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter()) }
        c.register(type: Repository.self, in: .new) { r in Repository(connection: try r.resolve(), counter: Counter()) }
        let direct = try #require(expectResolutionError(.registeredAsync) { try c.tryResolve(type: Connection.self) })
        #expect(direct.description.contains("resolveAsync(type: Connection.self)"))
        let nested = try #require(expectResolutionError(.registeredAsync) { try c.tryResolve(type: Repository.self) })
        #expect(nested.path == ["Repository", "Connection"])
        #expect(!c.isRegistered(type: Int.self))
    }

    @Test("calling today's synchronous API in an async function compiles unchanged and works")
    func syncCallsInAsyncFunction() async throws {
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(Counter()) }
        // No `await` on these: they must keep meaning the synchronous calls.
        let first = try c.tryResolve(type: Tracked.self)
        let second: Tracked = c.resolve()
        let third = c.resolveIfRegistered(type: Tracked.self)
        let all = try c.tryResolveAll(type: Tracked.self)
        #expect(first === second && second === third && all.count == 1)
        await Task.yield()
    }

    @Test("a synchronous factory inside an async graph: its path starts at the async request")
    func bridgedPath() async throws {
        let c = Container()
        c.register(type: Tracked.self, in: .new) { r in
            _ = try r.resolve(type: Dog.self)
            return Tracked(Counter())
        }
        c.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Tracked.self)
            return Repository(connection: await Connection(Counter()), counter: Counter())
        }
        let error = try #require(await expectAsyncResolutionError(.notRegistered) {
            try await c.resolveAsync(type: Repository.self)
        })
        #expect(error.path == ["Repository", "Tracked", "Dog"])
    }

    // MARK: Scopes

    @Test(".graph is shared within one async graph, across suspensions and child tasks, and new per resolve")
    func graphWithinAsyncGraph() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self, in: .graph) { _ async in await Connection(counter) }
        c.register(type: TwoConnections.self, in: .new) { (r: Resolver) async throws in
            async let first: Connection = r.resolve()
            async let second: Connection = r.resolve()
            return TwoConnections(first: try await first, second: try await second)
        }
        let one = try await c.resolveAsync(type: TwoConnections.self)
        let two = try await c.resolveAsync(type: TwoConnections.self)
        #expect(one.first === one.second)
        #expect(two.first === two.second)
        #expect(one.first !== two.first)
        #expect(counter.created == 2)
    }

    @Test("a synchronous .graph registration is shared by the synchronous factories of one async graph")
    func bridgedGraph() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { (r: Resolver) async throws in
            let first: Tracked = try await r.resolve()
            await Task.yield()
            let second: Tracked = try await r.resolve()
            return Pair(first: first, second: second)
        }
        let pair = try await c.resolveAsync(type: Pair<Tracked>.self)
        #expect(pair.first === pair.second)
        #expect(counter.created == 1)
    }

    @Test(".weak: the live instance while someone holds it, a new one after")
    func weak() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self, in: .weak) { _ async in await Connection(counter) }
        var held: Connection? = try await c.resolveAsync(type: Connection.self)
        #expect(try await c.resolveAsync(type: Connection.self) === held)
        #expect(counter.created == 1)
        held = nil
        #expect(counter.alive == 0)
        _ = try await c.resolveAsync(type: Connection.self)
        #expect(counter.created == 2)
    }

    @Test(".scoped: one instance per scope, disposed by its close, a captive async singleton refused")
    func scoped() async throws {
        let counter = Counter()
        let disposed = Atomic(0)
        let app = Container()
        app.register(type: Connection.self, in: .scoped) { _ async in await Connection(counter) }
            .onDispose { (_: Connection) async in disposed.add(1, ordering: .relaxed) }
        let scope = app.makeScope()
        let first = try await scope.resolveAsync(type: Connection.self)
        let second = try await scope.resolveAsync(type: Connection.self)
        #expect(first === second)
        let other = app.makeScope()
        #expect(try await other.resolveAsync(type: Connection.self) !== first)
        try await scope.close()
        try await other.close()
        #expect(disposed.load(ordering: .relaxed) == 2)

        await expectAsyncResolutionError(.noScope) { try await app.resolveAsync(type: Connection.self) }
        app.register(type: Repository.self) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        await expectAsyncResolutionError(.captiveDependency(captor: "Repository", captorScope: .shared)) {
            try await app.makeScope().resolveAsync(type: Repository.self)
        }
        // A .weak instance is shared past a request too.
        app.register(type: Pair<Connection>.self, in: .weak) { (r: Resolver) async throws in
            Pair(first: try await r.resolve(), second: try await r.resolve())
        }
        await expectAsyncResolutionError(.captiveDependency(captor: "Pair<Connection>", captorScope: .weak)) {
            try await app.makeScope().resolveAsync(type: Pair<Connection>.self)
        }
    }

    @Test("a child container resolves its parent's async registration and its own overrides")
    func childContainer() async throws {
        let parent = Container()
        parent.register(type: Connection.self) { _ async in await Connection(Counter(), label: "parent") }
        parent.register(type: String.self, in: .new) { (r: Resolver) async throws in
            (try await r.resolve(type: Connection.self)).label
        }
        let child = Container(parent: parent)
        #expect(try await child.resolveAsync(type: String.self) == "parent")
        child.register(type: Connection.self) { _ async in await Connection(Counter(), label: "child") }
        #expect(try await child.resolveAsync(type: String.self) == "child")
        #expect(try await parent.resolveAsync(type: String.self) == "parent")
    }

    // MARK: Hooks, aliases, resolveAll, autoregistration

    @Test("onResolved runs once the async graph is built; when it throws, the shared instance is taken back")
    func onResolved() async throws {
        let counter = Counter()
        let calls = Atomic(0)
        let fail = Atomic(true)
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(counter) }
            .onResolved { _, _ in
                calls.add(1, ordering: .relaxed)
                if fail.load(ordering: .relaxed) { throw Failure(code: 7) }
            }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 7))) { try await c.resolveAsync(type: Connection.self) }
        fail.store(false, ordering: .relaxed)
        let first = try await c.resolveAsync(type: Connection.self)
        let second = try await c.resolveAsync(type: Connection.self)
        #expect(first === second)
        #expect(counter.created == 2)
        #expect(calls.load(ordering: .relaxed) == 2)
    }

    @Test("an async .new registration asked for from outside a factory ends its own resolve: callbacks after its graph, a throwing one fails it, a failing factory leaves nothing pending")
    func outermostNew() async throws {
        let order = Locked<[String]>([])
        let fail = Atomic(false)
        let c = Container()
        c.register(type: Connection.self, in: .new) { _ async in await Connection(Counter(), label: "inner") }
            .onResolved { _, _ in order.withLock { $0.append("connection") } }
        c.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        .onResolved { _, _ in
            order.withLock { $0.append("repository") }
            if fail.load(ordering: .relaxed) { throw Failure(code: 9) }
        }
        let repository = try await c.resolveAsync(type: Repository.self)
        #expect(repository.connection.label == "inner")
        #expect(order.withLock { $0 } == ["connection", "repository"])

        fail.store(true, ordering: .relaxed)
        let error = await expectAsyncResolutionError(.factoryFailed(Failure(code: 9))) { try await c.resolveAsync(type: Repository.self) }
        #expect(error?.path.last?.contains("Repository") == true)
        fail.store(false, ordering: .relaxed)
        #expect(try await c.resolveIfRegisteredAsync(type: Repository.self) != nil)
        #expect(order.withLock { $0 } == ["connection", "repository", "connection", "repository", "connection", "repository"])

        // A factory that fails after its dependency's callback was queued:
        // the next resolve runs every callback once, none left over.
        let failing = Container()
        failing.register(type: Connection.self, in: .new) { _ async in await Connection(Counter()) }
            .onResolved { _, _ in order.withLock { $0.append("queued") } }
        failing.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Connection.self)
            throw Failure(code: 4)
        }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 4))) { try await failing.resolveAsync(type: Repository.self) }
        #expect(!order.withLock { $0 }.contains("queued"))
    }

    @Test("implements: an alias of an async registration resolves its instance asynchronously")
    func aliases() async throws {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter(), label: "aliased") }
            .implements((any ConnectionStore).self)
        let store = try await c.resolveAsync(type: (any ConnectionStore).self)
        #expect(store as? Connection === (try await c.resolveAsync(type: Connection.self)))

        let fresh = Container()
        fresh.register(type: Connection.self) { _ async in await Connection(Counter()) }
            .implements((any ConnectionStore).self)
        expectResolutionError(.registeredAsync) { try fresh.tryResolve(type: (any ConnectionStore).self) }
    }

    @Test("resolveAllAsync resolves sync and async registrations, in resolveAll's order")
    func resolveAll() async throws {
        let c = Container()
        c.register(type: String.self, name: "a") { _ in "sync" }
        c.register(type: String.self, name: "b") { _ async in "async" }
        expectResolutionError(.registeredAsync) { try c.tryResolveAll(type: String.self) }
        #expect(try await c.resolveAllAsync(type: String.self) == ["sync", "async"])
        // Once the async .shared instance exists, a synchronous resolve returns it.
        #expect(try c.tryResolveAll(type: String.self) == ["sync", "async"])
    }

    @Test("autoregister takes an async initialiser, its parameters resolved asynchronously")
    func autoregistration() async throws {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter(), label: "auto") }
        c.autoregister(type: ConnectionCache.self, initializer: ConnectionCache.init(connection:))
        let cache = try await c.resolveAsync(type: ConnectionCache.self)
        #expect(cache.connection.label == "auto")
        #expect(try await c.resolveAsync(type: ConnectionCache.self) === cache)
    }

    @Test("a function, not a closure, registers as an async factory")
    func functionAsFactory() async throws {
        @Sendable func connect(_ r: Resolver) async throws -> Connection {
            await Connection(Counter(), label: "function")
        }
        let c = Container()
        c.register(type: Connection.self, factory: connect)
        c.register(type: Connection.self, name: "method", factory: Self.connectLabelled)
        #expect(try await c.resolveAsync(type: Connection.self).label == "function")
        #expect(try await c.resolveAsync(type: Connection.self, name: "method").label == "method")
    }

    @Sendable static func connectLabelled(_ r: Resolver) async -> Connection {
        await Connection(Counter(), label: "method")
    }

    @Test("resolveIfRegisteredAsync: nil only when nothing is registered")
    func ifRegistered() async throws {
        let c = Container()
        #expect(try await c.resolveIfRegisteredAsync(type: Connection.self) == nil)
        c.register(type: Connection.self) { _ async in await Connection(Counter()) }
        #expect(try await c.resolveIfRegisteredAsync(type: Connection.self) != nil)
    }

    @Test("when one callback throws, only the instances whose callbacks did not all run are taken back")
    func failingCallbackKeepsTheOthers() async throws {
        let connections = Counter()
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(connections) }
            .onResolved { _, _ in }
        c.register(type: Repository.self) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        .onResolved { _, _ in throw Failure(code: 3) }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 3))) { try await c.resolveAsync(type: Repository.self) }
        // The connection's callback ran before the repository's failed: it stays.
        _ = try await c.resolveAsync(type: Connection.self)
        #expect(connections.created == 1)
    }

    @Test("a resolver kept past its resolve starts a resolve of its own: no false cycle, no stale graph")
    func keptResolver() async throws {
        let kept = Locked<Resolver?>(nil)
        let graphs = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ async in Tracked(graphs) }
        c.register(type: Pair<Tracked>.self, in: .new) { (r: Resolver) async throws in
            kept.withLock { $0 = r }
            return Pair(first: try await r.resolve(), second: try await r.resolve())
        }
        let pair = try await c.resolveAsync(type: Pair<Tracked>.self)
        #expect(pair.first === pair.second)
        let resolver = try #require(kept.withLock { $0 })
        // The graph it was part of is gone: a new .graph instance, and the
        // registration that kept the resolver can be resolved through it.
        #expect(try await resolver.resolve(type: Tracked.self) !== pair.first)
        _ = try await resolver.resolve(type: Pair<Tracked>.self)
        #expect(graphs.created == 3)
        // The kept resolver holds the container, whose factory holds `kept`:
        // let go of it, or the test itself leaks that cycle.
        kept.withLock { $0 = nil }
    }

    @Test("a resolver kept by an outermost factory with no callbacks or graph still ends its resolve")
    func keptResolverOfPlainOutermostFactory() async throws {
        // The outermost frame of such a resolve has nothing to finish, and
        // goes straight back to its pool when nothing else holds it. Here
        // the kept resolver holds it: its resolve must still end, or the
        // resolves made through the resolver later would run below a frame
        // still building the same registration (a false cycle), or below a
        // frame another resolve took from the pool.
        let kept = Locked<Resolver?>(nil)
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .new) { (r: Resolver) async in
            kept.withLock { $0 = r }
            return Tracked(counter)
        }
        let first = try await c.resolveAsync(type: Tracked.self)
        let resolver = try #require(kept.withLock { $0 })
        // Other resolves take and give back frames meanwhile.
        for _ in 0..<10 {
            _ = try await c.resolveAsync(type: Tracked.self)
        }
        let again = try await resolver.resolve(type: Tracked.self)
        #expect(again !== first)
        #expect(counter.created == 12)
        kept.withLock { $0 = nil }
    }

    @Test("resolvers kept past their resolves, their registrations replaced, resolve from other tasks")
    func keptResolversOutliveTheirRegistrations() async throws {
        let kept = Locked<[Resolver]>([])
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .new) { _ async in Tracked(counter) }
        for _ in 0..<50 {
            c.register(type: Pair<Tracked>.self, in: .new) { (r: Resolver) async throws in
                kept.withLock { $0.append(r) }
                return Pair(first: try await r.resolve(), second: try await r.resolve())
            }
            _ = try await c.resolveAsync(type: Pair<Tracked>.self)
        }
        // Each registration that kept a resolver was replaced since: only the
        // kept frames hold them.
        let resolvers = kept.withLock { $0 }
        kept.withLock { $0 = [] }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for resolver in resolvers {
                group.addTask {
                    _ = try await resolver.resolve(type: Tracked.self)
                    _ = try await resolver.resolve(type: Pair<Tracked>.self)
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.created == 50 * 2 + 50 * 3)
        // Each resolve of the pair kept its resolver, which holds the
        // container, whose factory holds `kept`: let go of them, or the test
        // itself leaks that cycle.
        kept.withLock { $0 = [] }
    }

    @Test("a resolver an async factory keeps holds its container after the caller lets it go")
    func keptResolverHoldsItsContainer() async throws {
        let kept = Locked<Resolver?>(nil)
        weak var released: Container?
        do {
            let c = Container()
            released = c
            c.register(type: Tracked.self, in: .new) { _ async in Tracked(Counter()) }
            c.register(type: Pair<Tracked>.self, in: .new) { (r: Resolver) async throws in
                kept.withLock { $0 = r }
                return Pair(first: try await r.resolve(), second: try await r.resolve())
            }
            _ = try await c.resolveAsync(type: Pair<Tracked>.self)
        }
        // The engine lent the container to the resolver's frame; the frame
        // holds it once the factory kept the resolver.
        #expect(released != nil, "a kept resolver let its container go")
        let resolver = try #require(kept.withLock { $0 })
        _ = try await resolver.resolve(type: Tracked.self)
        kept.withLock { $0 = nil }
        _ = consume resolver
        #expect(released == nil, "a dropped resolver kept its container")
    }

    @Test("a resolver a .shared or .scoped async factory keeps holds its container and scope after the caller lets them go")
    func keptResolverOfSharedFactoryHoldsItsContainer() async throws {
        let kept = Locked<[Resolver]>([])
        weak var releasedApp: Container?
        weak var releasedScope: Container?
        do {
            let app = Container()
            releasedApp = app
            app.register(type: Tracked.self, in: .new) { _ async in Tracked(Counter()) }
            app.register(type: Pair<Tracked>.self) { (r: Resolver) async throws in
                kept.withLock { $0.append(r) }
                return Pair(first: try await r.resolve(), second: try await r.resolve())
            }
            app.register(type: Pair<Tracked>.self, name: "per request", in: .scoped) { (r: Resolver) async throws in
                kept.withLock { $0.append(r) }
                return Pair(first: try await r.resolve(), second: try await r.resolve())
            }
            let scope = app.makeScope()
            releasedScope = scope
            _ = try await app.resolveAsync(type: Pair<Tracked>.self)
            _ = try await scope.resolveAsync(type: Pair<Tracked>.self, name: "per request")
        }
        // The engine lent each factory's frame its container (the scope, for
        // the `.scoped` one); the frame holds it once the factory kept the
        // resolver.
        #expect(releasedApp != nil, "a kept resolver let the app go")
        #expect(releasedScope != nil, "a kept resolver let its scope go")
        let resolvers = kept.withLock { $0 }
        #expect(resolvers.count == 2)
        for resolver in resolvers {
            _ = try await resolver.resolve(type: Tracked.self)
        }
        // The app's `.shared` pair holds nothing of the resolvers, but its
        // factory holds `kept`: emptied, the last references go.
        kept.withLock { $0 = [] }
        _ = consume resolvers
        #expect(releasedScope == nil, "a dropped resolver kept its scope")
        #expect(releasedApp == nil, "a dropped resolver kept the app")
    }

    // MARK: A resolve that outlives the resolve it was part of

    /// Counts the callbacks run on it.
    final class Configurable: Sendable {
        let configured = Atomic(0)
    }

    /// A container whose `Tracked` factory starts a task that resolves a
    /// `Configurable` through the factory's resolver, and returns once that
    /// resolve has entered its own: the task's resolve is part of the
    /// container's resolve of `Tracked`, and outlives it until `release`
    /// opens. `late` gets the task.
    private static func lateResolve(in scope: Scope, late: Locked<Task<Configurable, any Error>?>, release: Gate,
                                    fail: Locked<Bool>? = nil) -> Container {
        let started = Gate()
        let c = Container()
        c.register(type: Configurable.self, in: scope) { _ async in
            started.open()
            await release.wait()
            return Configurable()
        }
        .onResolved { _, instance in
            instance.configured.add(1, ordering: .relaxed)
            if fail?.withLock({ $0 }) == true { throw Failure(code: 3) }
        }
        c.register(type: Tracked.self, in: .new) { (r: Resolver) async throws in
            late.withLock { $0 = Task { try await r.resolve(type: Configurable.self) } }
            await started.wait()
            return Tracked(Counter())
        }
        return c
    }

    @Test("a resolve started through a resolver before its resolve returned, and finished after, runs its callbacks once",
          arguments: [Scope.new, .graph, .shared, .weak])
    func resolveOutlivingItsOuterResolve(scope: Scope) async throws {
        let late = Locked<Task<Configurable, any Error>?>(nil)
        let release = Gate()
        let c = Self.lateResolve(in: scope, late: late, release: release)
        _ = try await c.resolveAsync(type: Tracked.self)
        release.open()
        let instance = try await #require(late.withLock { $0 }).value
        #expect(instance.configured.load(ordering: .relaxed) == 1)
        if scope == .shared {
            // Kept configured, and not configured again.
            #expect(try await c.resolveAsync(type: Configurable.self) === instance)
            #expect(instance.configured.load(ordering: .relaxed) == 1)
        }
        // The task holds the resolver, which holds the container, whose
        // factory holds `late`: let go of it, or the test leaks that cycle.
        late.withLock { $0 = nil }
    }

    @Test("such a resolve whose callback throws fails, and its .shared instance is taken back")
    func resolveOutlivingItsOuterResolveFails() async throws {
        let late = Locked<Task<Configurable, any Error>?>(nil)
        let release = Gate()
        let fail = Locked(true)
        let c = Self.lateResolve(in: .shared, late: late, release: release, fail: fail)
        _ = try await c.resolveAsync(type: Tracked.self)
        release.open()
        let task = try #require(late.withLock { $0 })
        let error = await expectAsyncResolutionError(.factoryFailed(Failure(code: 3))) { try await task.value }
        #expect(error?.path == ["Tracked", "Configurable"])
        #expect(error?.description.contains("its onResolved callback threw Failure(code: 3)") == true)
        fail.withLock { $0 = false }
        let next = try await c.resolveAsync(type: Configurable.self)
        #expect(next.configured.load(ordering: .relaxed) == 1)
        #expect(try await c.resolveAsync(type: Configurable.self) === next)
        late.withLock { $0 = nil }
    }

    @Test("such a resolve leaves nothing behind: its instance and the container go once let go", arguments: [Scope.new, .shared])
    func resolveOutlivingItsOuterResolveLeaksNothing(scope: Scope) async throws {
        weak var released: Container?
        weak var instance: Configurable?
        do {
            let late = Locked<Task<Configurable, any Error>?>(nil)
            let release = Gate()
            let c = Self.lateResolve(in: scope, late: late, release: release)
            released = c
            _ = try await c.resolveAsync(type: Tracked.self)
            release.open()
            let task = try #require(late.withLock { $0 })
            instance = try await task.value
            late.withLock { $0 = nil }
        }
        #expect(instance == nil, "the ended resolve kept the instance")
        #expect(released == nil, "the ended resolve kept the container")
    }

    // MARK: Cycles

    @Test("a cycle through async factories is reported with its path")
    func cycle() async throws {
        let c = Container()
        c.register(type: Connection.self) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Repository.self)
            return await Connection(Counter())
        }
        c.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        let error = try #require(await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Repository.self) })
        #expect(error.path == ["Repository", "Connection", "Repository"])
    }

    @Test("a cycle through a synchronous factory back to an async one is a cycle, not a hang")
    func cycleThroughSync() async throws {
        let c = Container()
        c.register(type: Connection.self) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Tracked.self)
            return await Connection(Counter())
        }
        c.register(type: Tracked.self, in: .new) { r in
            _ = try r.resolve(type: Connection.self)
            return Tracked(Counter())
        }
        let error = try #require(await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Connection.self) })
        #expect(error.path == ["Connection", "Tracked", "Connection"])
    }

    @Test("a cycle between two tasks creating two .shared instances fails both, and never hangs")
    func crossTaskCycle() async throws {
        let c = Container()
        let started = Atomic(0)
        c.register(type: Connection.self) { (r: Resolver) async throws in
            started.add(1, ordering: .relaxed)
            while started.load(ordering: .relaxed) < 2 { await Task.yield() }
            _ = try await r.resolve(type: Repository.self)
            return await Connection(Counter())
        }
        c.register(type: Repository.self) { (r: Resolver) async throws in
            started.add(1, ordering: .relaxed)
            while started.load(ordering: .relaxed) < 2 { await Task.yield() }
            return Repository(connection: try await r.resolve(), counter: Counter())
        }
        async let first = Result<Connection, ResolutionError>(catching: { () async throws(ResolutionError) in try await c.resolveAsync() })
        async let second = Result<Repository, ResolutionError>(catching: { () async throws(ResolutionError) in try await c.resolveAsync() })
        let outcomes = await (first.failureReason, second.failureReason)
        #expect(outcomes.0 == "cycle" && outcomes.1 == "cycle")
    }

    @Test("an async factory that resolves its own shared instance directly from the container is a cycle")
    func selfWaitThroughContainer() async throws {
        let c = Container()
        c.register(type: Connection.self) { [unowned c] _ async throws in
            _ = try await c.resolveAsync(type: Connection.self)
            return await Connection(Counter())
        }
        await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Connection.self) }
    }

    // MARK: Exactly once, without blocking

    @Test("1 000 tasks asking for one slow async .shared creation get one instance; nothing blocks")
    func exactlyOnceUnderContention() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Connection.self) { _ async throws in
            try await Task.sleep(for: .milliseconds(200))
            return await Connection(counter)
        }
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<1_000 {
                group.addTask { ObjectIdentifier(try await c.resolveAsync(type: Connection.self)) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(counter.created == 1)
    }

    @Test("a creation that throws caches nothing; the next resolve creates")
    func failedCreationCachesNothing() async throws {
        let attempts = Atomic(0)
        let c = Container()
        c.register(type: Connection.self) { _ async throws in
            if attempts.add(1, ordering: .relaxed).newValue == 1 { throw Failure(code: 1) }
            return await Connection(Counter())
        }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 1))) { try await c.resolveAsync(type: Connection.self) }
        let made = try await c.resolveAsync(type: Connection.self)
        #expect(try await c.resolveAsync(type: Connection.self) === made)
        #expect(attempts.load(ordering: .relaxed) == 2)
    }

    @Test("the creating task's cancellation fails it alone: the waiting tasks retry and get an instance")
    func creatorCancelled() async throws {
        let attempts = Atomic(0)
        let entered = Atomic(false)
        let c = Container()
        c.register(type: Connection.self) { _ async throws in
            if attempts.add(1, ordering: .relaxed).newValue == 1 {
                entered.store(true, ordering: .releasing)
                // Until cancelled: checked by polling, not by a long
                // `Task.sleep`, which under load was once seen to sleep on.
                while true {
                    try Task.checkCancellation()
                    await Task.yield()
                }
            }
            return await Connection(Counter())
        }
        let creator = Task { try await c.resolveAsync(type: Connection.self) }
        while !entered.load(ordering: .acquiring) { await Task.yield() }
        let waiters = (0..<10).map { _ in Task { try await c.resolveAsync(type: Connection.self) } }
        try await Task.sleep(for: .milliseconds(50))   // let the waiters start waiting
        creator.cancel()
        let created = try await waiters[0].value
        for waiter in waiters {
            #expect(try await waiter.value === created)
        }
        let failure = await creator.result
        #expect(failure.failureReason == "factoryFailed")
        #expect(attempts.load(ordering: .relaxed) == 2)
    }

    @Test("a waiting task that is cancelled stops waiting with .cancelled; the creation goes on")
    func waiterCancelled() async throws {
        let release = Atomic(false)
        let entered = Atomic(false)
        let c = Container()
        c.register(type: Connection.self) { _ async in
            entered.store(true, ordering: .releasing)
            while !release.load(ordering: .acquiring) { await Task.yield() }
            return await Connection(Counter())
        }
        let creator = Task { try await c.resolveAsync(type: Connection.self) }
        while !entered.load(ordering: .acquiring) { await Task.yield() }
        let waiter = Task { try await c.resolveAsync(type: Connection.self) }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        let waited = await waiter.result
        #expect(waited.failureReason == "cancelled")
        release.store(true, ordering: .releasing)
        _ = try await creator.value
    }
}

/// A view model: isolated to the main actor, as UI objects are.
@MainActor
final class ProfileModel {
    let connection: Connection
    /// Proves the initialiser ran on the main actor: `assumeIsolated`
    /// traps anywhere else.
    let builtOnMainActor: Bool
    init(connection: Connection) {
        self.connection = connection
        builtOnMainActor = MainActor.assumeIsolated { true }
    }
}

@Suite("Aliases of async registrations")
struct AsyncAliasTests {
    @Test("once an async .shared instance exists, a synchronous resolve of its alias returns it; before, it fails as the registration does")
    func aliasOfAnExistingAsyncSharedInstance() async throws {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter()) }.implements(AnyObject.self)
        expectResolutionError(.registeredAsync) { try c.tryResolve(type: AnyObject.self) }
        let made = try await c.resolveAsync(type: Connection.self)
        #expect(try c.tryResolve(type: AnyObject.self) === made)
        #expect(try c.tryResolveAll(type: AnyObject.self).first === made)
        #expect(try await c.resolveAsync(type: AnyObject.self) === made)
    }
}

@Suite("Main-actor factories")
struct MainActorFactoryTests {
    static func app(counter: Counter, in scope: Scope = .new) -> Container {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter()) }
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        c.register(type: ProfileModel.self, in: scope, isolatedTo: MainActor.self) { r in
            _ = try r.resolve(type: Tracked.self)
            return ProfileModel(connection: Connection(sync: ()))
        }
        return c
    }

    @Test("an alias of a main-actor registration resolves synchronously on the main actor, as the registration does",
          arguments: [Scope.new, .shared])
    @MainActor
    func aliasResolvesSynchronouslyOnMainActor(scope: Scope) async throws {
        let c = Container()
        c.register(type: ProfileModel.self, in: scope, isolatedTo: MainActor.self) { _ in ProfileModel(connection: Connection(sync: ())) }
            .implements(AnyObject.self)
        let viaAlias = try c.tryResolve(type: AnyObject.self)
        #expect(viaAlias is ProfileModel)
        if scope == .shared {
            #expect(try c.tryResolve(type: ProfileModel.self) === viaAlias)
        }
        #expect(try c.tryResolveAll(type: AnyObject.self).count == 1)
        // Off the main actor, the alias does what the registration does:
        // fails, or returns the `.shared` instance that exists.
        let elsewhere = await Task.detached { () -> String in
            do {
                _ = try c.tryResolve(type: AnyObject.self)
                return "resolved"
            } catch let error as ResolutionError {
                return "\(error.reason)"
            } catch {
                return "\(error)"
            }
        }.value
        #expect(elsewhere == (scope == .shared ? "resolved" : "isolatedToMainActor"))
    }

    @Test("resolved synchronously on the main actor, the factory runs right there")
    @MainActor
    func syncOnMainActor() throws {
        let counter = Counter()
        let c = Self.app(counter: counter)
        let model = try c.tryResolve(type: ProfileModel.self)
        #expect(model.builtOnMainActor)
        #expect(counter.created == 1)
    }

    @Test("resolved synchronously off the main actor, it is a ResolutionError that says how to resolve it, not a crash")
    func syncOffMainActor() async throws {
        let c = Self.app(counter: Counter())
        let error = try #require(await Task.detached {
            expectResolutionError(.isolatedToMainActor) { try c.tryResolve(type: ProfileModel.self) }
        }.value)
        #expect(error.description.contains("resolveAsync(type: ProfileModel.self)"))
    }

    @Test("resolved with await from a detached task, the factory runs on the main actor")
    func awaitFromAnywhere() async throws {
        let c = Self.app(counter: Counter())
        let built = try await Task.detached { () async throws -> Bool in
            let model = try await c.resolveAsync(type: ProfileModel.self)
            return model.builtOnMainActor
        }.value
        #expect(built)
    }

    @Test("resolved at once on the main actor and with await from another task, a .shared main-actor registration still has one instance")
    func sharedRacingSyncAndAsync() async throws {
        for _ in 0..<50 {
            let counter = Counter()
            let c = Self.app(counter: counter, in: .shared)
            async let fromElsewhere = Task.detached { try await ObjectIdentifier(c.resolveAsync(type: ProfileModel.self)) }.value
            let onMain = try await MainActor.run { try ObjectIdentifier(c.tryResolve(type: ProfileModel.self)) }
            let elsewhere = try await fromElsewhere
            #expect(onMain == elsewhere)
            #expect(try await MainActor.run { try ObjectIdentifier(c.tryResolve(type: ProfileModel.self)) } == onMain)
        }
    }

    @Test("an await that reached the main actor's queue while a synchronous resolve there created the instance does not create a second",
          arguments: [Scope.shared, .weak, .scoped])
    @MainActor
    func createdOnceWhileAwaitWaitsForMainActor(scope: Scope) async throws {
        let runs = Counter()
        let app = Container()
        app.register(type: ProfileModel.self, in: scope, isolatedTo: MainActor.self) { _ in
            _ = Tracked(runs)
            return ProfileModel(connection: Connection(sync: ()))
        }
        let c = scope == .scoped ? app.makeScope() : app
        let fromElsewhere = Task.detached { try await c.resolveAsync(type: ProfileModel.self) }
        // Holds the main actor: the detached resolve gets as far as waiting
        // for it. Then a synchronous resolve here creates the instance first.
        usleep(200_000)
        let onMain = try c.tryResolve(type: ProfileModel.self)
        let elsewhere = try await fromElsewhere.value
        #expect(onMain === elsewhere)
        #expect(runs.created == 1, "the factory ran \(runs.created) times")
    }

    @Test("a .shared main-actor registration is created once, whether resolved with or without await")
    @MainActor
    func sharedOnce() async throws {
        let counter = Counter()
        let c = Self.app(counter: counter, in: .shared)
        let synchronously = try c.tryResolve(type: ProfileModel.self)
        let asynchronously = try await c.resolveAsync(type: ProfileModel.self)
        #expect(synchronously === asynchronously)
        #expect(counter.created == 1)
    }

    @MainActor
    final class Panel {
        let tracked: Tracked
        init(tracked: Tracked) { self.tracked = tracked }
    }

    final class Screen: Sendable {
        let tracked: Tracked
        let model: Panel
        init(tracked: Tracked, model: Panel) {
            self.tracked = tracked
            self.model = model
        }
    }

    @Test("a .new or .graph main-actor factory awaited by an async factory joins its resolve: the .graph instances are the graph's",
          arguments: [Scope.new, .graph])
    func joinsTheAsyncGraph(scope: Scope) async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Panel.self, in: scope, isolatedTo: MainActor.self) { r in Panel(tracked: try r.resolve()) }
        c.register(type: Screen.self, in: .new) { (r: Resolver) async throws in
            Screen(tracked: try await r.resolve(), model: try await r.resolve())
        }
        let screen = try await c.resolveAsync(type: Screen.self)
        #expect(await screen.model.tracked === screen.tracked)
        #expect(counter.created == 1)
    }

    final class Door: Sendable {
        let room: Room
        init(room: Room) { self.room = room }
    }

    @MainActor
    final class Room {
        let door: Door
        init(door: Door) { self.door = door }
    }

    @Test("a cycle through a .new main-actor factory awaited by an async one is a cycle with its whole path")
    func cycleThroughMainActorFactory() async throws {
        let c = Container()
        c.register(type: Room.self, in: .new, isolatedTo: MainActor.self) { r in Room(door: try r.resolve()) }
        c.register(type: Door.self, in: .new) { (r: Resolver) async throws in Door(room: try await r.resolve()) }
        let error = try #require(await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Door.self) })
        #expect(error.path == ["Door", "Room", "Door"])
    }
}

/// A global actor of the program's own, for factories isolated to it.
@globalActor
actor BackgroundActor {
    static let shared = BackgroundActor()
}

/// Isolated to `BackgroundActor`.
@BackgroundActor
final class BackgroundWorker {
    let builtOnItsActor: Bool
    init() {
        builtOnItsActor = BackgroundActor.shared.assumeIsolated { _ in true }
    }
}

extension MainActorFactoryTests {
    @Test("a factory isolated to another global actor is an async factory: resolved with await, it runs on its actor")
    func otherGlobalActor() async throws {
        let c = Container()
        c.register(type: BackgroundWorker.self, in: .new) { @BackgroundActor r async in BackgroundWorker() }
        let worker = try await c.resolveAsync(type: BackgroundWorker.self)
        #expect(worker.builtOnItsActor)
        expectResolutionError(.registeredAsync) { try c.tryResolve(type: BackgroundWorker.self) }
    }
}

extension Result {
    /// The case name of a `ResolutionError`'s reason, for comparing outcomes.
    var failureReason: String? {
        guard case .failure(let error) = self else { return nil }
        guard let error = error as? ResolutionError else { return "\(error)" }
        return String(describing: error.reason).prefix { $0 != "(" }.description
    }
}

extension Result where Failure == ResolutionError {
    init(catching body: () async throws(ResolutionError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
