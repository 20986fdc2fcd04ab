import Synchronization
import Testing
import Syringe

@Suite("resolveAll")
struct ResolveAllTests {
    // MARK: Fixtures (nested so their names cannot clash with other files)

    fileprivate protocol Plugin: AnyObject {
        var id: String { get }
    }

    fileprivate final class NamedPlugin: Plugin, Sendable {
        let id: String
        let tracked: Tracked?
        init(_ id: String, counter: Counter? = nil) {
            self.id = id
            tracked = counter.map(Tracked.init)
        }
    }

    fileprivate final class Host {
        let plugins: [Plugin]
        let favourite: Plugin
        init(plugins: [Plugin], favourite: Plugin) {
            self.plugins = plugins
            self.favourite = favourite
        }
    }

    private func ids(_ plugins: [Plugin]) -> [String] {
        plugins.map(\.id)
    }

    // MARK: Tests

    @Test("in a scope made from a scope, each .scoped instance is that scope's own, sync and async")
    func nestedScopesHaveTheirOwnInstances() async throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, name: "a", in: .scoped) { _ in Tracked(counter) }
        let outer = app.makeScope()
        let outerOne = try outer.tryResolve(type: Tracked.self, name: "a")
        let inner = outer.makeScope()
        let all = try inner.tryResolveAll(type: Tracked.self)
        let innerOne = try inner.tryResolve(type: Tracked.self, name: "a")
        #expect(all.count == 1 && all.first === innerOne && innerOne !== outerOne)
        let other = outer.makeScope()
        let allAsync = try await other.resolveAllAsync(type: Tracked.self)
        let otherOne = try other.tryResolve(type: Tracked.self, name: "a")
        #expect(allAsync.count == 1 && allAsync.first === otherOne)
        #expect(allAsync.first !== outerOne)
        #expect(try outer.tryResolveAll(type: Tracked.self).map(ObjectIdentifier.init) == [ObjectIdentifier(outerOne)])
    }

    @Test("an open child of a closed container returns its own existing instances, and fails on what it would create")
    func openChildOfAClosedContainer() async throws {
        let counter = Counter()
        let app = Container()
        let child = Container(parent: app)
        child.register(type: Tracked.self, name: "own") { _ in Tracked(counter) }
        let own = try child.tryResolve(type: Tracked.self, name: "own")
        try await app.close()
        #expect(try child.tryResolve(type: Tracked.self, name: "own") === own)
        #expect(try child.tryResolveAll(type: Tracked.self).map(ObjectIdentifier.init) == [ObjectIdentifier(own)])
        #expect(try await child.resolveAllAsync(type: Tracked.self).map(ObjectIdentifier.init) == [ObjectIdentifier(own)])
        // One the closed container registers would be created: that fails.
        let other = Container()
        other.register(type: Tracked.self, name: "parent's", in: .new) { _ in Tracked(counter) }
        let otherChild = Container(parent: other)
        try await other.close()
        expectResolutionError(.closed) { try otherChild.tryResolveAll(type: Tracked.self) }
    }

    @Test("the walk stops at a closed ancestor, as a resolve's does: nothing of its ancestors is returned")
    func closedAncestorInTheMiddle() async throws {
        let counter = Counter()
        let root = Container()
        root.register(type: Tracked.self) { _ in Tracked(counter) }
        _ = try root.tryResolve(type: Tracked.self)
        let middle = Container(parent: root)
        let leaf = Container(parent: middle)
        try await middle.close()
        expectResolutionError(.closed) { try leaf.tryResolve(type: Tracked.self) }
        #expect(try leaf.tryResolveAll(type: Tracked.self).isEmpty)
        #expect(try await leaf.resolveAllAsync(type: Tracked.self).isEmpty)
    }

    @Test("one instance per registration, named and unnamed, in registration order")
    func registrationOrder() throws {
        let c = Container()
        c.register(type: Plugin.self, name: "b") { _ in NamedPlugin("b") }
        c.register(type: Plugin.self) { _ in NamedPlugin("unnamed") }
        c.register(type: Plugin.self, name: "a") { _ in NamedPlugin("a") }
        c.register(type: Plugin.self, name: "c") { _ in NamedPlugin("c") }
        #expect(ids(c.resolveAll(type: Plugin.self)) == ["b", "unnamed", "a", "c"])
        #expect(ids(try c.tryResolveAll(type: Plugin.self)) == ["b", "unnamed", "a", "c"])
        let inferred: [Plugin] = c.resolveAll()
        #expect(ids(inferred) == ["b", "unnamed", "a", "c"])
    }

    @Test("re-registering a name keeps its position; removing drops it")
    func replaceAndRemoveKeepOrder() {
        let c = Container()
        c.register(type: Plugin.self, name: "a") { _ in NamedPlugin("a") }
        c.register(type: Plugin.self, name: "b") { _ in NamedPlugin("b") }
        c.register(type: Plugin.self, name: "c") { _ in NamedPlugin("c") }
        c.register(type: Plugin.self, name: "a") { _ in NamedPlugin("a2") }
        c.remove(type: Plugin.self, name: "b")
        c.register(type: Plugin.self, name: "d") { _ in NamedPlugin("d") }
        #expect(ids(c.resolveAll(type: Plugin.self)) == ["a2", "c", "d"])
    }

    @Test("only registrations of exactly this type")
    func onlyThisType() {
        let c = Container()
        c.register(type: Plugin.self, name: "p") { _ in NamedPlugin("p") }
        c.register(type: NamedPlugin.self, name: "concrete") { _ in NamedPlugin("concrete") }
        c.register(type: Plugin?.self, name: "optional") { _ in NamedPlugin("optional") }
        #expect(ids(c.resolveAll(type: Plugin.self)) == ["p"])
        #expect(c.resolveAll(type: NamedPlugin.self).map(\.id) == ["concrete"])
    }

    @Test("empty when nothing is registered")
    func emptyWhenNone() throws {
        let c = Container()
        #expect(c.resolveAll(type: Plugin.self).isEmpty)
        #expect(try c.tryResolveAll(type: Plugin.self).isEmpty)
        c.register(type: Plugin.self) { _ in NamedPlugin("x") }
        c.removeAll()
        #expect(c.resolveAll(type: Plugin.self).isEmpty)
    }

    @Test("registrations with runtime arguments are not included")
    func argumentsExcluded() {
        let c = Container()
        let counter = Counter()
        c.register(type: Plugin.self, name: "plain") { _ in NamedPlugin("plain") }
        c.register(type: Plugin.self, name: "plain") { (_: Resolver, id: String) in NamedPlugin(id, counter: counter) }
        c.register(type: Plugin.self, name: "args") { (_: Resolver, id: String, n: Int) in NamedPlugin(id, counter: counter) }
        #expect(ids(c.resolveAll(type: Plugin.self)) == ["plain"])
        #expect(counter.created == 0, "argument factories never ran")
    }

    @Test("includes the parent's registrations, the root's first")
    func includesParents() {
        let root = Container()
        root.register(type: Plugin.self, name: "root") { _ in NamedPlugin("root") }
        let middle = Container(parent: root)
        middle.register(type: Plugin.self, name: "middle") { _ in NamedPlugin("middle") }
        let leaf = Container(parent: middle)
        leaf.register(type: Plugin.self, name: "leaf") { _ in NamedPlugin("leaf") }
        #expect(ids(leaf.resolveAll(type: Plugin.self)) == ["root", "middle", "leaf"])
        #expect(ids(middle.resolveAll(type: Plugin.self)) == ["root", "middle"], "a parent never sees its children")
        let empty = Container(parent: root)
        #expect(ids(empty.resolveAll(type: Plugin.self)) == ["root"])
    }

    @Test("a child's registration with the parent's name replaces it in the parent's position")
    func childOverridesInPlace() {
        let parent = Container()
        parent.register(type: Plugin.self, name: "a") { _ in NamedPlugin("parent a") }
        parent.register(type: Plugin.self) { _ in NamedPlugin("parent unnamed") }
        parent.register(type: Plugin.self, name: "c") { _ in NamedPlugin("parent c") }
        let child = Container(parent: parent)
        child.register(type: Plugin.self, name: "d") { _ in NamedPlugin("child d") }
        child.register(type: Plugin.self, name: "c") { _ in NamedPlugin("child c") }
        child.register(type: Plugin.self) { _ in NamedPlugin("child unnamed") }
        #expect(ids(child.resolveAll(type: Plugin.self)) == ["parent a", "child unnamed", "child c", "child d"])
        #expect(ids(parent.resolveAll(type: Plugin.self)) == ["parent a", "parent unnamed", "parent c"])
    }

    @Test("overrides across three generations keep the root's order")
    func threeGenerations() {
        let root = Container()
        root.register(type: Plugin.self, name: "a") { _ in NamedPlugin("root a") }
        root.register(type: Plugin.self, name: "b") { _ in NamedPlugin("root b") }
        let middle = Container(parent: root)
        middle.register(type: Plugin.self, name: "m") { _ in NamedPlugin("middle m") }
        middle.register(type: Plugin.self, name: "b") { _ in NamedPlugin("middle b") }
        let leaf = Container(parent: middle)
        leaf.register(type: Plugin.self, name: "m") { _ in NamedPlugin("leaf m") }
        leaf.register(type: Plugin.self, name: "a") { _ in NamedPlugin("leaf a") }
        #expect(ids(leaf.resolveAll(type: Plugin.self)) == ["leaf a", "middle b", "leaf m"])
    }

    @Test("scopes are respected: shared instances are those resolve returns, .new ones are new")
    func scopesRespected() throws {
        let parent = Container()
        let counter = Counter()
        parent.register(type: Plugin.self, name: "parent shared") { _ in NamedPlugin("parent shared", counter: counter) }
        let c = Container(parent: parent)
        c.register(type: Plugin.self, name: "shared") { _ in NamedPlugin("shared", counter: counter) }
        c.register(type: Plugin.self, name: "new", in: .new) { _ in NamedPlugin("new", counter: counter) }
        let first = c.resolveAll(type: Plugin.self)
        let second = c.resolveAll(type: Plugin.self)
        #expect(ids(first) == ["parent shared", "shared", "new"])
        try #require(first.count == 3 && second.count == 3)
        #expect(first[0] === parent.resolve(type: Plugin.self, name: "parent shared"))
        #expect(first[1] === c.resolve(type: Plugin.self, name: "shared"))
        #expect(first[0] === second[0])
        #expect(first[1] === second[1])
        #expect(first[2] !== second[2])
        #expect(counter.created == 4)
    }

    @Test(".weak instances are shared with resolve while held")
    func weakRespected() {
        let c = Container()
        let counter = Counter()
        c.register(type: Plugin.self, name: "weak", in: .weak) { _ in NamedPlugin("weak", counter: counter) }
        let held = c.resolve(type: Plugin.self, name: "weak")
        #expect(c.resolveAll(type: Plugin.self).first === held)
        #expect(counter.created == 1)
    }

    @Test("tryResolveAll throws the failure of one factory")
    func tryResolveAllThrows() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Plugin.self, name: "ok", in: .new) { _ in NamedPlugin("ok", counter: counter) }
        c.register(type: Plugin.self, name: "bad", in: .new) { _ -> Plugin in throw Failure(code: 3) }
        let error = expectResolutionError(.factoryFailed(Failure(code: 3))) { try c.tryResolveAll(type: Plugin.self) }
        #expect(error?.name == "bad")
        c.remove(type: Plugin.self, name: "bad")
        #expect(ids(try c.tryResolveAll(type: Plugin.self)) == ["ok"])
    }

    @Test("tryResolveAll reports a missing dependency of one registration with its path")
    func tryResolveAllMissingDependency() throws {
        let c = Container()
        c.register(type: Plugin.self, name: "needs") { r in NamedPlugin(try r.resolve(type: String.self, name: "id")) }
        let error = try #require(expectResolutionError(.notRegistered) { try c.tryResolveAll(type: Plugin.self) })
        #expect(error.path.last == "String[\"id\"]")
    }

    @Test("Resolver.resolveAll inside a factory joins the object graph")
    func resolverResolveAll() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Plugin.self, name: "x", in: .graph) { _ in NamedPlugin("x", counter: counter) }
        c.register(type: Plugin.self, name: "y") { _ in NamedPlugin("y") }
        c.register(type: Host.self, in: .new) { r in
            Host(plugins: try r.resolveAll(type: Plugin.self), favourite: try r.resolve(type: Plugin.self, name: "x"))
        }
        let host = try c.tryResolve(type: Host.self)
        #expect(ids(host.plugins) == ["x", "y"])
        try #require(host.plugins.count == 2)
        #expect(host.plugins[0] === host.favourite, ".graph instance shared within the graph")
        #expect(host.plugins[1] === c.resolve(type: Plugin.self, name: "y"))
        let other = try c.tryResolve(type: Host.self)
        #expect(other.favourite !== host.favourite)
        #expect(counter.created == 2)
    }

    /// As documented: `resolveAll` from outside a resolve is one resolve
    /// per element, so the elements' `.graph` dependencies are their own.
    @Test("resolveAll from outside a resolve builds each element in a graph of its own")
    func eachElementItsOwnGraph() async throws {
        final class Shared: Sendable {}
        final class UsingShared: Plugin, Sendable {
            let id: String, shared: Shared
            init(_ id: String, _ shared: Shared) { (self.id, self.shared) = (id, shared) }
        }
        let c = Container()
        c.register(type: Shared.self, in: .graph) { _ in Shared() }
        c.register(type: Plugin.self, name: "a", in: .new) { r in UsingShared("a", try r.resolve()) }
        c.register(type: Plugin.self, name: "b", in: .new) { r in UsingShared("b", try r.resolve()) }
        for plugins in [try c.tryResolveAll(type: Plugin.self), try await c.resolveAllAsync(type: Plugin.self)] {
            let shared = plugins.compactMap { ($0 as? UsingShared)?.shared }
            try #require(shared.count == 2)
            #expect(shared[0] !== shared[1])
        }
    }

    @Test("Resolver.resolveAll in a child resolves the child's view")
    func resolverResolveAllInChild() throws {
        let parent = Container()
        parent.register(type: Plugin.self, name: "p") { _ in NamedPlugin("p") }
        parent.register(type: Host.self, in: .new) { r in
            Host(plugins: try r.resolveAll(), favourite: try r.resolve(type: Plugin.self, name: "p"))
        }
        let child = Container(parent: parent)
        child.register(type: Plugin.self, name: "c") { _ in NamedPlugin("c") }
        #expect(ids(try child.tryResolve(type: Host.self).plugins) == ["p", "c"], ".new factories resolve from the asked container")
        #expect(ids(try parent.tryResolve(type: Host.self).plugins) == ["p"])
    }

    @Test("aliases made with implements are included for the alias type")
    func aliasesIncluded() {
        let c = Container()
        c.register(type: Plugin.self, name: "direct") { _ in NamedPlugin("direct") }
        c.register(type: NamedPlugin.self) { _ in NamedPlugin("forwarded") }.implements(Plugin.self, name: "alias")
        let all = c.resolveAll(type: Plugin.self)
        #expect(ids(all) == ["direct", "forwarded"])
        #expect(all.last === c.resolve(type: NamedPlugin.self))
    }

    @Test("value types", arguments: [0, 1, 5, 40])
    func valueTypes(_ count: Int) {
        let c = Container()
        for index in 0..<count {
            c.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        #expect(c.resolveAll(type: Int.self) == Array(0..<count))
    }

    @Test("order survives many removals")
    func orderAfterManyRemovals() {
        let c = Container()
        for index in 0..<100 {
            c.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        for index in 0..<100 where index % 4 != 0 {
            c.remove(type: Int.self, name: "n\(index)")
        }
        c.register(type: Int.self, name: "n4", dependency: -4)
        c.register(type: Int.self, name: "late", dependency: 1_000)
        let expected = stride(from: 0, to: 100, by: 4).map { $0 == 4 ? -4 : $0 } + [1_000]
        #expect(c.resolveAll(type: Int.self) == expected)
    }
}
