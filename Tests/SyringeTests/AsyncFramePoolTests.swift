import Testing
@testable import Syringe

/// Async resolves reuse the frames of registrations already built
/// (`AsyncFramePool`): only a frame nothing else holds goes back, it keeps
/// nothing alive while pooled, and a frame taken again is a new frame.
///
/// The pool is the running thread's, so these tests make and recycle frames
/// synchronously, on one thread, without suspending in between.
@Suite("Async frames reused")
struct AsyncFramePoolTests {
    /// Empties this thread's pool and the process's depot, so that the
    /// frames a test makes next come from nowhere else.
    private static func reset() {
        while AsyncFramePool.take() != nil {}
    }

    /// Empties this thread's pool; returns how many frames it held (not
    /// counting the process's depot, which other tests change).
    private static func drain() -> Int {
        var count = 0
        while AsyncFramePool.takeKeptHere() != nil {
            count += 1
        }
        return count
    }

    @Test("a frame nothing else holds goes back to its thread's pool and is the next frame made there")
    func recycledAndReused() throws {
        Self.reset()
        let c = Container()
        let outer = c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
        let inner = c.register(type: Dog.self, in: .new) { _ in Dog() }
        let frame = try AsyncFrame.enter(outer.definition, parent: nil)
        let address = ObjectIdentifier(frame)
        AsyncFrame.recycle(consume frame)

        let parent = try AsyncFrame.enter(outer.definition, parent: nil)
        #expect(ObjectIdentifier(parent) == address, "the pooled frame was not reused")
        #expect(!parent.isNested && parent.depth == 1 && parent.definition === outer.definition)
        let child = try AsyncFrame.enter(inner.definition, parent: parent)
        #expect(child.isNested && child.depth == 2)
        #expect(child.pathText == ["Tracked", "Dog"])
        // A cycle is still seen through a reused frame.
        #expect(throws: ResolutionError.self) { try AsyncFrame.enter(outer.definition, parent: child) }
        Self.reset()
    }

    @Test("a frame something else holds (a kept resolver, a child frame) is not pooled")
    func heldFrameNotPooled() throws {
        Self.reset()
        let c = Container()
        let outer = c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
        let inner = c.register(type: Dog.self, in: .new) { _ in Dog() }
        let parent = try AsyncFrame.enter(outer.definition, parent: nil)
        let kept = Resolver(container: c, frame: parent)
        AsyncFrame.recycle(consume parent)
        #expect(Self.drain() == 0, "a frame a resolver holds was pooled")

        let child = try AsyncFrame.enter(inner.definition, parent: kept.frame)
        AsyncFrame.recycle(kept.frame!)
        #expect(Self.drain() == 0, "a frame its child holds was pooled")
        AsyncFrame.recycle(consume child)
        #expect(Self.drain() == 1, "the child, which nothing else held, was not pooled")
        #expect(kept.frame!.depth == 1)
    }

    @Test("a frame kept past its engine call holds what the call lent it: its registration, its parent and its container")
    func keptFrameHoldsWhatItWasLent() throws {
        Self.reset()
        weak var outerRegistration: AnyDefinition?
        weak var innerRegistration: AnyDefinition?
        weak var control: AnyDefinition?
        weak var container: Container?
        var kept: Resolver?
        do {
            let c = Container()
            container = c
            let outer = c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            let inner = c.register(type: Dog.self, in: .new) { _ in Dog() }
            control = c.register(type: Cat.self, in: .new) { _ in Cat() }.definition
            outerRegistration = outer.definition
            innerRegistration = inner.definition
            // The engine lends a frame its registration and its parent while
            // the call that made it runs.
            let parent = try AsyncFrame.enter(outer.definition, parent: nil)
            let child = try AsyncFrame.enter(inner.definition, parent: parent, lending: .passUnretained(c))
            kept = Resolver(lentBy: child, container: .passUnretained(c))
            AsyncFrame.recycle(consume child)
            AsyncFrame.recycle(consume parent)
            #expect(Self.drain() == 0, "a frame the kept one needs was pooled")
            // Replaced, the registrations are retired: the container no
            // longer holds them, and the calls that lent them have ended.
            c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
            c.register(type: Dog.self, in: .new) { _ in Dog() }
            c.register(type: Cat.self, in: .new) { _ in Cat() }
        }
        // Retired last, the control is freed once the others could be.
        #expect(afterReclamation { control == nil })
        #expect(outerRegistration != nil && innerRegistration != nil, "a kept frame let its registration go")
        #expect(kept?.frame?.pathText == ["Tracked", "Dog"])
        #expect(container != nil, "a kept frame let its container go")
        kept = nil
        #expect(afterReclamation { outerRegistration == nil && innerRegistration == nil }, "a kept frame leaked")
        #expect(container == nil, "a kept frame leaked its container")
    }

    @Test("a pooled frame keeps nothing alive: its registration and its resolve's graph are freed")
    func pooledFrameHoldsNothing() throws {
        Self.reset()
        let counter = Counter()
        weak var registration: AnyDefinition?
        do {
            let c = Container()
            let graph = c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
            registration = graph.definition
            var frame: AsyncFrame? = try AsyncFrame.enter(graph.definition, parent: nil)
            // The resolve's graph keeps an instance until the frame lets it go.
            let resolution = frame!.resolution
            let (slot, _) = resolution.claim(graph.definition, for: frame!, task: nil)
            resolution.storeAndRelease(InstanceBox.make(Tracked(counter)), in: slot)
            AsyncFrame.recycle(frame.take()!)
            #expect(Self.drain() == 1)
        }
        #expect(counter.alive == 0, "the recycled frame kept its graph's instance")
        #expect(afterReclamation { registration == nil }, "the recycled frame kept its registration")
    }

    @Test("a full pool hands a batch of frames to the depot, and an empty pool takes them from there")
    func depotServesOtherPools() throws {
        let c = Container()
        let outer = c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
        // Pools and a depot of the test's own: the process's are shared
        // with every test running at the same time.
        let depot = AsyncFramePool.Depot()
        var full = AsyncFramePool(depot: depot)
        var made: [AsyncFrame] = []
        for _ in 0..<(AsyncFramePool.capacity + 1) {
            made.append(try AsyncFrame.enter(outer.definition, parent: nil))
        }
        let spilled = Set(made[(AsyncFramePool.capacity - AsyncFramePool.batch)..<AsyncFramePool.capacity].map { UInt(bitPattern: ObjectIdentifier($0)) })
        for frame in made {
            full.push(frame)
        }
        made.removeAll()
        #expect(depot.count == AsyncFramePool.batch)
        var empty = AsyncFramePool(depot: depot)
        var taken: Set<UInt> = []
        while let frame = empty.pop() {
            taken.insert(UInt(bitPattern: ObjectIdentifier(frame)))
        }
        #expect(taken == spilled, "the empty pool did not get the batch the full one handed over")
        #expect(depot.count == 0)
    }

    @Test("a thread's pool keeps at most its capacity, handing a batch to the depot when it is full")
    func bounded() throws {
        Self.reset()
        let c = Container()
        let outer = c.register(type: Tracked.self, in: .new) { _ in Tracked(Counter()) }
        for _ in 0..<(AsyncFramePool.capacity + 4) {
            AsyncFrame.recycle(try AsyncFrame.enter(outer.definition, parent: nil))
        }
        #expect(Self.drain() == 1, "each frame recycled right away is the next one made")
        // A pool and a depot of the test's own for the rest: the process's
        // depot is shared with every test running at the same time.
        let depot = AsyncFramePool.Depot()
        var pool = AsyncFramePool(depot: depot)
        for _ in 0..<(AsyncFramePool.capacity + 4) {
            pool.push(try AsyncFrame.enter(outer.definition, parent: nil))
        }
        // Full at the first frame past its capacity, the pool handed a
        // batch to the depot, then kept the rest.
        #expect(depot.count == AsyncFramePool.batch)
        var kept = 0
        while pool.popKept() != nil {
            kept += 1
        }
        #expect(kept == AsyncFramePool.capacity - AsyncFramePool.batch + 4)
    }

    /// On the main actor, so that the resolve, its factories (which run on
    /// their caller's executor) and the pool it gives its frames back to
    /// are all the main thread's; no factory suspends, so no other test's
    /// job on the main actor runs between a resolve and the count.
    @MainActor
    @Test("an outermost async resolve gives its frame back to its pool, whether its factory returns or throws")
    func outermostFramesPooled() async throws {
        let c = Container()
        c.register(type: Dog.self, in: .new) { (_: Resolver) async in Dog() }
        c.register(type: Cat.self, in: .new) { (_: Resolver) async throws -> Cat in throw Failure(code: 1) }
        c.register(type: Tracked.self) { (_: Resolver) async throws -> Tracked in throw Failure(code: 2) }
        Self.reset()
        _ = try await c.resolveAsync(type: Dog.self)
        #expect(Self.drain() == 1, "a .new resolve's frame was not pooled")
        do {
            _ = try await c.resolveAsync(type: Cat.self)
            Issue.record("a factory that throws was resolved")
        } catch {}
        #expect(Self.drain() == 1, "a failed .new resolve's frame was not pooled")
        do {
            _ = try await c.resolveAsync(type: Tracked.self)
            Issue.record("a factory that throws was resolved")
        } catch {}
        #expect(Self.drain() == 1, "a failed .shared creation's frame was not pooled")
    }

    @Test("async chains resolved over and over through reused frames build the right graph, and a cycle is still a cycle")
    func asyncChainsThroughReusedFrames() async throws {
        let c = Container()
        c.register(type: Dog.self, in: .new) { (_: Resolver) async in Dog() }
        c.register(type: Pair<Dog>.self, in: .new) { (r: Resolver) async throws in
            Pair(first: try await r.resolve(), second: try await r.resolve())
        }
        c.register(type: Connection.self) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Repository.self)
            return await Connection(Counter())
        }
        c.register(type: Repository.self, in: .new) { (r: Resolver) async throws in
            Repository(connection: try await r.resolve(), counter: Counter())
        }
        for _ in 0..<50 {
            let pair = try await c.resolveAsync(type: Pair<Dog>.self)
            #expect(pair.first !== pair.second)
            let error = try #require(await expectAsyncResolutionError(.cycle) { try await c.resolveAsync(type: Repository.self) })
            #expect(error.path == ["Repository", "Connection", "Repository"])
        }
    }
}
