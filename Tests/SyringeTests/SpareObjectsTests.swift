import Dispatch
import Testing
@_spi(SyringeSwinject) @testable import Syringe

/// A freed scope's boxes and per-request registrations are emptied and
/// reused by the thread's next scopes (`SpareObjects`): the instances go
/// when the scope does, as before, and nothing of one request shows in the
/// next. The tests that check reuse are synchronous, so that the scope is
/// freed on the thread that makes the next one, and begin with that
/// thread's resolution context made: only a thread that has one keeps
/// spares.
@Suite("Spare boxes and registrations")
struct SpareObjectsTests {
    /// The address of the box `container` holds its own instance of `T` in
    /// (a scope's copy of a `.scoped` registration, or a registration made
    /// there), or nil.
    private static func boxAddress<T>(of _: T.Type, name: String? = nil, in container: Container) -> UnsafeRawPointer? {
        let key = DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name)
        return container.lookup(key)?.sharedBox.load(ordering: .acquiring)
    }

    /// Makes this thread's resolution context, if it has none yet.
    private static func makeContext() {
        _ = ResolutionContext.current
    }

    /// The registration `container` holds for `T` itself, as an identity.
    private static func registration<T>(of _: T.Type, name: String? = nil, in container: Container) -> ObjectIdentifier? {
        let key = DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name)
        return container.lookup(key).map(ObjectIdentifier.init)
    }

    @Test("a freed scope's box holds its instance no longer, and the next scope's instance of the type goes in it")
    func scopedBoxReused() throws {
        Self.makeContext()
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        var first: UnsafeRawPointer?
        do {
            let scope = app.makeScope()
            #expect(try scope.tryResolve(type: Tracked.self).serial == 1)
            first = Self.boxAddress(of: Tracked.self, in: scope)
        }
        #expect(first != nil)
        #expect(counter.alive == 0, "the freed scope's instance is still alive")
        let next = app.makeScope()
        let instance = try next.tryResolve(type: Tracked.self)
        #expect(instance.serial == 2)
        #expect(try next.tryResolve(type: Tracked.self) === instance)
        #expect(Self.boxAddress(of: Tracked.self, in: next) == first, "the next scope's instance is not in the freed scope's box")
    }

    @Test("boxes a closed scope kept, disposed or not, are reused once the scope is freed, their instances gone")
    func closedBoxesReused() throws {
        Self.makeContext()
        let counter = Counter()
        let disposed = Locked(0)
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        app.register(type: Item.self, in: .scoped) { _ in Item(name: "request") }
            .onDispose { _ in disposed.withLock { $0 += 1 } }
        var boxes: [UnsafeRawPointer?] = []
        do {
            let scope = app.makeScope()
            _ = try scope.tryResolve(type: Tracked.self)
            _ = try scope.tryResolve(type: Item.self)
            boxes = [Self.boxAddress(of: Tracked.self, in: scope), Self.boxAddress(of: Item.self, in: scope)]
            #expect(scope.closeSynchronously().isEmpty)
            #expect(Self.boxAddress(of: Tracked.self, in: scope) == nil)
            #expect(counter.alive == 1, "a closed scope's boxes live until it is freed")
        }
        #expect(disposed.withLock { $0 } == 1)
        #expect(counter.alive == 0)
        let next = app.makeScope()
        _ = try next.tryResolve(type: Tracked.self)
        _ = try next.tryResolve(type: Item.self)
        #expect([Self.boxAddress(of: Tracked.self, in: next), Self.boxAddress(of: Item.self, in: next)] == boxes)
        #expect(next.closeSynchronously().isEmpty)
        #expect(disposed.withLock { $0 } == 2, "the reused box's instance was not disposed")
    }

    @Test("a request's value registered with instance: reuses the freed scope's registration, under the same name only")
    func instanceRegistrationReused() throws {
        Self.makeContext()
        let counter = Counter()
        let app = Container()
        var first: ObjectIdentifier?
        do {
            let scope = app.makeScope()
            scope.register(type: Tracked.self, instance: Tracked(counter))
            first = Self.registration(of: Tracked.self, in: scope)
            #expect(try scope.tryResolve(type: Tracked.self).serial == 1)
        }
        #expect(counter.alive == 0, "the freed scope's value is still alive")
        do {
            let scope = app.makeScope()
            scope.register(type: Tracked.self, instance: Tracked(counter))
            #expect(Self.registration(of: Tracked.self, in: scope) == first, "the registration was not reused")
            #expect(try scope.tryResolve(type: Tracked.self).serial == 2)
            #expect(scope.closeSynchronously().isEmpty)
            #expect(throws: ResolutionError.self) { try scope.tryResolve(type: Tracked.self) }
        }
        #expect(counter.alive == 0)
        let named = app.makeScope()
        named.register(type: Tracked.self, name: "other", instance: Tracked(counter))
        #expect(Self.registration(of: Tracked.self, name: "other", in: named) != first, "a registration under another name was reused")
        #expect(try named.tryResolve(type: Tracked.self, name: "other").serial == 3)
        #expect(throws: ResolutionError.self) { try named.tryResolve(type: Tracked.self) }
        // The spare under no name was kept for it.
        named.register(type: Tracked.self, instance: Tracked(counter))
        #expect(Self.registration(of: Tracked.self, in: named) == first, "the spare went when another name was registered")
    }

    @Test("registrations with hooks, or that the caller still holds, are not reused, and keep working")
    func heldRegistrationsNotReused() async throws {
        let counter = Counter()
        let app = Container()
        var kept: Registration<Tracked>?
        var first: ObjectIdentifier?
        do {
            let scope = app.makeScope()
            kept = scope.register(type: Tracked.self, instance: Tracked(counter))
            first = Self.registration(of: Tracked.self, in: scope)
        }
        let disposed = Locked(0)
        do {
            let scope = app.makeScope()
            scope.register(type: Tracked.self, instance: Tracked(counter))
                .onDispose { _ in disposed.withLock { $0 += 1 } }
            #expect(Self.registration(of: Tracked.self, in: scope) != first, "a registration its caller holds was reused")
            try await scope.close()
        }
        #expect(disposed.withLock { $0 } == 1)
        #expect(kept.map { ObjectIdentifier($0.definition) } == first, "the held registration changed")
        kept = nil
        #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) values outlived their scopes")
    }

    @Test("instances of every layout survive a box's reuse: empty, aligned to 16, larger than a word, existential, string")
    func layoutsRoundTrip() throws {
        Self.makeContext()
        struct Empty: Equatable {}
        struct Wide: Equatable { var a = 1, b = 2, c = 3, d = 4, e = 5 }
        let app = Container()
        let serial = Locked(0)
        app.register(type: Empty.self, in: .scoped) { _ in Empty() }
        app.register(type: SIMD4<Float>.self, in: .scoped) { _ in
            let value = Float(serial.withLock { $0 += 1; return $0 })
            return SIMD4(value, value + 1, value + 2, value + 3)
        }
        app.register(type: Wide.self, in: .scoped) { _ in Wide(a: serial.withLock { $0 }) }
        app.register(type: (any Labelled).self, in: .scoped) { _ in Label(label: "rex \(serial.withLock { $0 })") }
        app.register(type: String.self, in: .scoped) { _ in String(repeating: "request ", count: serial.withLock { $0 }) }
        for round in 1...3 {
            let scope = app.makeScope()
            #expect(try scope.tryResolve(type: Empty.self) == Empty())
            let simd = try scope.tryResolve(type: SIMD4<Float>.self)
            #expect(simd == SIMD4(Float(round), Float(round + 1), Float(round + 2), Float(round + 3)))
            #expect(try scope.tryResolve(type: SIMD4<Float>.self) == simd)
            #expect(try scope.tryResolve(type: Wide.self) == Wide(a: round))
            #expect(try scope.tryResolve(type: (any Labelled).self).label == "rex \(round)")
            #expect(try scope.tryResolve(type: String.self) == String(repeating: "request ", count: round))
            if let box = Self.boxAddress(of: SIMD4<Float>.self, in: scope) {
                let instance = Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue().instance(as: SIMD4<Float>.self)
                #expect(UInt(bitPattern: instance) % 16 == 0, "a 16-aligned instance at \(instance)")
            }
        }
    }

    @Test("a thread's spares are one per type: more types than slots still each get a box, and none leaks an instance")
    func slotsShared() throws {
        Self.makeContext()
        let counter = Counter()
        let app = Container()
        // More `.scoped` types than the table has slots: some collide and
        // replace each other's spares.
        func register<Tag>(_: Tag.Type) {
            app.register(type: Tagged<Tag, Tracked>.self, in: .scoped) { _ in Tagged(Tracked(counter)) }
        }
        func resolve<Tag>(_: Tag.Type, in scope: Container) throws {
            _ = try scope.tryResolve(type: Tagged<Tag, Tracked>.self)
        }
        let tags: [Any.Type] = [Int8.self, Int16.self, Int32.self, Int64.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
                                Float.self, Double.self, Bool.self, String.self, Character.self, Int.self, UInt.self, Substring.self]
        for tag in tags { register(tag) }
        for _ in 0..<3 {
            let scope = app.makeScope()
            for tag in tags { try resolve(tag, in: scope) }
            #expect(counter.alive == tags.count)
        }
        #expect(counter.alive == 0)
        #expect(counter.created == 3 * tags.count)
    }

    @Test("scopes made and freed on many threads at once each get their own instances")
    func concurrentScopes() {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<500 {
                let scope = app.makeScope()
                scope.register(type: Item.self, instance: Item(name: "\(thread)/\(round)"))
                guard let tracked = try? scope.tryResolve(type: Tracked.self),
                      (try? scope.tryResolve(type: Tracked.self)) === tracked,
                      (try? scope.tryResolve(type: Item.self))?.name == "\(thread)/\(round)" else {
                    mismatches.withLock { $0 += 1 }
                    continue
                }
                if round.isMultiple(of: 2) {
                    _ = scope.closeSynchronously()
                }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(counter.alive == 0)
        #expect(counter.created == 8 * 500)
    }

    @Test("spares a thread's overflow cannot keep go to the depot, where another thread finds them; a full depot frees its oldest")
    func depot() {
        let counter = Counter()
        // A depot and threads' spares of the test's own: the process's are
        // shared with every test running at the same time.
        let depot = SpareObjects.Depot()
        var giver = SpareObjects(depot: depot)
        var taker = SpareObjects(depot: depot)
        // Keys as the real ones are: metadata addresses, word-aligned.
        let old: UInt = 0x1000, new: UInt = 0x2000
        func spare() -> Unmanaged<AnyObject> { .passRetained(Tracked(counter)) }
        // One in the key's slot, the overflow full, then a batch to the depot.
        for _ in 0..<(1 + SpareObjects.overflowCapacity + 1) {
            giver.keep(spare(), type: old)
        }
        #expect(depot.count.load(ordering: .relaxed) > 0, "a full overflow handed nothing over")
        #expect(taker.take(old) != nil, "a thread with no spares found none in the depot")
        #expect(taker.take(new) == nil)
        // Fill the depot with `old` spares, then hand it `new` ones: the
        // oldest go, and the newest are found.
        for _ in 0..<(2 * SpareObjects.Depot.capacity) {
            giver.keep(spare(), type: old)
        }
        #expect(depot.count.load(ordering: .relaxed) == SpareObjects.Depot.capacity)
        for _ in 0..<(2 * SpareObjects.overflowCapacity) {
            giver.keep(spare(), type: new)
        }
        #expect(depot.count.load(ordering: .relaxed) == SpareObjects.Depot.capacity)
        #expect(taker.take(new) != nil, "the full depot kept its oldest spares instead of the newest")
        _ = consume giver
        _ = consume taker
        // The depot's, but the one taken last; every other was freed.
        withExtendedLifetime(depot) {
            #expect(counter.alive == SpareObjects.Depot.capacity - 1, "spares the depot let go, or a thread's freed, are still alive")
        }
    }

    @Test("scopes made in bursts on some threads and freed on others, as a server's requests are, each get their own instances and leave none behind")
    func burstsAcrossThreads() {
        let counter = Counter()
        let app = Container()
        app.register(type: Tracked.self, in: .scoped) { _ in Tracked(counter) }
        let mismatches = Locked(0)
        let rounds = 6, burst = 150
        // Two pairs at once: each pair's maker makes a burst of scopes (more
        // than a thread keeps spares for), its freer frees them, so spares
        // pile up on one thread and run out on the other, and both pairs
        // use the process's depots at the same time.
        // Threads of their own (this module's joinable `Thread`): waiting on
        // a semaphore in Dispatch's pool can starve it on a machine with
        // few cores.
        var threads: [Thread] = []
        for pair in 0..<2 {
            let made = Locked<[(Container, Tracked)]>([])
            let madeBurst = DispatchSemaphore(value: 0)
            let freedBurst = DispatchSemaphore(value: 0)
            threads.append(Thread {
                for round in 0..<rounds {
                    for index in 0..<burst {
                        let scope = app.makeScope()
                        scope.register(type: Item.self, instance: Item(name: "\(pair)/\(round)/\(index)"))
                        guard let tracked = try? scope.tryResolve(type: Tracked.self) else {
                            mismatches.withLock { $0 += 1 }
                            continue
                        }
                        made.withLock { $0.append((scope, tracked)) }
                    }
                    madeBurst.signal()
                    freedBurst.wait()
                }
            })
            threads.append(Thread {
                for round in 0..<rounds {
                    madeBurst.wait()
                    var scopes = made.withLock { list in
                        defer { list = [] }
                        return list
                    }
                    for (index, (scope, tracked)) in scopes.enumerated() {
                        if (try? scope.tryResolve(type: Tracked.self)) !== tracked
                            || (try? scope.tryResolve(type: Item.self))?.name != "\(pair)/\(round)/\(index)" {
                            mismatches.withLock { $0 += 1 }
                        }
                    }
                    scopes.removeAll()
                    freedBurst.signal()
                }
            })
        }
        for thread in threads {
            thread.start()
        }
        for thread in threads {
            thread.join()
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(counter.created == 2 * rounds * burst, "a scope shared an instance with another")
        #expect(afterReclamation { counter.alive == 0 }, "instances outlived their scopes: \(counter.alive)")
    }
}

/// A request's value.
private final class Item: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

/// An existential whose values (structs of two words) sit in its inline buffer.
private protocol Labelled {
    var label: String { get }
}

private struct Label: Labelled {
    let label: String
}

/// A distinct type per `Tag`, holding a `Value`.
private struct Tagged<Tag, Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}
