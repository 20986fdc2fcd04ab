#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Syringe
import Testing

/// `.graph` instances live in per-thread slots indexed by registration (see
/// GraphInstances.swift): these pin down the scope's semantics on that
/// storage, with values of every size and shape.
@Suite(".graph scope")
struct GraphScopeTests {
    /// Resolves `T` twice within one graph, through a parent.
    final class Twice<T>: @unchecked Sendable {
        let first: T
        let second: T
        init(_ first: T, _ second: T) {
            self.first = first
            self.second = second
        }
    }

    /// Larger than a slot holds (seven words): kept in a box.
    struct Large: Sendable, Equatable {
        var words: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        let serial: Int

        static func == (a: Large, b: Large) -> Bool { a.serial == b.serial }
    }

    /// A value that is not movable bit by bit: it holds a weak reference.
    struct WeakHolder: @unchecked Sendable {
        weak var target: Tracked?
        let serial: Int
    }

    @Test("a graph shares one instance within an outermost resolve and makes a new one for the next", arguments: [1, 5, 63, 64, 65, 1_000])
    func sharedWithinFreshAcross(registrations: Int) throws {
        // Enough other .graph registrations to spread indices over several
        // chunks of slots.
        let counter = Counter()
        let c = Container()
        for index in 0..<registrations {
            c.register(type: Tracked.self, name: "\(index)", in: .graph) { _ in Tracked(counter) }
        }
        let last = "\(registrations - 1)"
        c.register(type: Twice<Tracked>.self, in: .new) { r in
            Twice(try r.resolve(type: Tracked.self, name: last), try r.resolve(type: Tracked.self, name: last))
        }
        let one = try c.tryResolve(type: Twice<Tracked>.self)
        let two = try c.tryResolve(type: Twice<Tracked>.self)
        #expect(one.first === one.second)
        #expect(two.first === two.second)
        #expect(one.first !== two.first)
        #expect(counter.created == 2)
    }

    @Test("values of every size: inline structs, boxed structs, existentials, optionals")
    func valuesOfEverySize() throws {
        let serials = Atomic(0)
        let c = Container()
        c.register(type: Int.self, in: .graph) { _ in serials.add(1, ordering: .relaxed).newValue }
        c.register(type: Large.self, in: .graph) { _ in Large(serial: serials.add(1, ordering: .relaxed).newValue) }
        c.register(type: (any Sendable).self, in: .graph) { _ in serials.add(1, ordering: .relaxed).newValue as any Sendable }
        c.register(type: String?.self, in: .graph) { _ in "s\(serials.add(1, ordering: .relaxed).newValue)" }
        c.register(type: Twice<Int>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }
        c.register(type: Twice<Large>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }
        c.register(type: Twice<any Sendable>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }
        c.register(type: Twice<String?>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }

        let ints = try c.tryResolve(type: Twice<Int>.self)
        #expect(ints.first == ints.second)
        let larges = try c.tryResolve(type: Twice<Large>.self)
        #expect(larges.first == larges.second)
        let existentials = try c.tryResolve(type: Twice<any Sendable>.self)
        #expect(existentials.first as? Int == existentials.second as? Int)
        let strings = try c.tryResolve(type: Twice<String?>.self)
        #expect(strings.first == strings.second && strings.first != nil)
        #expect(try c.tryResolve(type: Twice<Int>.self).first != ints.first)
    }

    @Test("instances are released when the outermost resolve ends, boxed or not")
    func releasedAfterTheResolve() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: (Tracked, Large).self, in: .graph) { _ in (Tracked(counter), Large(serial: 1)) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in
            let boxed = try r.resolve(type: (Tracked, Large).self)
            return Pair(first: try r.resolve(), second: boxed.0)
        }
        do {
            let pair = try c.tryResolve(type: Pair<Tracked>.self)
            #expect(counter.alive == 2)
            _ = pair
        }
        #expect(counter.alive == 0, "the graph kept \(counter.alive) instances after the resolve")
        #expect(counter.created == 2)
    }

    /// A class-bound protocol: its existential is two words (the reference
    /// and a witness table), not one reference.
    protocol Marked: AnyObject {}
    final class MarkedTracked: Marked, @unchecked Sendable {
        let tracked: Tracked
        init(_ tracked: Tracked) { self.tracked = tracked }
    }

    /// An inline struct holding references: not trivial, not one reference.
    struct TwoRefs: Sendable {
        let first: Tracked
        let second: Tracked
    }

    @Test("ending a graph destroys each value exactly once, whatever its shape")
    func teardownOfEveryShape() throws {
        // `GraphInstances.store` picks how each value is destroyed from its
        // type: released directly (a class, a box), nothing (a trivial
        // value), or the generic destroy (everything else). A wrong choice
        // leaks (alive stays above 0) or releases twice (a crash).
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: AnyObject.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: (any Marked).self, in: .graph) { _ in MarkedTracked(Tracked(counter)) }
        c.register(type: Tracked?.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: TwoRefs.self, in: .graph) { _ in TwoRefs(first: Tracked(counter), second: Tracked(counter)) }
        c.register(type: (Tracked, Large).self, in: .graph) { _ in (Tracked(counter), Large(serial: 1)) }
        c.register(type: (any Sendable).self, in: .graph) { _ in Tracked(counter) as any Sendable }
        c.register(type: Int.self, in: .graph) { _ in 7 }
        c.register(type: Twice<Int>.self, in: .new) { r in
            // Each twice: the second is a hit on the first's slot.
            for _ in 0..<2 {
                _ = try r.resolve(type: Tracked.self)
                _ = try r.resolve(type: AnyObject.self)
                _ = try r.resolve(type: (any Marked).self)
                _ = try r.resolve(type: Tracked?.self)
                _ = try r.resolve(type: TwoRefs.self)
                _ = try r.resolve(type: (Tracked, Large).self)
                _ = try r.resolve(type: (any Sendable).self)
            }
            return Twice(try r.resolve(), try r.resolve())
        }
        for round in 1...3 {
            let twice = try c.tryResolve(type: Twice<Int>.self)
            #expect(twice.first == 7 && twice.second == 7)
            #expect(counter.created == 8 * round, "a graph made more than one instance per registration")
            #expect(counter.alive == 0, "the graph kept \(counter.alive) instances after the resolve")
        }
    }

    @Test("a value holding a weak reference stays valid in its slot")
    func weakReferenceValue() throws {
        let counter = Counter()
        let target = Tracked(counter)
        let serials = Atomic(0)
        let c = Container()
        c.register(type: WeakHolder.self, in: .graph) { [target] _ in
            WeakHolder(target: target, serial: serials.add(1, ordering: .relaxed).newValue)
        }
        // Many other .graph registrations made while the graph is being
        // built add chunks of slots; the holder's slot must not move.
        c.register(type: Twice<WeakHolder>.self, in: .new) { [unowned c] r in
            let first = try r.resolve(type: WeakHolder.self)
            for index in 0..<300 {
                c.register(type: Tracked.self, name: "late-\(index)", in: .graph) { _ in Tracked(counter) }
                _ = try r.resolve(type: Tracked.self, name: "late-\(index)")
            }
            return Twice(first, try r.resolve(type: WeakHolder.self))
        }
        let twice = try c.tryResolve(type: Twice<WeakHolder>.self)
        #expect(twice.first.serial == twice.second.serial)
        #expect(twice.second.target === target)
        #expect(counter.alive == 1)
    }

    /// One graph per container in a resolve: what a container's resolve
    /// builds may hold its own registrations, which another container's
    /// singletons must not capture (see OwnGraphTests).
    @Test("a factory asking a container directly shares that container's graph, not another's")
    func acrossChildContainers() throws {
        let counter = Counter()
        let parent = Container()
        parent.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        let child = Container(parent: parent)
        child.register(type: Pair<Tracked>.self, in: .new) { [unowned child] r in
            Pair(first: try r.resolve(), second: try child.tryResolve(type: Tracked.self))
        }
        child.register(type: Pair<Tracked>.self, name: "parent", in: .new) { r in
            Pair(first: try r.resolve(), second: try parent.tryResolve(type: Tracked.self))
        }
        let same = try child.tryResolve(type: Pair<Tracked>.self)
        #expect(same.first === same.second)
        let other = try child.tryResolve(type: Pair<Tracked>.self, name: "parent")
        #expect(other.first !== other.second)
    }

    @Test("onResolved callbacks see the graph's instances, and their resolves join it")
    func callbacksJoinTheGraph() throws {
        final class Node: @unchecked Sendable {
            var peer: Tracked?
            let own: Tracked
            init(_ own: Tracked) { self.own = own }
        }
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Node.self, in: .new) { r in Node(try r.resolve()) }
            .onResolved { r, node in node.peer = try r.resolve(type: Tracked.self) }
        let node = try c.tryResolve(type: Node.self)
        #expect(node.peer === node.own)
        #expect(counter.created == 1)
    }

    @Test("a failed resolve discards its partial graph: the next one starts fresh")
    func failureDiscardsTheGraph() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in
            _ = try r.resolve(type: Tracked.self)
            throw Failure(code: 1)
        }
        c.register(type: Twice<Tracked>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }
        #expect(throws: ResolutionError.self) { try c.tryResolve(type: Pair<Tracked>.self) }
        #expect(counter.alive == 0)
        let twice = try c.tryResolve(type: Twice<Tracked>.self)
        #expect(twice.first.serial == 2)
    }

    @Test("a graph instance whose deinit resolves again, while its graph is being dropped")
    func deinitResolvesDuringTeardown() throws {
        final class Resolving: @unchecked Sendable {
            let container: Container
            let counter: Counter
            let outcomes: Locked<[Bool]>
            init(_ container: Container, _ counter: Counter, _ outcomes: Locked<[Bool]>) {
                self.container = container
                self.counter = counter
                self.outcomes = outcomes
            }
            deinit {
                // Resolves a .graph and a .new registration from inside the
                // teardown of the graph that held this instance.
                let during = (try? container.tryResolve(type: Tracked.self, name: "during")) != nil
                let pair = (try? container.tryResolve(type: Pair<Tracked>.self)) != nil
                outcomes.withLock { $0 += [during, pair] }
            }
        }
        let outcomes = Locked<[Bool]>([])
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, name: "during", in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in
            Pair(first: try r.resolve(type: Tracked.self, name: "during"), second: Tracked(counter))
        }
        c.register(type: Resolving.self, in: .graph) { [unowned c] _ in Resolving(c, counter, outcomes) }
        c.register(type: Twice<Resolving>.self, in: .new) { r in Twice(try r.resolve(), try r.resolve()) }
        for _ in 0..<3 {
            let twice = try c.tryResolve(type: Twice<Resolving>.self)
            #expect(twice.first === twice.second)
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: true, count: 6), "a resolve inside the teardown failed")
        #expect(counter.alive == 0)
        // The context is clean afterwards: a graph still shares.
        let pair = try c.tryResolve(type: Twice<Resolving>.self)
        #expect(pair.first === pair.second)
    }

    @Test("registrations freed with their container give their slot index to new ones")
    func indicesAreReused() throws {
        let counter = Counter()
        for round in 0..<50 {
            let c = Container()
            for index in 0..<20 {
                c.register(type: Tracked.self, name: "\(index)", in: .graph) { _ in Tracked(counter) }
            }
            c.register(type: Pair<Tracked>.self, in: .new) { r in
                Pair(first: try r.resolve(type: Tracked.self, name: "\(round % 20)"),
                     second: try r.resolve(type: Tracked.self, name: "\(round % 20)"))
            }
            let pair = try c.tryResolve(type: Pair<Tracked>.self)
            #expect(pair.first === pair.second)
        }
        #expect(counter.alive == 0)
    }

    @Test("each thread builds its own graph")
    func graphsPerThread() async throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var shared = true
                    for _ in 0..<1_000 {
                        let pair = try c.tryResolve(type: Pair<Tracked>.self)
                        shared = shared && pair.first === pair.second
                    }
                    return shared
                }
            }
            for try await shared in group {
                #expect(shared)
            }
        }
        #expect(counter.created == 8_000)
        #expect(counter.alive == 0)
    }

    final class First: Sendable {}
    final class Second: Sendable {}

    /// The graph's slots are indexed by registration, and a freed
    /// registration gives its index back: one freed while its instance was
    /// still in the graph let the next `.graph` registration find that
    /// instance as its own, of another type.
    @Test("a .graph registration freed inside a resolve lends its slot to no other registration")
    func freedRegistrationsSlotIsNotReused() throws {
        let app = Container()
        let seen = Locked<(first: ObjectIdentifier?, second: ObjectIdentifier?, secondIsSecond: Bool)>((nil, nil, false))
        app.register(type: Int.self, in: .new) { [unowned app] _ in
            let first: First = try {
                let short = Container(parent: app)
                short.register(type: First.self, in: .graph) { _ in First() }
                return try short.tryResolve(type: First.self)
            }()   // `short` and its registration are freed here; `first` stays in the graph
            let other = Container(parent: app)
            other.register(type: Second.self, in: .graph) { _ in Second() }
            let second = try other.tryResolve(type: Second.self)
            seen.withLock {
                $0 = (ObjectIdentifier(first), ObjectIdentifier(second as AnyObject), (second as Any) is Second)
            }
            return 1
        }
        #expect(try app.tryResolve(type: Int.self) == 1)
        let result = seen.withLock { $0 }
        #expect(result.secondIsSecond)
        #expect(result.first != result.second)
    }

    /// `TwoRefs` is destroyed through its registration when the graph ends,
    /// which must still exist then.
    @Test("a .graph value of a registration freed inside the resolve is destroyed when the graph ends")
    func freedRegistrationsValueIsDestroyedSafely() throws {
        let counter = Counter()
        let app = Container()
        app.register(type: Int.self, in: .new) { [unowned app] _ in
            let short = Container(parent: app)
            short.register(type: TwoRefs.self, in: .graph) { _ in TwoRefs(first: Tracked(counter), second: Tracked(counter)) }
            _ = try short.tryResolve(type: TwoRefs.self)
            return counter.alive
        }
        #expect(try app.tryResolve(type: Int.self) == 2)
        #expect(counter.created == 2)
        #expect(counter.alive == 0)
    }
}

@Suite("Deep object graphs")
struct DeepGraphTests {
    final class Link: Sendable {
        let next: Link?
        init(_ next: Link?) { self.next = next }
    }

    /// Runs `body` on a thread with a 256 MiB stack: a resolve 1 000 levels
    /// deep needs several megabytes in a debug build (more under
    /// AddressSanitizer), more than a test worker thread has.
    static func onLargeStack(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 256 << 20)
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, &attributes, { raw in
            #if canImport(Darwin)
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            #else
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
        precondition(status == 0, "pthread_create failed (\(status))")
        #if canImport(Darwin)
        pthread_join(thread!, nil)
        #else
        pthread_join(thread, nil)
        #endif
    }

    /// What the deep resolve found, handed back to the test's own thread
    /// (expectations are recorded there).
    struct Outcome: Sendable {
        var length = 0
        var cycle: ResolutionError?
        var cycleReason = ""
    }

    @Test("a chain of 1 000 distinct registrations resolves, and a cycle at its end is still found")
    func thousandLevels() {
        let result = Locked(Outcome())
        Self.onLargeStack { result.withLock { $0 = Self.resolveThousandLevels() } }
        let outcome = result.withLock { $0 }
        #expect(outcome.length == 1_000)
        #expect(outcome.cycleReason == "cycle")
        #expect(outcome.cycle?.path.count == 1_001)
        #expect(outcome.cycle?.path.first == #"Link["999"]"# && outcome.cycle?.path.last == #"Link["999"]"#)
    }

    /// Whether this process runs under ThreadSanitizer (its runtime, and
    /// `__tsan_init` with it, is linked in).
    static let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil

    // Not under ThreadSanitizer: its shadow call stack holds fewer frames
    // than the 60 000 or so this resolve nests, and overflowing it corrupts
    // the sanitizer's own memory (a crash alone, a hang in its `free` beside
    // the other deep test). Plain and AddressSanitizer runs cover it.
    @Test("a resolve nested through more than 10 000 distinct registrations is a cycle error, not a stack overflow",
          .disabled(if: underThreadSanitizer, "ThreadSanitizer's shadow call stack is shallower than this resolve"))
    func depthBound() {
        let result = Locked(Outcome())
        Self.onLargeStack {
            let c = Container()
            for level in 0...10_000 {
                c.register(type: Link.self, name: "\(level)", in: .new) { r in Link(try r.resolve(type: Link.self, name: "\(level + 1)")) }
            }
            do throws(ResolutionError) {
                _ = try c.tryResolve(type: Link.self, name: "0")
            } catch {
                result.withLock { outcome in
                    outcome.cycle = error
                    if case .cycle = error.reason { outcome.cycleReason = "cycle" }
                }
            }
        }
        let outcome = result.withLock { $0 }
        #expect(outcome.cycleReason == "cycle")
        #expect(outcome.cycle?.path.count == 10_001, "10 000 frames, then the one refused")
        #expect(outcome.cycle?.path.last == #"Link["10000"]"#)
    }

    static func resolveThousandLevels() -> Outcome {
        var outcome = Outcome()
        let c = Container()
        c.register(type: Link.self, name: "0", in: .graph) { _ in Link(nil) }
        for level in 1..<1_000 {
            c.register(type: Link.self, name: "\(level)", in: .graph) { r in Link(try r.resolve(type: Link.self, name: "\(level - 1)")) }
        }
        var link: Link? = try? c.tryResolve(type: Link.self, name: "999")
        while let current = link {
            outcome.length += 1
            link = current.next
        }
        // Close the chain into a cycle: 0 now needs 999.
        c.register(type: Link.self, name: "0", in: .graph) { r in Link(try r.resolve(type: Link.self, name: "999")) }
        do {
            _ = try c.tryResolve(type: Link.self, name: "999")
        } catch {
            outcome.cycle = error
            if case .cycle = error.reason { outcome.cycleReason = "cycle" }
        }
        return outcome
    }
}
