import Synchronization
import Testing
import Syringe

@Suite("Type forwarding (implements)")
struct AliasTests {
    // MARK: Fixtures (nested so their names cannot clash with other files)

    fileprivate protocol Reader: AnyObject {
        func read() -> Int
    }

    fileprivate protocol Writer: AnyObject {
        func write(_ value: Int)
    }

    fileprivate protocol Unrelated {}

    fileprivate final class Store: Reader, Writer, @unchecked Sendable {
        let tracked: Tracked?
        let seed: Int
        private var value = 0
        init(seed: Int = 0, counter: Counter? = nil) {
            self.seed = seed
            tracked = counter.map(Tracked.init)
        }
        func read() -> Int { value + seed }
        func write(_ value: Int) { self.value = value }
    }

    fileprivate final class Graph {
        let reader: Reader, writer: Writer, store: Store
        init(reader: Reader, writer: Writer, store: Store) {
            self.reader = reader
            self.writer = writer
            self.store = store
        }
    }

    // MARK: Tests

    @Test("a .shared registration is the same instance under every alias")
    func sharedAliases() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Store.self) { _ in Store(counter: counter) }
            .implements(Reader.self)
            .implements(Writer.self)
        let reader = try c.tryResolve(type: Reader.self)
        let store = c.resolve(type: Store.self)
        let writer: Writer = c.resolve()
        #expect(reader === store)
        #expect(writer === store)
        writer.write(7)
        #expect(reader.read() == 7)
        #expect(counter.created == 1)
    }

    @Test("resolving the alias first creates the shared instance that the type then returns")
    func aliasFirst() {
        let c = Container()
        let counter = Counter()
        c.register(type: Store.self) { _ in Store(counter: counter) }.implements(Reader.self)
        let reader = c.resolve(type: Reader.self)
        #expect(c.resolve(type: Store.self) === reader)
        #expect(c.resolve(type: Reader.self) === reader)
        #expect(counter.created == 1)
    }

    @Test(".graph: one instance within an object graph, another in the next graph")
    func graphAliases() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Store.self, in: .graph) { _ in Store(counter: counter) }
            .implements(Reader.self)
            .implements(Writer.self)
        c.register(type: Graph.self, in: .new) { r in
            Graph(reader: try r.resolve(), writer: try r.resolve(), store: try r.resolve())
        }
        let first = try c.tryResolve(type: Graph.self)
        #expect(first.reader === first.store)
        #expect(first.writer === first.store)
        let second = try c.tryResolve(type: Graph.self)
        #expect(second.store !== first.store)
        #expect(counter.created == 2)
        // Top-level resolves are graphs of their own.
        #expect(c.resolve(type: Reader.self) !== c.resolve(type: Reader.self))
    }

    @Test(".weak: the same instance while something holds it, a new one after")
    func weakAliases() {
        let c = Container()
        let counter = Counter()
        c.register(type: Store.self, in: .weak) { _ in Store(counter: counter) }.implements(Reader.self)
        var held: Store? = c.resolve(type: Store.self)
        #expect(c.resolve(type: Reader.self) === held)
        #expect(counter.created == 1)
        held = nil
        #expect(afterReclamation { counter.alive == 0 })
        var reader: Reader? = c.resolve(type: Reader.self)
        #expect(counter.created == 2)
        #expect(c.resolve(type: Store.self) === reader)
        reader = nil
        #expect(afterReclamation { counter.alive == 0 }, "an alias must not keep a .weak instance alive")
    }

    @Test(".new: a new instance on every resolve through the alias")
    func newAliases() {
        let c = Container()
        let counter = Counter()
        c.register(type: Store.self, in: .new) { _ in Store(counter: counter) }.implements(Reader.self)
        let a = c.resolve(type: Reader.self)
        let b = c.resolve(type: Reader.self)
        #expect(a !== b)
        #expect(a is Store)
        #expect(counter.created == 2)
    }

    @Test("a named alias of an unnamed registration, and an alias of a named one")
    func namedAliases() throws {
        let c = Container()
        c.register(type: Store.self) { _ in Store(seed: 1) }.implements(Reader.self, name: "r")
        c.register(type: Store.self, name: "two") { _ in Store(seed: 2) }.implements(Reader.self)
        #expect(try c.tryResolve(type: Reader.self, name: "r") === c.resolve(type: Store.self))
        #expect(try c.tryResolve(type: Reader.self) === c.resolve(type: Store.self, name: "two"))
        #expect(c.resolve(type: Reader.self, name: "r").read() == 1)
        #expect(c.resolve(type: Reader.self).read() == 2)
        #expect(!c.isRegistered(type: Reader.self, name: "two"))
    }

    @Test("an alias of an argument registration takes the same arguments")
    func argumentAlias() throws {
        let c = Container()
        c.register(type: Store.self) { (_: Resolver, seed: Int) in Store(seed: seed) }
            .implements(Reader.self)
        let reader = try c.tryResolve(type: Reader.self, arguments: 41)
        #expect(reader.read() == 41)
        #expect(reader is Store)
        #expect(c.isRegistered(type: Reader.self, argumentTypes: Int.self))
        #expect(!c.isRegistered(type: Reader.self))
        expectResolutionError(.argumentMismatch(registered: ["(Int)"])) { try c.tryResolve(type: Reader.self, arguments: "41") }
    }

    @Test("a named alias of an argument registration")
    func namedArgumentAlias() throws {
        let c = Container()
        c.register(type: Store.self, name: "s") { (_: Resolver, seed: Int, extra: Int) in Store(seed: seed + extra) }
            .implements(Reader.self, name: "r")
        #expect(try c.tryResolve(type: Reader.self, name: "r", arguments: 40, 2).read() == 42)
        #expect(!c.isRegistered(type: Reader.self, argumentTypes: Int.self, Int.self))
        c.remove(type: Store.self, name: "s")
        #expect(!c.isRegistered(type: Reader.self, name: "r", argumentTypes: Int.self, Int.self))
    }

    @Test("an alias goes away when its registration is removed")
    func removedWithRegistration() {
        let c = Container()
        c.register(type: Store.self) { _ in Store() }
            .implements(Reader.self)
            .implements(Writer.self, name: "w")
        #expect(c.isRegistered(type: Reader.self))
        c.remove(type: Store.self)
        #expect(!c.isRegistered(type: Store.self))
        #expect(!c.isRegistered(type: Reader.self))
        #expect(!c.isRegistered(type: Writer.self, name: "w"))
        expectResolutionError(.notRegistered) { try c.tryResolve(type: Reader.self) }
    }

    @Test("an alias of an argument registration goes away when it is removed")
    func argumentAliasRemoved() {
        let c = Container()
        c.register(type: Store.self) { (_: Resolver, seed: Int) in Store(seed: seed) }.implements(Reader.self)
        c.remove(type: Store.self)
        #expect(!c.isRegistered(type: Reader.self, argumentTypes: Int.self))
    }

    @Test("an alias goes away when its registration is replaced")
    func removedWhenReplaced() throws {
        let c = Container()
        c.register(type: Store.self) { _ in Store(seed: 1) }.implements(Reader.self)
        c.register(type: Store.self) { _ in Store(seed: 2) }
        #expect(!c.isRegistered(type: Reader.self))
        #expect(c.resolve(type: Store.self).read() == 2)
        // A new alias on the replacement forwards to it.
        c.register(type: Store.self) { _ in Store(seed: 3) }.implements(Reader.self)
        #expect(try c.tryResolve(type: Reader.self).read() == 3)
        #expect(c.resolve(type: Reader.self) === c.resolve(type: Store.self))
    }

    @Test("an alias key taken over by another registration's alias stays when the first registration goes")
    func aliasTakenOverByAnotherAlias() throws {
        final class Other: Reader { func read() -> Int { -1 } }
        let c = Container()
        c.register(type: Store.self) { _ in Store(seed: 1) }.implements(Reader.self)
        c.register(type: Other.self) { _ in Other() }.implements(Reader.self)
        #expect(try c.tryResolve(type: Reader.self).read() == -1, "the later alias replaced the earlier")
        c.remove(type: Store.self)
        #expect(c.isRegistered(type: Reader.self))
        #expect(try c.tryResolve(type: Reader.self).read() == -1)
        c.remove(type: Other.self)
        #expect(!c.isRegistered(type: Reader.self))
    }

    @Test("after releaseSharedInstances the alias yields the new shared instance")
    func aliasAfterRelease() {
        let c = Container()
        c.register(type: Store.self) { _ in Store() }.implements(Reader.self)
        let before = c.resolve(type: Reader.self)
        c.releaseSharedInstances()
        let after = c.resolve(type: Reader.self)
        #expect(after !== before)
        #expect(after === c.resolve(type: Store.self))
    }

    @Test("an alias goes away with removeAll")
    func removedWithRemoveAll() {
        let c = Container()
        c.register(type: Store.self) { _ in Store() }.implements(Reader.self)
        c.removeAll()
        #expect(!c.isRegistered(type: Reader.self))
        #expect(!c.isRegistered(type: Store.self))
    }

    @Test("a direct registration that took over the alias's key survives removing the original")
    func overriddenAliasSurvives() throws {
        let c = Container()
        c.register(type: Store.self) { _ in Store(seed: 1) }.implements(Reader.self)
        c.register(type: Reader.self) { _ in Store(seed: 9) }
        c.remove(type: Store.self)
        #expect(c.isRegistered(type: Reader.self))
        #expect(try c.tryResolve(type: Reader.self).read() == 9)
    }

    @Test("an alias to a type the instance is not throws incompatibleAlias")
    func incompatibleAlias() throws {
        let c = Container()
        c.register(type: Store.self) { _ in Store() }.implements(Unrelated.self)
        #expect(c.isRegistered(type: Unrelated.self))
        let failure = try #require(expectResolutionError(.incompatibleAlias(instanceType: "Store")) {
            try c.tryResolve(type: Unrelated.self)
        })
        #expect(ObjectIdentifier(failure.type) == ObjectIdentifier(Unrelated.self))
        #expect(failure.description.contains("Store"))
        #expect(failure.description.contains("alias"))
        // The registration itself still works, and the container is still usable.
        _ = try c.tryResolve(type: Store.self)
        expectResolutionError(.incompatibleAlias(instanceType: "Store")) { try c.tryResolve(type: Unrelated.self) }
    }

    fileprivate class Shape {}
    fileprivate final class ReadableShape: Shape, Reader {
        func read() -> Int { 4 }
    }

    /// The conversion is compiled where `implements` is called, for the
    /// registration's static type (`Shape`); what decides is the instance's
    /// dynamic type, on every resolve, as a cast in the library did.
    @Test("an alias converts by the instance's dynamic type: a subclass that conforms resolves, one that does not throws incompatibleAlias, sync and async")
    func aliasFollowsTheDynamicType() async throws {
        let c = Container()
        let readable = Atomic(true)
        c.register(type: Shape.self, in: .new) { _ in readable.load(ordering: .relaxed) ? ReadableShape() : Shape() }
            .implements(Reader.self)
        c.register(type: Shape.self, name: "async", in: .new) { (_: Resolver) async in readable.load(ordering: .relaxed) ? ReadableShape() : Shape() }
            .implements(Reader.self, name: "async")
        #expect(try c.tryResolve(type: Reader.self).read() == 4)
        #expect(try await c.resolveAsync(type: Reader.self, name: "async").read() == 4)
        readable.store(false, ordering: .relaxed)
        expectResolutionError(.incompatibleAlias(instanceType: "Shape")) { try c.tryResolve(type: Reader.self) }
        await expectAsyncResolutionError(.incompatibleAlias(instanceType: "Shape")) {
            try await c.resolveAsync(type: Reader.self, name: "async")
        }
        readable.store(true, ordering: .relaxed)
        #expect(try c.tryResolve(type: Reader.self).read() == 4)
    }

    @Test("an incompatible alias deep in a graph fails the top-level resolve")
    func incompatibleAliasNested() throws {
        struct Holder {}
        let c = Container()
        c.register(type: Store.self) { _ in Store() }.implements(Unrelated.self)
        c.register(type: Holder.self, in: .new) { r -> Holder in
            let _: Unrelated = try r.resolve()
            return Holder()
        }
        let failure = try #require(expectResolutionError(.incompatibleAlias(instanceType: "Store")) {
            try c.tryResolve(type: Holder.self)
        })
        #expect(failure.path.first == "Holder")
        #expect(failure.path.last == "Unrelated")
    }

    @Test("a failure behind an alias has the alias in its path, synchronous and async")
    func failureBehindAliasNamesIt() async throws {
        struct NeedsReader { let reader: Reader }
        let c = Container()
        c.register(type: Store.self, in: .scoped) { _ in Store() }.implements(Reader.self)
        c.register(type: NeedsReader.self, in: .new) { r in NeedsReader(reader: try r.resolve()) }
        let direct = try #require(expectResolutionError(.noScope) { try c.tryResolve(type: Reader.self) })
        #expect(direct.path == ["Reader", "Store"])
        #expect(direct.description.contains("path: Reader → Store"))
        let nested = try #require(expectResolutionError(.noScope) { try c.tryResolve(type: NeedsReader.self) })
        #expect(nested.path == ["NeedsReader", "Reader", "Store"])

        let a = Container()
        a.register(type: Store.self, in: .scoped) { (_: Resolver) async in Store() }.implements(Reader.self)
        a.register(type: NeedsReader.self, in: .new) { (r: Resolver) async throws in NeedsReader(reader: try await r.resolve()) }
        let asyncDirect = try #require(await expectAsyncResolutionError(.noScope) { try await a.resolveAsync(type: Reader.self) })
        #expect(asyncDirect.path == ["Reader", "Store"])
        let asyncNested = try #require(await expectAsyncResolutionError(.noScope) { try await a.resolveAsync(type: NeedsReader.self) })
        #expect(asyncNested.path == ["NeedsReader", "Reader", "Store"])
    }

    @Test("onResolved runs once for a .shared registration resolved through aliases")
    func onResolvedOnceForShared() {
        let calls = Atomic(0)
        let c = Container()
        c.register(type: Store.self) { _ in Store() }
            .onResolved { _, _ in calls.add(1, ordering: .relaxed) }
            .implements(Reader.self)
            .implements(Writer.self)
        _ = c.resolve(type: Reader.self)
        _ = c.resolve(type: Writer.self)
        _ = c.resolve(type: Store.self)
        _ = c.resolve(type: Reader.self)
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("onResolved added after implements still runs, once per .new instance")
    func onResolvedAfterImplements() {
        let seen = Locked<[ObjectIdentifier]>([])
        let c = Container()
        c.register(type: Store.self, in: .new) { _ in Store() }
            .implements(Reader.self)
            .onResolved { _, store in seen.withLock { $0.append(ObjectIdentifier(store)) } }
        let a = c.resolve(type: Reader.self)
        let b = c.resolve(type: Reader.self)
        #expect(seen.withLock { $0 } == [ObjectIdentifier(a), ObjectIdentifier(b)])
    }

    @Test("a child container resolves a parent's alias to the parent's shared instance")
    func aliasThroughChild() {
        let parent = Container()
        parent.register(type: Store.self) { _ in Store(seed: 1) }.implements(Reader.self)
        let child = Container(parent: parent)
        #expect(child.resolve(type: Reader.self) === parent.resolve(type: Store.self))
    }

    @Test("a parent's alias of a .new or .graph registration, resolved from a child, builds it with the child's registrations, as resolving the type there does",
          arguments: [Scope.new, .graph])
    func aliasResolvesFromAskedContainer(scope: Scope) throws {
        let parent = Container()
        parent.register(type: Int.self, instance: 1)
        parent.register(type: Store.self, in: scope) { r in Store(seed: try r.resolve(type: Int.self)) }
            .implements(Reader.self)
        let child = Container(parent: parent)
        child.register(type: Int.self, instance: 2)
        #expect(try child.tryResolve(type: Store.self).seed == 2)
        #expect(try child.tryResolve(type: Reader.self).read() == 2)
        #expect(try parent.tryResolve(type: Reader.self).read() == 1)
    }

    @Test("an async alias, resolved from a child, builds its .new registration with the child's registrations")
    func asyncAliasResolvesFromAskedContainer() async throws {
        let parent = Container()
        parent.register(type: Int.self, instance: 1)
        parent.register(type: Store.self, in: .new) { (r: Resolver) async throws in Store(seed: try await r.resolve(type: Int.self)) }
            .implements(Reader.self)
        let child = Container(parent: parent)
        child.register(type: Int.self, instance: 2)
        #expect(try await child.resolveAsync(type: Store.self).seed == 2)
        #expect(try await child.resolveAsync(type: Reader.self).read() == 2)
        #expect(try await parent.resolveAsync(type: Reader.self).read() == 1)
    }

    @Test("a parent's alias of a .shared registration still builds it with the parent's registrations")
    func sharedAliasResolvesFromHolder() throws {
        let parent = Container()
        parent.register(type: Int.self, instance: 1)
        parent.register(type: Store.self) { r in Store(seed: try r.resolve(type: Int.self)) }.implements(Reader.self)
        let child = Container(parent: parent)
        child.register(type: Int.self, instance: 2)
        #expect(try child.tryResolve(type: Reader.self).read() == 1)
        #expect(try child.tryResolve(type: Store.self) === (try parent.tryResolve(type: Reader.self)))
    }

    @Test("an alias to a class-bound existential and to AnyObject")
    func aliasToExistentials() {
        let c = Container()
        c.register(type: Cat.self) { _ in Cat() }
            .implements(Animal.self)
            .implements(AnyObject.self)
        let cat = c.resolve(type: Cat.self)
        #expect(c.resolve(type: Animal.self) === cat)
        #expect(c.resolve(type: AnyObject.self) === cat)
    }

    @Test("an alias of a value-type registration")
    func aliasOfValue() throws {
        let c = Container()
        c.register(type: Int.self) { _ in 42 }.implements((any Sendable).self).implements(CustomStringConvertible.self)
        #expect(try c.tryResolve(type: (any Sendable).self) as? Int == 42)
        #expect(try c.tryResolve(type: CustomStringConvertible.self).description == "42")
    }
}
