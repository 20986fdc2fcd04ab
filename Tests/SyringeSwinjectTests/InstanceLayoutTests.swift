import Testing
@testable import SyringeSwinject

/// A resolve hands its instance back through raw memory (a producer writes
/// it into the caller's scratch, or a heap cell when it is larger than four
/// words), and a graph keeps a class instance as itself but anything else in
/// a box. These check every shape of service through each of those ways, on
/// the specialised path (a resolve on `Container`) and the unspecialised one
/// (a factory's resolve through `Resolver`).
@Suite("SyringeSwinject instances of every layout")
struct InstanceLayoutTests {
    /// Five words: larger than the scratch a resolve makes instances in.
    struct Large: Equatable {
        var a: String, b: String, c: Int, d: Int, e: Int
    }

    /// Over-aligned for the scratch (16 bytes, aligned to 16).
    struct Aligned: Equatable {
        var value: SIMD4<Int32>
    }

    protocol Shape {
        var sides: Int { get }
    }

    struct Square: Shape {
        let sides = 4
        let label: String
    }

    final class Box {
        let id: Int
        init(id: Int) { self.id = id }
    }

    final class Holder<T> {
        let first: T
        let second: T
        init(first: T, second: T) {
            self.first = first
            self.second = second
        }
    }

    @Test("a struct larger than four words arrives whole, on both paths and in every scope", arguments: [ObjectScope.transient, .graph, .container, .weak])
    func largeStruct(scope: ObjectScope) {
        let container = Container()
        var made = 0
        container.register(Large.self) { _ in
            made += 1
            return Large(a: "alpha \(made)", b: String(repeating: "b", count: 40), c: 1, d: 2, e: made)
        }.inObjectScope(scope)
        container.register(Holder<Large>.self) { r in Holder(first: r.resolve(Large.self)!, second: r.resolve(Large.self)!) }

        let direct = container.resolve(Large.self)
        #expect(direct?.a == "alpha 1")
        #expect(direct?.b.count == 40)
        let holder = container.resolve(Holder<Large>.self)!
        #expect(holder.first.c == 1 && holder.first.d == 2)
        if scope === ObjectScope.transient {
            #expect(holder.first.e == 2 && holder.second.e == 3, "each resolve makes one")
        } else if scope === ObjectScope.container {
            #expect(holder.first == direct && holder.second == direct, "the container's one instance")
        } else {
            // `.graph`, and `.weak`, which for a struct (nothing to hold
            // weakly) keeps the instance for the graph only.
            #expect(holder.first == holder.second, "one instance per graph")
            #expect(holder.first.e == 2)
        }
    }

    @Test("an over-aligned struct arrives whole through the heap cell")
    func alignedStruct() {
        let container = Container()
        container.register(Aligned.self) { _ in Aligned(value: SIMD4(1, 2, 3, 4)) }
        container.register(Holder<Aligned>.self) { r in Holder(first: r.resolve(Aligned.self)!, second: r.resolve(Aligned.self)!) }
        #expect(container.resolve(Aligned.self)?.value == SIMD4(1, 2, 3, 4))
        #expect(container.resolve(Holder<Aligned>.self)?.second.value == SIMD4(1, 2, 3, 4))
    }

    @Test("a protocol existential is one instance per graph, boxed in the graph's slot")
    func existentialInAGraph() {
        let container = Container()
        var made = 0
        container.register(Shape.self) { _ in
            made += 1
            return Square(label: "square \(made)")
        }
        container.register(Holder<Shape>.self) { r in Holder(first: r.resolve(Shape.self)!, second: r.resolve(Shape.self)!) }
        let holder = container.resolve(Holder<Shape>.self)!
        #expect((holder.first as? Square)?.label == "square 1")
        #expect((holder.second as? Square)?.label == "square 1")
        #expect(holder.first.sides == 4)
        #expect(made == 1)
    }

    @Test("a class-bound existential (two words) is shared in a graph: the same object both times")
    func classBoundExistentialInAGraph() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Holder<Animal>.self) { r in Holder(first: r.resolve(Animal.self)!, second: r.resolve(Animal.self)!) }
        let holder = container.resolve(Holder<Animal>.self)!
        #expect(holder.first === holder.second)
        #expect(holder.first.name == "Mimi")
        #expect(container.resolve(Holder<Animal>.self)!.first !== holder.first, "a new graph makes a new one")
    }

    @Test("a class kept as itself in a graph is shared there, freed after it, and restorable")
    func classInAGraph() {
        let container = Container()
        var graph: GraphIdentifier?
        var made = 0
        container.register(Box.self) { r in
            graph = (r as! Container).currentObjectGraph
            made += 1
            return Box(id: made)
        }
        container.register(Holder<Box>.self) { r in Holder(first: r.resolve(Box.self)!, second: r.resolve(Box.self)!) }
        weak var released: Box?
        do {
            let holder = container.resolve(Holder<Box>.self)!
            released = holder.first
            #expect(holder.first === holder.second)
            container.restoreObjectGraph(graph!)
            #expect(container.resolve(Box.self) === holder.first, "restored from the graph that made it")
        }
        #expect(released == nil, "the graph's slot let go of it when the graph ended")
        #expect(made == 1)
    }

    /// Counts its instances alive, so that a test sees each freed exactly once.
    final class Tracked {
        let alive: Counter
        init(_ alive: Counter) {
            self.alive = alive
            alive.increment()
        }
        deinit { alive.increment(by: -1) }
    }

    /// Two words, bitwise-takable: handed back in registers.
    struct Pair {
        let tracked: Tracked
        let number: Int
    }

    /// One byte: handed back through the scratch.
    enum Flag { case on, off }

    @Test("one- and two-word instances, handed back in registers, are owned exactly once", arguments: [ObjectScope.transient, .graph, .container])
    func instancesInRegisters(scope: ObjectScope) {
        let alive = Counter()
        do {
            let container = Container()
            container.register(Tracked.self) { _ in Tracked(alive) }.inObjectScope(scope)
            container.register(Pair.self) { r in Pair(tracked: r.resolve(Tracked.self)!, number: 7) }.inObjectScope(scope)
            container.register(Animal.self) { _ in Cat(name: "Mimi") }.inObjectScope(scope)
            container.register(String.self) { _ in String(repeating: "s", count: 30) }.inObjectScope(scope)
            container.register(Tracked?.self) { r in r.resolve(Tracked.self) }.inObjectScope(scope)
            container.register(Flag.self) { _ in .off }.inObjectScope(scope)
            container.register(Holder<Pair>.self) { r in Holder(first: r.resolve(Pair.self)!, second: r.resolve(Pair.self)!) }
            container.register(Holder<String>.self) { r in Holder(first: r.resolve(String.self)!, second: r.resolve(String.self)!) }
            container.register(Holder<Flag>.self) { r in Holder(first: r.resolve(Flag.self)!, second: r.resolve(Flag.self)!) }
            container.register(Holder<Animal>.self) { r in Holder(first: r.resolve(Animal.self)!, second: r.resolve(Animal.self)!) }
            for _ in 0..<50 {
                // Specialised here, unspecialised in the holders' factories.
                #expect(container.resolve(Pair.self)?.number == 7)
                #expect(container.resolve(String.self)?.count == 30)
                #expect(container.resolve(Animal.self)?.name == "Mimi")
                #expect(container.resolve(Tracked?.self)! != nil)
                #expect(container.resolve(Flag.self) == .off)
                let pairs = container.resolve(Holder<Pair>.self)!
                #expect(pairs.first.number == 7 && pairs.second.number == 7)
                #expect(container.resolve(Holder<String>.self)!.second.count == 30)
                #expect(container.resolve(Holder<Flag>.self)!.first == .off)
                #expect(container.resolve(Holder<Animal>.self)!.first.name == "Mimi")
            }
            // Only the container's one instance outlives the resolves.
            #expect(alive.count == (scope === ObjectScope.container ? 1 : 0))
        }
        // The container's instance goes with its entry, through the reclaimer.
        untilReclaimed { alive.count == 0 }
        #expect(alive.count == 0, "every instance made was freed, none twice")
    }
}
