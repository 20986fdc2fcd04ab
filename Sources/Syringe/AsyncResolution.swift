import Synchronization

/// The state of an async resolve: what `ResolutionContext` is to a
/// synchronous one.
///
/// A synchronous resolve keeps its state in its thread's context, because
/// everything it builds runs on that thread. An async factory may suspend and
/// resume on another thread, and may resolve from several child tasks at
/// once (`async let`), so the async engine keeps its state with the resolve
/// instead: each factory's `Resolver` carries the `AsyncFrame` of the
/// registration being built, whose parents are the path to the outermost
/// request, and every frame of one outermost resolve shares one
/// `AsyncResolution` (its `.graph` instances and deferred callbacks).
///
/// What a frame reads is fixed while anything but its engine call holds it,
/// so child tasks can share their parent's safely; the resolution's mutable
/// state is behind its lock, which is never held while a factory or callback
/// runs. A frame nothing else holds when its registration is built goes back
/// to its thread's pool (`AsyncFramePool`) for the next one.
@usableFromInline
final class AsyncFrame: @unchecked Sendable {
    // @unchecked: the fields below are written only while the frame is
    // unshared: when it is set up (new or from a pool, `setUp`), and when it
    // goes back to a pool or is freed (`releaseHeld`, only if nothing else
    // holds it). In between they are read-only, however many tasks and
    // resolvers see the frame, so no two accesses can conflict. The one
    // exception, `holdsReferences`, is set by `recycle` while others may
    // hold the frame, and read only by `recycle` and by `releaseHeld`, once
    // none does: never by the others.
    //
    // The fields others read (child frames, kept resolvers, child tasks)
    // are relaxed atomics, plain loads and stores on x86-64 and arm64. They
    // order nothing themselves: the last reader's release of its reference
    // is ordered before `recycle`'s writes by the reference count and the
    // fence in `recycle`. But ThreadSanitizer cannot see that ordering (the
    // runtime's reference counts are not instrumented, and it ignores
    // fences), and as plain fields it reported a resolver an unstructured
    // task dropped just before `recycle` as a race. The one plain field left
    // is read by no one else; its exclusivity is unchecked at run time (the
    // dynamic checks cost each frame about 250 instructions).

    /// The registration this frame builds; nil only while unused or pooled.
    ///
    /// Lent, not retained, while the engine call that made the frame runs:
    /// that call holds the registration and outlives everything that reads
    /// the frame through it (the factory, its resolves, its child tasks).
    /// If anything still holds the frame when that call ends (a resolver a
    /// factory kept, a claim, a queued callback), `recycle` retains it then
    /// (`holdsReferences`). Retained at every level, it cost each level of
    /// an async chain an atomic retain and release.
    @inlinable
    var definitionReference: Unmanaged<AnyDefinition>? { Self.reference(at: definitionAddress) }
    @usableFromInline
    let definitionAddress = Atomic<UInt>(0)
    /// The frame whose factory asked for this one; nil for the outermost.
    /// Lent or held as `definitionReference` is: the parent's engine call
    /// awaits this frame's, so the parent outlives it until then.
    @inlinable
    var parentReference: Unmanaged<AsyncFrame>? { Self.reference(at: parentAddress) }
    @usableFromInline
    let parentAddress = Atomic<UInt>(0)
    /// The container lent to the resolver made for this frame's factory
    /// (`Resolver.init(lentBy:container:)`), nil if that resolver holds its own.
    /// Lent or held as `definitionReference` is: the engine call that made
    /// the frame holds the container (its caller's resolver, or the caller
    /// of the outermost resolve, does).
    @inlinable
    var containerReference: Unmanaged<Container>? { Self.reference(at: containerAddress) }
    @usableFromInline
    let containerAddress = Atomic<UInt>(0)
    /// Whether the frame holds references to its registration, its parent
    /// and the container lent to it: set by `recycle` on a frame that
    /// something else still holds when its engine call ends, and read only
    /// by `recycle` and by `releaseHeld`, which runs when nothing else holds
    /// the frame any more.
    @exclusivity(unchecked)
    private var holdsReferences = false
    /// The outermost frame, which holds the resolution; nil for that frame.
    /// Not retained: the chain of parents, each one outliving its child
    /// (see `parentReference`), keeps it alive as long as this frame. (A
    /// strong reference cost every frame an atomic retain and release;
    /// walking to the outermost instead made each `.graph` edge of an async
    /// graph cost the depth of the graph.)
    private var outermostReference: Unmanaged<AsyncFrame>? { Self.reference(at: outermostAddress) }
    private let outermostAddress = Atomic<UInt>(0)
    /// The outermost frame's resolution, made on first use: a resolve without
    /// `.graph` instances or callbacks (a `.new` chain) never needs one.
    /// Held as the address of a retained `AsyncResolution` (0 until made),
    /// released by `recycle` or `deinit`. Not an `AtomicLazyReference`: its
    /// unspecialised `load()` looks up the metadata of
    /// `Unmanaged<AsyncResolution>` on every call.
    private let lazyResolution = Atomic<UInt>(0)
    /// The address of the resolution whose `.graph` instances this frame's
    /// factory shares (see `graphResolution`); 0 for the outermost frame's
    /// `resolution`. Copied from the parent by `setUp`, so every frame below
    /// one that `buildInGraph(of:)` moved to another graph uses that one.
    /// Not retained: the outermost frame's resolution holds that graph, and
    /// the chain of parents holds the outermost frame.
    private let graphAddress = Atomic<UInt>(0)
    /// Set on the outermost frame when its resolve has returned (`end()`).
    private let ended = Atomic<Bool>(false)
    /// The task that took a claim through this frame (`AsyncClaims`), for
    /// the cycle check of a task that waits for it: written before the
    /// claim is published, and read only by such a task, under
    /// `AsyncClaims`' lock, while the claim is held. Written again by each
    /// attempt, failed ones too: a frame claims one key, from one task, so
    /// the value never changes while a claim is held.
    var claimTask: UnsafeRawPointer? {
        get { UnsafeRawPointer(bitPattern: claimTaskAddress.load(ordering: .relaxed)) }
        set { claimTaskAddress.store(UInt(bitPattern: newValue), ordering: .relaxed) }
    }
    private let claimTaskAddress = Atomic<UInt>(0)
    /// Frames from the outermost to this one.
    var depth: Int { depthValue.load(ordering: .relaxed) }
    private let depthValue = Atomic<Int>(0)
    /// A bit per registration on the path to this frame, this one's
    /// included (`filterBit`): a registration whose bit is clear is not on
    /// the path, so `enter` needs no walk to rule out a cycle. Without it,
    /// each frame walked the whole path, and a chain of n levels cost O(n²).
    private var pathFilter: UInt64 { pathFilterValue.load(ordering: .relaxed) }
    private let pathFilterValue = Atomic<UInt64>(0)

    /// The reference whose address `field` holds (0: nil).
    @inlinable
    @inline(__always)
    static func reference<T: AnyObject>(at field: borrowing Atomic<UInt>) -> Unmanaged<T>? {
        UnsafeRawPointer(bitPattern: field.load(ordering: .relaxed)).map { Unmanaged<T>.fromOpaque($0) }
    }

    /// Stores `reference`'s address in `field` (0 for nil).
    @inline(__always)
    private static func store<T: AnyObject>(_ reference: Unmanaged<T>?, in field: borrowing Atomic<UInt>) {
        field.store(UInt(bitPattern: reference?.toOpaque()), ordering: .relaxed)
    }

    /// A frame as its pool keeps it: nothing held. `make` sets it up.
    private init() {}

    /// A frame for `definition` below `parent`: one from this thread's pool,
    /// else a new one, set up alike.
    @inline(__always)
    private static func make(definition: AnyDefinition, parent: AsyncFrame?, container: Unmanaged<Container>?) -> AsyncFrame {
        let frame = AsyncFramePool.take() ?? AsyncFrame()
        frame.setUp(definition: definition, parent: parent, container: container)
        return frame
    }

    /// Makes an unheld frame (new, or cleared by `recycle`) the frame of
    /// `definition` below `parent`, these and `container` lent by the
    /// caller (see `definitionReference`).
    @inline(__always)
    private func setUp(definition: AnyDefinition, parent: AsyncFrame?, container: Unmanaged<Container>?) {
        Self.store(Unmanaged.passUnretained(definition), in: definitionAddress)
        Self.store(container, in: containerAddress)
        Self.store(parent.map { Unmanaged.passUnretained($0) }, in: parentAddress)
        Self.store(parent.map { $0.outermostReference ?? Unmanaged.passUnretained($0) }, in: outermostAddress)
        depthValue.store((parent?.depth ?? 0) + 1, ordering: .relaxed)
        pathFilterValue.store((parent?.pathFilter ?? 0) | Self.filterBit(definition), ordering: .relaxed)
        graphAddress.store(parent?.graphAddress.load(ordering: .relaxed) ?? 0, ordering: .relaxed)
    }

    /// Ends `frame`'s engine call, on every path, returning or throwing:
    /// gives the frame to this thread's pool if nothing else holds it (not
    /// a resolver a factory kept, a child frame, a claim or a queued
    /// callback), else makes it hold the references its engine call lent it
    /// (see `definitionReference`). Call while the registration and the
    /// parent it was entered with are still held by the caller. A pooled
    /// frame keeps nothing alive. Saves the allocation and the freeing of a
    /// frame at every level of an async resolve.
    @inline(__always)
    static func recycle(_ frame: consuming AsyncFrame) {
        var frame = consume frame
        guard isKnownUniquelyReferenced(&frame) else {
            // Whoever holds the frame may read it on another thread meanwhile;
            // that reads these references, never `holdsReferences`.
            frame.holdReferences()
            return
        }
        // The last other reference may have been dropped just now on another
        // thread (a resolver a task kept): its reads of the frame happen
        // before the writes below. (A compiler barrier on x86-64.)
        // ThreadSanitizer does not see this ordering, which is why the
        // fields others read are atomics (see the comment on the class).
        atomicMemoryFence(ordering: .acquiring)
        frame.releaseHeld()
        AsyncFramePool.give(consume frame)
    }

    /// Ends the engine call of `frame`, whose instance was built, and
    /// `recycle`s it. For the outermost frame, first ends the resolve: its
    /// deferred callbacks run, and may throw.
    @inline(__always)
    static func leave(_ frame: consuming AsyncFrame) throws(ResolutionError) {
        var frame = consume frame
        if !frame.isNested, isKnownUniquelyReferenced(&frame) {
            // Nothing else holds the outermost frame: no resolver a factory
            // kept, no frame below it that outlived its call, no task
            // waiting on a claim it took, no queued callback (each holds a
            // reference; a registration's claim word, which does not, was
            // released when its creation ended). So nothing can make
            // its resolution from now on, or ask whether its resolve has
            // ended, and without a resolution there is nothing to finish:
            // the frame goes back to the pool as `recycle` would give it,
            // without `end()`, whose sequentially consistent store is a
            // locked instruction on every async resolve. The fence is
            // `recycle`'s: a resolution made by a task that dropped the
            // last other reference just now is seen.
            atomicMemoryFence(ordering: .acquiring)
            if frame.lazyResolution.load(ordering: .relaxed) == 0 {
                frame.releaseHeld()
                AsyncFramePool.give(consume frame)
                return
            }
        }
        var failure: ResolutionError? = nil
        if !frame.isNested {
            do throws(ResolutionError) {
                try frame.finishOutermost()
            } catch {
                failure = error
            }
        }
        recycle(consume frame)
        if let failure {
            throw failure
        }
    }

    /// Ends the engine call of `frame`, whose instance could not be built,
    /// and `recycle`s it. For the outermost frame, first ends the resolve:
    /// what it published is taken back.
    static func leaveFailed(_ frame: consuming AsyncFrame) {
        if !frame.isNested {
            frame.abandonOutermost()
        }
        recycle(consume frame)
    }

    /// `recycle`, `leave` and `leaveFailed` for a frame lent `registration`,
    /// the one it was entered with, by the engine's code inlined into the
    /// caller's module (see `Resolver.recycleFrame(lentBy:)`). Methods of
    /// the frame rather than static ones, which that code called through a
    /// thunk. `registration` is borrowed, so the caller keeps the reference
    /// the frame was lent until the frame has been recycled; the
    /// `withExtendedLifetime` marks it used, so that function signature
    /// optimisation does not drop it and leave these entry points as
    /// thunks to bodies without it.
    @usableFromInline
    consuming func recycle(lentBy registration: AnyDefinition) {
        Self.recycle(self)
        withExtendedLifetime(registration) {}
    }

    /// See `recycle(lentBy:)`.
    @usableFromInline
    consuming func leave(lentBy registration: AnyDefinition) throws(ResolutionError) {
        defer { withExtendedLifetime(registration) {} }
        try Self.leave(self)
    }

    /// See `recycle(lentBy:)`.
    @usableFromInline
    consuming func leaveFailed(lentBy registration: AnyDefinition) {
        Self.leaveFailed(self)
        withExtendedLifetime(registration) {}
    }

    /// Retains what the frame's engine call lent it, for a frame that
    /// outlives that call.
    private func holdReferences() {
        // Once: a frame is recycled once by its engine call, but a frame
        // recycled again (by a test, say) must not hold its references twice.
        guard !holdsReferences else { return }
        _ = definitionReference?.retain()
        _ = parentReference?.retain()
        _ = containerReference?.retain()
        holdsReferences = true
    }

    /// Releases what the frame holds, back to `init()`'s state: before the
    /// frame goes to a pool, and when it is freed. Nothing else holds the
    /// frame then, so its fields need no atomic exchange.
    @inline(__always)
    private func releaseHeld() {
        if let resolution = Self.resolution(at: lazyResolution.load(ordering: .acquiring)) {
            lazyResolution.store(0, ordering: .relaxed)
            Unmanaged.passUnretained(resolution).release()
        }
        ended.store(false, ordering: .relaxed)
        if holdsReferences {
            containerReference?.release()
            parentReference?.release()
            definitionReference?.release()
            holdsReferences = false
        }
        containerAddress.store(0, ordering: .relaxed)
        parentAddress.store(0, ordering: .relaxed)
        outermostAddress.store(0, ordering: .relaxed)
        definitionAddress.store(0, ordering: .relaxed)
        graphAddress.store(0, ordering: .relaxed)
    }

    /// The registration this frame builds.
    var definition: AnyDefinition {
        definitionReference.unsafelyUnwrapped.takeUnretainedValue()
    }

    /// `definition`'s bit in `pathFilter`: one of 64, by its dense index, so
    /// the registrations of a path up to a few dozen long rarely share one.
    private static func filterBit(_ definition: AnyDefinition) -> UInt64 {
        1 &<< UInt64(truncatingIfNeeded: definition.index & 63)
    }

    /// The outermost frame of this one's resolve (this one, if it is).
    private var outermost: Unmanaged<AsyncFrame> {
        outermostReference ?? Unmanaged.passUnretained(self)
    }

    /// What every frame of this outermost resolve shares.
    var resolution: AsyncResolution {
        if let existing = madeResolution {
            return existing
        }
        return outermost._withUnsafeGuaranteedRef { $0.makeResolution() }
    }

    /// The resolution whose `.graph` instances this frame's factory shares:
    /// the outermost frame's, unless a frame on its path builds in another
    /// container's graph (`buildInGraph(of:)`).
    var graphResolution: AsyncResolution {
        Self.resolution(at: graphAddress.load(ordering: .relaxed)) ?? resolution
    }

    /// Makes the frames below this one build in `holder`'s graph of this
    /// resolve: for a `.shared`, `.weak` or `.scoped` instance held by
    /// `holder`, built for a resolve through another container (see
    /// `ResolutionContext.enterGraph(of:)`). Its callbacks still go to the
    /// outermost frame's resolution and run when the whole resolve has
    /// finished, with resolvers whose frames still lead to that graph. Call
    /// before the factory runs, while no other task reads the frame. An
    /// outermost frame's graph is empty, and its resolve builds nothing
    /// after its factory: it needs no other.
    func buildInGraph(of holder: Container) {
        guard isNested else { return }
        let own = resolution.ownGraph(of: holder)
        graphAddress.store(UInt(bitPattern: Unmanaged.passUnretained(own).toOpaque()), ordering: .relaxed)
    }

    /// Makes the resolution; called on the outermost frame.
    private func makeResolution() -> AsyncResolution {
        // Frames of one resolve may race here (child tasks): the first
        // store wins, and a loser releases its own and uses the winner's.
        let made = Unmanaged.passRetained(AsyncResolution())
        let (stored, winner) = lazyResolution.compareExchange(
            expected: 0,
            desired: UInt(bitPattern: made.toOpaque()),
            ordering: .sequentiallyConsistent
        )
        if stored {
            // Made after the resolve ended (see `end()`): it queues and
            // keeps nothing.
            if ended.load(ordering: .sequentiallyConsistent) {
                made.takeUnretainedValue().end()
            }
            return made.takeUnretainedValue()
        }
        made.release()
        return Self.resolution(at: winner)!
    }

    deinit {
        releaseHeld()
    }

    private static func resolution(at address: UInt) -> AsyncResolution? {
        UnsafeRawPointer(bitPattern: address).map { Unmanaged<AsyncResolution>.fromOpaque($0).takeUnretainedValue() }
    }

    /// This frame, if its resolve is still running; nil once the outermost
    /// resolve has returned. A factory may keep its `Resolver` (in a task it
    /// starts, say) and resolve through it later: that is then a resolve of
    /// its own, not part of a graph that is gone, and keeps nothing of it.
    /// So is one entered before the end and still running then, from then
    /// on (see `AsyncResolution.ended`).
    /// `enter` applies this to every frame it makes, so the engine asks it
    /// only where a parent is used before a frame is entered.
    var unlessEnded: AsyncFrame? {
        hasEnded ? nil : self
    }

    /// Whether this frame's outermost resolve has returned: see `unlessEnded`.
    var hasEnded: Bool {
        outermost._withUnsafeGuaranteedRef { $0.ended.load(ordering: .acquiring) }
    }

    /// Ends the outermost resolve: see `unlessEnded`. Drops its graph and
    /// its callbacks. Call on the outermost frame, once.
    func end() {
        // Sequentially consistent, as `makeResolution`'s exchange and load:
        // of a resolution made now by a frame still running (one a task
        // started through a resolver this resolve lent), either this sees
        // it or its maker sees the end, and ends it.
        ended.store(true, ordering: .sequentiallyConsistent)
        Self.resolution(at: lazyResolution.load(ordering: .sequentiallyConsistent))?.end()
    }

    /// Ends the outermost frame's resolve when its instance was built: runs
    /// the deferred `onResolved` callbacks, then lets the graph go. The
    /// resolve ends either way: a resolver a factory kept starts a resolve
    /// of its own from now on. When a callback throws, `finish` has already
    /// taken back exactly the instances whose callbacks did not all run.
    @usableFromInline
    func finishOutermost() throws(ResolutionError) {
        defer { end() }
        try madeResolution?.finish()
    }

    /// Ends the outermost frame's resolve when it failed: takes back what it
    /// published.
    @usableFromInline
    func abandonOutermost() {
        madeResolution?.abandon()
        end()
    }

    /// Whether this frame is part of a resolve begun above it; false for the
    /// outermost frame.
    @inlinable
    var isNested: Bool { parentReference != nil }

    /// The resolution, if any frame has needed it yet.
    var madeResolution: AsyncResolution? {
        Self.resolution(at: outermost._withUnsafeGuaranteedRef { $0.lazyResolution.load(ordering: .acquiring) })
    }

    /// How many callbacks this resolve has queued so far: what a `.shared`
    /// or `.weak` creation compares before and after its factory (see
    /// `AsyncResolution.deferUndo`). Zero, and no resolution made, for a
    /// resolve without callbacks.
    var queuedCallbackCount: Int {
        madeResolution?.pendingCount ?? 0
    }

    /// Starts building `definition` below `parent` (a new outermost resolve
    /// when nil, or when the resolve `parent` belonged to has ended: see
    /// `unlessEnded`); fails on a cycle, with the same bounds as the
    /// synchronous engine (`ResolutionContext.enterNested`).
    ///
    /// The caller lends the frame `definition`, `parent` and `container`
    /// (the container of a resolver made with `Resolver.init(lentBy:container:)`,
    /// if any): it holds them until it passes the frame to `recycle`, which
    /// it does on every path.
    @inline(__always)
    static func enter(_ definition: AnyDefinition, parent: AsyncFrame?, lending container: Unmanaged<Container>? = nil) throws(ResolutionError) -> AsyncFrame {
        // Passed on unwrapped rather than bound (`if let`): the binding was
        // a copy, a retain and a release per level.
        guard parent != nil, !parent.unsafelyUnwrapped.hasEnded else {
            return make(definition: definition, parent: nil, container: container)
        }
        return try enter(definition, below: parent.unsafelyUnwrapped, container: container)
    }

    /// `enter` below a parent whose resolve is running.
    @inline(__always)
    private static func enter(_ definition: AnyDefinition, below parent: AsyncFrame, container: Unmanaged<Container>?) throws(ResolutionError) -> AsyncFrame {
        let occurrences = parent.pathFilter & filterBit(definition) == 0 ? 0 : parent.occurrences(of: definition)
        if (occurrences > 0 && !definition.takesArguments) || occurrences >= ResolutionContext.maximumRecursion
            || parent.depth >= ResolutionContext.maximumDepth {
            throw definition.error(.cycle, path: parent.pathText + [definition.stepText])
        }
        return make(definition: definition, parent: parent, container: container)
    }

    /// How often `definition` is being built on the path to this frame.
    private func occurrences(of definition: AnyDefinition) -> UInt32 {
        var count: UInt32 = 0
        walkToRoot { frame in
            if frame.definition === definition {
                count += 1
            }
            return true
        }
        return count
    }

    /// Calls `visit` with this frame and then each parent, up to the
    /// outermost or until `visit` returns false.
    ///
    /// Without reference counting: every frame's parent outlives it (see
    /// `parentReference`), and the caller holds this one, so the chain
    /// outlives the walk. Each `enter`
    /// walks the whole path, and retaining each frame on the way cost a
    /// five-level chain of async factories ten retains and releases.
    @inline(__always)
    private func walkToRoot(_ visit: (AsyncFrame) -> Bool) {
        var frame = Unmanaged.passUnretained(self)
        while true {
            let parent: Unmanaged<AsyncFrame>? = frame._withUnsafeGuaranteedRef { current in
                guard visit(current) else { return nil }
                return current.parentReference
            }
            guard let parent else { return }
            frame = parent
        }
    }

    /// Whether `definition` is being built on the path to this frame.
    func contains(_ definition: AnyDefinition) -> Bool {
        occurrences(of: definition) > 0
    }

    /// Whether `frame` is this frame or one of its parents: this frame's
    /// resolve is part of `frame`'s.
    func descends(from frame: AsyncFrame) -> Bool {
        var found = false
        walkToRoot { candidate in
            found = candidate === frame
            return !found
        }
        return found
    }

    /// The path from the outermost request to this frame.
    var pathText: [String] {
        pathDefinitions.map(\.stepText)
    }

    /// The registrations of `pathText`, outermost first.
    var pathDefinitions: [AnyDefinition] {
        var definitions: [AnyDefinition] = []
        walkToRoot { frame in
            definitions.append(frame.definition)
            return true
        }
        return definitions.reversed()
    }

    /// The innermost `.shared` or `.weak` registration on the path: the one
    /// a `.scoped` instance resolved now would be captured by.
    var innermostSingleton: AnyDefinition? {
        var singleton: AnyDefinition?
        walkToRoot { frame in
            if frame.definition.kind == .shared || frame.definition.kind == .weak {
                singleton = frame.definition
            }
            return singleton == nil
        }
        return singleton
    }

    /// Turns what this frame's factory threw into a `ResolutionError`.
    @usableFromInline
    func failure(_ error: any Error) -> ResolutionError {
        if let error = error as? ResolutionError {
            return error
        }
        return definition.error(.factoryFailed(error), path: pathText)
    }
}

extension Resolver {
    /// Ends the engine call of this resolver's frame, made for it with
    /// `Resolver(lentBy:container:)`: `AsyncFrame.recycle`.
    /// The resolver's references go first, so that a frame held by nothing
    /// else is seen as unique. Inlined: the resolver holds no container
    /// (`owner` is nil), which the caller's code knows and a call would not.
    @inlinable
    @inline(__always)
    consuming func recycleFrame(lentBy registration: AnyDefinition) {
        releasingFrame().recycle(lentBy: registration)
    }

    /// `recycleFrame`, with `AsyncFrame.leave`: for the outermost frame,
    /// its resolve ends too.
    @inlinable
    @inline(__always)
    consuming func leaveFrame(lentBy registration: AnyDefinition) throws(ResolutionError) {
        try releasingFrame().leave(lentBy: registration)
    }

    /// `recycleFrame`, with `AsyncFrame.leaveFailed`: for the outermost
    /// frame, what its resolve published is taken back.
    @inlinable
    @inline(__always)
    consuming func leaveFrameFailed(lentBy registration: AnyDefinition) {
        releasingFrame().leaveFailed(lentBy: registration)
    }

    /// This resolver's frame, the resolver gone.
    @inlinable
    @inline(__always)
    consuming func releasingFrame() -> AsyncFrame {
        let frame = self.frame.unsafelyUnwrapped
        _ = consume self
        return frame
    }
}

/// What one outermost async resolve shares among its frames: its `.graph`
/// instances and the `onResolved` callbacks that run when it has built the
/// whole graph.
@usableFromInline
final class AsyncResolution: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`; for the same
    // reason exclusivity is not checked at run time (no two accesses can
    // overlap: callbacks run after the lock is released).
    private let lock = Lock()
    /// Each `.graph` registration's slot in this graph, at its `graphIndex`
    /// (dense across the process, see `DenseIndices.graphs`): found in O(1),
    /// with no hashing, where a dictionary keyed by definition cost every
    /// edge of an async graph a `Hasher` run, and its growth a rehash. A
    /// slot keeps its registration alive, so no other registration can take
    /// its index while this graph may still look it up.
    @exclusivity(unchecked)
    private var slots: [GraphSlot?] = []
    @exclusivity(unchecked)
    private var pending: [Pending] = []
    /// The graphs of the other containers whose instances this resolve
    /// built (see `AsyncFrame.buildInGraph(of:)`), each with its container,
    /// retained so that no container made and freed meanwhile takes its
    /// identity. Ended with this one, but held as long as it is: frames
    /// point at them unretained (`AsyncFrame.graphAddress`), and a resolver
    /// a factory kept may still read one.
    @exclusivity(unchecked)
    private var ownGraphs: [(owner: Container, graph: AsyncResolution)] = []
    /// Set when the resolve ends, with the last look at `pending` (by
    /// `finish` or `abandon`, else by `end`). A frame still running then
    /// (one a task started through a resolver the resolve lent) is a
    /// resolve of its own from then on, as one entered after the end is
    /// (see `AsyncFrame.unlessEnded`): nothing more is queued or kept here,
    /// where nothing would ever run it or let it go, and what a queued
    /// callback holds (its resolver, whose frames lead back here) would
    /// keep the resolve and its container alive.
    @exclusivity(unchecked)
    private var ended = false

    /// A queued callback (or an undo, or both): this resolve's own, or one
    /// a synchronous resolve inside it handed over (`adopt`).
    struct Pending {
        let definition: AnyDefinition
        let run: () throws -> Void
        let undo: (() -> Void)?
        /// For callbacks, the path to the instance (see
        /// `ResolutionContext.PendingHook.path`).
        var path: [AnyDefinition] = []
    }

    /// Where `definition`'s instance in this graph is (or will be), made on
    /// first use. Call with the lock.
    private func slotLocked(for definition: AnyDefinition) -> GraphSlot {
        let index = definition.graphIndex
        if index < slots.count, let slot = slots[index] {
            return slot
        }
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count))
        }
        let slot = GraphSlot(definition)
        slots[index] = slot
        return slot
    }

    /// `container`'s graph in this resolve, made on first use.
    func ownGraph(of container: Container) -> AsyncResolution {
        let (graph, kept) = lock.withLock { () -> (AsyncResolution, Bool) in
            if let existing = ownGraphs.first(where: { $0.owner === container }) {
                return (existing.graph, true)
            }
            let made = AsyncResolution()
            if !ended {
                ownGraphs.append((container, made))
            }
            return (made, !ended)
        }
        if !kept {
            graph.end()   // see `ended`
        }
        return graph
    }

    /// The box of `definition`'s instance in this graph, if it was made.
    /// A box, not the instance: in unspecialised code a `T?` costs a
    /// runtime metadata lookup; the specialised caller takes the value out.
    func box(of definition: AnyDefinition) -> AnyObject? {
        let index = definition.graphIndex
        return lock.withLock { index < slots.count ? slots[index]?.box : nil }
    }

    /// The box of the instance in `slot`, if it was made.
    func box(in slot: GraphSlot) -> AnyObject? {
        lock.withLock { slot.box }
    }

    /// Keeps `box` in `slot`, unless one is there already: returns the box
    /// the graph uses. Call with the lock.
    private func storeLocked(_ box: AnyObject, in slot: GraphSlot) -> AnyObject {
        if let kept = slot.box {
            return kept
        }
        slot.box = box
        return box
    }

    /// Keeps `box` in `slot` (see `storeLocked`) for a builder holding the
    /// claim `AsyncClaims` keeps (see `claim`).
    func store(_ box: AnyObject, in slot: GraphSlot) -> AnyObject {
        lock.withLock { storeLocked(box, in: slot) }
    }

    /// What `claim` (or `claim(_:forThread:)`) found.
    enum GraphClaim {
        /// The instance exists: its box.
        case built(AnyObject)
        /// The caller builds it, then calls `storeAndRelease`.
        case claimed
        /// Another task builds it: wait through `AsyncClaims` (another
        /// thread, for `claim(_:forThread:)`: through `InstanceCreation`),
        /// keyed by the slot.
        case contended
    }

    /// Finds `definition`'s slot and claims it for `frame` (running in
    /// `task`) unless its instance exists or another frame builds it.
    ///
    /// A graph's slot is claimed here, under this graph's lock, and not in
    /// `AsyncClaims`' process-wide table, which every async graph of every
    /// task would share: there a claim took the process-wide lock twice and
    /// a search through every claim held, and a chain's claims are all held
    /// at once, so a graph of n levels cost O(n²). Only when a second task
    /// asks for an instance being built (child tasks of one factory, through
    /// `async let`) does the claim move to `AsyncClaims`, which parks the
    /// waiter and checks for a cycle across tasks. That check follows each
    /// waited-for claim to its owner, and every claim a task waits for is
    /// one that moved, so a claim that never moved is never needed by it.
    /// From then on the slot is claimed there only.
    func claim(_ definition: AnyDefinition, for frame: AsyncFrame, task: UnsafeRawPointer?) -> (GraphSlot, GraphClaim) {
        lock.withLock {
            let (slot, found) = slotLocked(claiming: definition)
            if let found {
                return (slot, found)
            }
            guard let builder = slot.builder else {
                slot.builder = Unmanaged.passUnretained(frame)
                slot.builderTask = task
                return (slot, .claimed)
            }
            // Lock order: this graph's lock, then `AsyncClaims`' (which never
            // takes a graph's).
            AsyncClaims.adopt(ObjectIdentifier(slot), owner: builder.takeUnretainedValue(), task: slot.builderTask)
            slot.builder = nil
            slot.builderTask = nil
            slot.contended = true
            return (slot, .contended)
        }
    }

    /// Keeps the box a builder made (nil: it failed) in `slot` and releases
    /// the claim `claim` gave it (`.claimed`), wherever the claim is now.
    /// Returns the box the graph uses.
    @discardableResult
    func storeAndRelease(_ made: AnyObject?, in slot: GraphSlot) -> AnyObject? {
        let (kept, moved) = lock.withLock {
            slot.builder = nil
            slot.builderTask = nil
            return (made.map { storeLocked($0, in: slot) }, slot.contended)
        }
        if moved {
            AsyncClaims.release(.slot(slot))
        }
        return kept
    }

    /// The slot `claim` and `claim(_:forThread:)` claim for `definition`,
    /// and what they find there without claiming it: its instance, or its
    /// claims moved to a table. Call with the lock held.
    @inline(__always)
    private func slotLocked(claiming definition: AnyDefinition) -> (GraphSlot, GraphClaim?) {
        // After the end, a slot nothing else finds (see `ended`).
        let slot = ended ? GraphSlot(definition) : slotLocked(for: definition)
        if let box = slot.box {
            return (slot, .built(box))
        }
        return (slot, slot.contended ? .contended : nil)
    }

    /// `claim` for a synchronous `.graph` registration's instance, which a
    /// synchronous resolve inside this async one builds (see
    /// `ResolutionContext.asyncParent`) on the thread whose context's
    /// `claimHolder` is `holder`: child tasks of one factory, on threads of
    /// their own, may ask for it at once. Without a claim each built one,
    /// and the graph kept the first while the others' callbacks and
    /// disposal were already queued.
    ///
    /// Held in the slot (`builderThread`) until a second thread asks: only
    /// then does the claim move to `InstanceCreation`, which blocks that
    /// thread (the builder runs a synchronous factory, which cannot suspend:
    /// the wait ends when it returns) and checks for a cycle across threads,
    /// as for a `.shared` instance another thread creates. Every claim a
    /// thread waits for has moved, so a claim that never moved is never
    /// needed by it (as in `claim`).
    ///
    /// A registration with both kinds of factory (isolated to the main
    /// actor) may be claimed here and by a task (`claim`) at once: each
    /// kind waits only for its own, so a thread never blocks for a task,
    /// which may be waiting for that very thread (the main actor's), and
    /// the two may each build one, as before these claims.
    func claim(_ definition: AnyDefinition, forThread holder: UInt32) -> (GraphSlot, GraphClaim) {
        lock.withLock {
            let (slot, found) = slotLocked(claiming: definition)
            if let found {
                return (slot, found)
            }
            guard slot.builderThread != 0 else {
                slot.builderThread = holder
                return (slot, .claimed)
            }
            // Lock order: this graph's lock, then `InstanceCreation`'s
            // (which never takes a graph's).
            InstanceCreation.adopt(ObjectIdentifier(slot), heldBy: slot.builderThread)
            slot.builderThread = 0
            slot.contended = true
            return (slot, .contended)
        }
    }

    /// `storeAndRelease` for the thread of `holder`, whose claim
    /// `claim(_:forThread:)` gave (`.claimed`).
    @discardableResult
    func storeAndRelease(_ made: AnyObject?, in slot: GraphSlot, heldBy holder: UInt32) -> AnyObject? {
        let (kept, moved) = lock.withLock {
            // Moved (to `InstanceCreation`) if a second thread asked; not
            // `contended`, which a task may have set (see `claim(_:forThread:)`).
            let moved = slot.builderThread != holder
            if !moved {
                slot.builderThread = 0
            }
            return (made.map { storeLocked($0, in: slot) }, moved)
        }
        if moved {
            InstanceCreation.release(ObjectIdentifier(slot))
        }
        return kept
    }

    /// Queues `definition`'s `onResolved` callbacks on `instance` for the
    /// end of the outermost resolve; `undo` takes a published instance back
    /// if they never all run. Once the resolve has ended (see `ended`),
    /// queues nothing and runs them at once (`runCallbacks`): the frame
    /// that built the instance is then a resolve of its own, which ends
    /// here, its instance built.
    func deferCallbacks<T>(_ hooks: Hooks<T>, of definition: AnyDefinition, resolver: Resolver, instance: T, undo: (() -> Void)?) throws(ResolutionError) {
        guard hooks.hasCallbacks else { return }
        if !queueCallbacks(hooks, of: definition, resolver: resolver, instance: instance, undo: undo) {
            try Self.runCallbacks(hooks, of: definition, resolver: resolver, instance: instance, undo: undo)
        }
    }

    /// `deferCallbacks` once there are some (false, queueing nothing, once
    /// the resolve has ended): apart, because building the
    /// queued closure needs `UncheckedSendable<T>`'s metadata, a runtime
    /// lookup in this unspecialised code, which the optimiser asked for on
    /// entry, before the check, for every instance with hooks (a disposer
    /// alone, as a request's transaction has).
    @inline(never)
    private func queueCallbacks<T>(_ hooks: Hooks<T>, of definition: AnyDefinition, resolver: Resolver, instance: T, undo: (() -> Void)?) -> Bool {
        // @unchecked: the instance goes from the task that made it to the
        // one that finishes the resolve, which runs after it, never beside it.
        let deferred = UncheckedSendable(instance)
        let path = resolver.frame?.pathDefinitions ?? [definition]
        return lock.withLock {
            guard !ended else { return false }
            pending.append(Pending(definition: definition, run: {
                // Joined to this resolve, from the instance's frame, as its
                // factory was: what the callbacks resolve synchronously finds
                // this graph's instances, with the instance's path.
                try ResolutionContext.current.joining(resolver.frame, callbacks: true) {
                    for callback in hooks.callbacks {
                        try callback(resolver, deferred.value)
                    }
                }
            }, undo: undo, path: path))
            return true
        }
    }

    /// Runs `definition`'s callbacks on `instance`, as `finish` would: when
    /// one throws, the rest do not run and `undo` takes the instance back.
    @inline(never)
    private static func runCallbacks<T>(_ hooks: Hooks<T>, of definition: AnyDefinition, resolver: Resolver, instance: T, undo: (() -> Void)?) throws(ResolutionError) {
        do {
            for callback in hooks.callbacks {
                try callback(resolver, instance)
            }
        } catch {
            let failure = Self.failure(error, ofCallbackOf: definition, path: resolver.frame?.pathDefinitions ?? [definition])
            undo?()
            throw failure
        }
    }

    /// What a callback threw, as the resolve reports it.
    private static func failure(_ error: any Error, ofCallbackOf definition: AnyDefinition, path: [AnyDefinition]) -> ResolutionError {
        error as? ResolutionError ?? definition.error(.factoryFailed(error), path: path.map(\.stepText)).thrownByCallback()
    }

    /// How many callbacks are queued.
    var pendingCount: Int {
        lock.withLock { pending.count }
    }

    /// Queues `undo` for a `.shared` or `.weak` instance without callbacks
    /// of its own whose factory built instances with callbacks queued: if
    /// one of those fails, `undo` takes the instance back (see
    /// `ResolutionContext.deferUndo`). Another task of the resolve may have
    /// queued some of them: then an instance may be taken back that did not
    /// need it, and is made again by the next resolve, never handed out
    /// half-configured. Once the resolve has ended, nothing is left to
    /// undo it for: what it queued has run or been taken back.
    func deferUndo(of definition: AnyDefinition, _ undo: @escaping () -> Void) {
        lock.withLock {
            guard !ended else { return }
            pending.append(Pending(definition: definition, run: {}, undo: undo))
        }
    }

    /// Queues `hooks`, which a synchronous resolve inside this one queued
    /// (`ResolutionContext.handOver`), after those queued so far; false,
    /// queueing nothing, once the resolve has ended.
    func adopt(_ hooks: [Pending]) -> Bool {
        lock.withLock {
            guard !ended else { return false }
            pending.append(contentsOf: hooks)
            return true
        }
    }

    /// Runs the queued callbacks, in the order they were queued; when one
    /// throws, the rest do not run and their instances are taken back.
    func finish() throws(ResolutionError) {
        var index = 0
        while true {
            let next: Pending? = lock.withLock {
                guard index < pending.count else {
                    ended = true   // with the last look: see `ended`
                    return nil
                }
                return pending[index]
            }
            guard let hook = next else { break }
            do {
                try hook.run()
            } catch {
                let failure = Self.failure(error, ofCallbackOf: hook.definition, path: hook.path)
                abandon(from: index)
                throw failure
            }
            index += 1
        }
    }

    /// Takes back every published instance whose callbacks did not all run.
    func abandon(from start: Int = 0) {
        let undone = lock.withLock {
            ended = true   // see `ended`
            return pending[start...].compactMap(\.undo)
        }
        for undo in undone {
            undo()
        }
    }

    /// Lets go of the graph and the callbacks once the resolve has returned.
    func end() {
        let (dropped, owned) = lock.withLock { () -> (([GraphSlot?], [Pending]), [AsyncResolution]) in
            defer {
                slots = []
                pending = []
                ended = true
            }
            return ((slots, pending), ownGraphs.map(\.graph))
        }
        // Released outside the lock: an instance's deinit may resolve.
        withExtendedLifetime(dropped) {}
        for own in owned {
            own.end()
        }
    }
}

/// One `.graph` registration's instance in one async graph, and who is
/// building it: a task, or for a synchronous registration a thread. Guarded
/// by its resolution's lock (see `AsyncResolution.claim` and
/// `claim(_:forThread:)`).
final class GraphSlot: @unchecked Sendable {
    /// Held so that the registration's graph index stays its own while the
    /// graph has this slot.
    let definition: AnyDefinition
    /// The instance's `InstanceBox`, once made.
    var box: AnyObject?
    /// The frame building the instance while no other task waits for it,
    /// and its task. Unretained: a frame releases its claim before it ends.
    var builder: Unmanaged<AsyncFrame>?
    var builderTask: UnsafeRawPointer?
    /// Whether the slot's claims have moved to `AsyncClaims` (a second task
    /// asked while it was being built), or for a synchronous registration
    /// to `InstanceCreation` (a second thread asked); they stay there.
    var contended = false
    /// The `ResolutionContext.claimHolder` of the thread building a
    /// synchronous registration's instance while no other thread waits for
    /// it, 0 if none (see `AsyncResolution.claim(_:forThread:)`).
    var builderThread: UInt32 = 0

    init(_ definition: AnyDefinition) {
        self.definition = definition
    }
}

/// Carries a value that is handed between tasks one at a time, never shared.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
