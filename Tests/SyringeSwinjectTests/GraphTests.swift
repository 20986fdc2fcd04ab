import Testing
@testable import SyringeSwinject

@Suite("SyringeSwinject object graphs")
struct GraphTests {
    @Test("a restorable graph keeps its instances weakly: they are freed when their users let go")
    func restorableGraphIsWeak() {
        let container = Container()
        var graph: GraphIdentifier?
        var made = 0
        container.register(Node.self) { r in
            graph = (r as! Container).currentObjectGraph
            made += 1
            return Node()
        }
        weak var released: Node?
        do {
            let node = container.resolve(Node.self)!
            released = node
            container.restoreObjectGraph(graph!)
            #expect(container.resolve(Node.self) === node)
        }
        #expect(released == nil)
        #expect(made == 1)
        container.restoreObjectGraph(graph!)
        _ = container.resolve(Node.self)
        #expect(made == 2, "the graph kept nothing once its node was freed: a new one is made")
    }

    /// Emptying the graph's slots runs the `deinit`s of instances only the
    /// graph held; one that resolved took the thread's state over, and the
    /// graph's later instances stayed in their slots, alive.
    @Test("a deinit that resolves while its graph ends leaves the rest of the graph freed")
    func deinitResolvingAtTheGraphsEnd() {
        final class Other {}
        final class Witness {}
        final class Resolving {
            unowned let container: Container
            init(_ container: Container) { self.container = container }
            deinit { _ = container.resolve(Other.self) }
        }
        final class Root {
            let witness: Witness
            init(witness: Witness) { self.witness = witness }
        }
        let container = Container()
        container.register(Other.self) { _ in Other() }
        container.register(Witness.self) { _ in Witness() }
        container.register(Resolving.self) { [unowned container] _ in Resolving(container) }
        container.register(Root.self) { r in
            let root = Root(witness: r.resolve(Witness.self)!)
            _ = r.resolve(Resolving.self)   // held by the graph alone
            return root
        }
        weak var witness: Witness?
        weak var root: Root?
        do {
            let resolved = container.resolve(Root.self)!
            (witness, root) = (resolved.witness, resolved)
        }
        #expect(root == nil, "the graph kept its root")
        #expect(witness == nil, "the graph kept its witness")
    }

    @Test("containers made and let go inside one graph keep their entries' slots apart until it ends")
    func containersFreedInsideAGraph() async {
        // In a process of its own: entry indices are process-wide. Before the
        // fix the second container's entry took the first's freed index and
        // was handed the first's instance, as the wrong type.
        await #expect(processExitsWith: .success) {
            final class First { let name = "first" }
            final class Second { let value = 42 }
            let app = Container()
            app.register(Node.self) { _ in
                var seen: [String] = []
                for round in 0..<2 {
                    let throwaway = Container()
                    if round == 0 {
                        throwaway.register(First.self) { _ in First() }
                        seen.append(throwaway.resolve(First.self)!.name)
                    } else {
                        throwaway.register(Second.self) { _ in Second() }
                        seen.append(String(throwaway.resolve(Second.self)!.value))
                    }
                }
                precondition(seen == ["first", "42"], "\(seen)")
                return Node()
            }
            _ = app.resolve(Node.self)
        }
    }

    @Test("a graph that never handed out its identifier keeps nothing after it ends")
    func plainGraphKeepsNothing() {
        let container = Container()
        container.register(Node.self) { _ in Node() }
        weak var released: Node?
        do {
            let node = container.resolve(Node.self)!
            released = node
        }
        #expect(released == nil)
    }

    @Test("a Lazy resolving in its own graph inside another resolve leaves the outer graph's instances in place")
    func nestedGraphShadowsOuterSlots() {
        let container = Container()
        container.register(Node.self, name: "shared") { _ in Node() }
        // Made inside an earlier resolve, so it belongs to that graph.
        var made: Lazy<Node>?
        container.register(Cat.self) { r in
            made = r.resolve(Lazy<Node>.self, name: "shared")
            return Cat()
        }
        _ = container.resolve(Cat.self)
        let lazy = made!
        // A Lazy holds its container, as Swinject's does: neither the Cat
        // factory's variable nor the Owner factory may hold it too.
        made = nil
        container.register(Owner.self) { [unowned lazy] r in
            let first = r.resolve(Node.self, name: "shared")!
            // Resolves "shared" in the lazy's graph: another instance, in the
            // same slot as `first`.
            let lazyNode = lazy.instance
            let second = r.resolve(Node.self, name: "shared")!
            let name = (first === second ? "same" : "different") + (lazyNode === first ? "+shared" : "+own")
            return Owner(pet: Cat(name: name))
        }
        #expect(container.resolve(Owner.self)?.pet.name == "same+own")
    }

    @Test("a circular dependency through initialisers ends with nil and a log line, not a crash")
    func endlessCycleEndsInNil() {
        let container = Container()
        container.register(Node.self) { r in Node(next: r.resolve(Node.self, name: "other")) }
            .inObjectScope(.transient)
        container.register(Node.self, name: "other") { r in Node(next: r.resolve(Node.self)) }
            .inObjectScope(.transient)
        var resolved: Node?
        let lines = loggedLines { resolved = container.resolve(Node.self) }
        #expect(resolved != nil)
        #expect(lines.contains { $0.contains("nested 200 resolves deep") })
    }

    @Test("200 nested resolves succeed, as in Swinject; the 201st ends in nil and a log line")
    func twoHundredNestedResolves() {
        func chain(_ levels: Int) -> (length: Int, lines: [String]) {
            let container = Container()
            for level in 0..<levels {
                container.register(Node.self, name: "\(level)") { r in
                    Node(next: level + 1 < levels ? r.resolve(Node.self, name: "\(level + 1)") : nil)
                }
            }
            var root: Node?
            let lines = loggedLines { root = container.resolve(Node.self, name: "0") }
            var length = 0
            var node = root
            while let current = node {
                length += 1
                node = current.next
            }
            return (length, lines)
        }
        #expect(chain(200).length == 200)
        let deeper = chain(201)
        #expect(deeper.length == 200)
        #expect(deeper.lines.contains { $0.contains("nested 200 resolves deep") })
    }

    @Test("a Lazy's instance, taken inside the graph that made the Lazy, is that graph's, and stays its for the rest of it, as in Swinject")
    func lazyInsideItsOwnGraph() {
        let container = Container()
        container.register(Node.self) { _ in Node() }
        nonisolated(unsafe) var seen: (viaLazy: Node, direct: Node, again: Node)?
        container.register(Cat.self) { r in
            let viaLazy = r.resolve(Lazy<Node>.self)!.instance
            let direct = r.resolve(Node.self)!
            let again = (r as! Container).withObjectGraph(r.resolve(GraphIdentifier.self)!) { $0.resolve(Node.self)! }
            seen = (viaLazy, direct, again)
            return Cat(name: "cat")
        }
        _ = container.resolve(Cat.self)
        #expect(seen.map { $0.viaLazy === $0.direct && $0.again === $0.direct } == true)
    }

    @Test("withObjectGraph shares .graph instances across separate resolves")
    func withObjectGraphShares() {
        let container = Container()
        container.register(Node.self) { _ in Node() }
        let graph = GraphIdentifier()
        let (first, second) = container.withObjectGraph(graph) { c in (c.resolve(Node.self)!, c.resolve(Node.self)!) }
        #expect(first === second)
        #expect(container.resolve(Node.self) !== first)
        #expect(container.currentObjectGraph == nil)
    }
}
