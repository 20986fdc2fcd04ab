public import CSyringeTable

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of the resolve in progress on one thread.
///
/// Factories are synchronous, so everything one top-level resolve builds runs
/// on the calling thread. Each thread therefore owns exactly one context,
/// kept in thread-local storage and reused by every resolve on that thread:
/// no allocation per resolve, no lock, and no way for two threads to share
/// one. A resolve that starts while the context is idle is the outermost one;
/// every resolve nested inside it (through a `Resolver`, or directly through a
/// container) joins it, so `.graph` instances are shared, cycles are seen
/// across containers, and `onResolved` callbacks run once the outermost
/// resolve has built the whole graph. (Each container it goes through has an
/// object graph of its own in it: see `enterGraph(of:)`.)
@usableFromInline
final class ResolutionContext {
    // Exclusivity is not checked at run time: a context is confined to its
    // thread (it lives in thread-local storage and never escapes), and no
    // access below stays open across a call that could re-enter the context
    // (a factory or callback runs between accesses, never inside one). The
    // dynamic checks cost a third of a `.new` resolve.

    /// The definitions being built, outermost first, in `frames[0..<depth]`:
    /// the path of an error. A raw buffer, grown by `enterNested` (a graph can
    /// be a thousand levels deep); pushing and popping a pointer is cheaper
    /// than a growable array's uniqueness and capacity checks. Entries never
    /// outlive the resolve; definitions are kept alive by their containers.
    @usableFromInline
    @exclusivity(unchecked)
    var frames = UnsafeMutablePointer<Unmanaged<AnyDefinition>>.allocate(capacity: 64)
    /// At most `maximumDepth` (see `enter`).
    @usableFromInline
    @exclusivity(unchecked)
    var frameCapacity = 64
    @usableFromInline
    @exclusivity(unchecked)
    var depth = 0
    /// How many of `frames[1..<depth]` each definition is, by
    /// `AnyDefinition.index`: the cycle check is one load, not a scan of the
    /// frames (which made a graph's cost grow with the square of its depth).
    /// The outermost frame is not counted, so that a single resolve touches
    /// nothing here; `enter` compares with it directly.
    @usableFromInline
    @exclusivity(unchecked)
    var building: UnsafeMutablePointer<UInt32> = .allocate(capacity: 0)
    @usableFromInline
    @exclusivity(unchecked)
    var buildingCapacity = 0
    /// `.graph` instances of the current object graph: the outermost
    /// resolve's (`mainGraph`), or, while a resolve through another
    /// container runs inside it (a parent's `.shared`, `.weak` or `.scoped`
    /// instance being built, a container asked directly from a factory),
    /// that container's graph in this resolve (see `enterGraph(of:)`).
    @usableFromInline
    @exclusivity(unchecked)
    var graph: GraphInstances
    /// The outermost resolve's graph, which `graph` is whenever no
    /// `enterGraph(of:)` is in progress.
    private let mainGraph = GraphInstances()
    /// The container whose factories build in `graph`: the one the
    /// outermost resolve was asked of (set by `Container.asOutermostIfIdle`),
    /// or the one whose graph `enterGraph(of:)` made current. Only its
    /// identity is used: the outermost resolve's caller holds the first,
    /// `ownGraphs` the others; an idle context's is stale and never read.
    @usableFromInline
    @exclusivity(unchecked)
    var graphOwner: UnsafeMutableRawPointer?
    /// The owner of `mainGraph`: what `graphOwner` was when a switch left
    /// the main graph, so that a switch back to its container finds it.
    /// Read only while `ownGraphDepth` is above zero.
    @exclusivity(unchecked)
    private var mainOwner: UnsafeMutableRawPointer?
    /// How many graph switches are in progress: while any is, `graph` is
    /// not the main one.
    @exclusivity(unchecked)
    private var ownGraphDepth = 0
    /// The graphs of the other containers this outermost resolve built in
    /// (see `enterGraph(of:)`), each with its container, retained so that
    /// no container made and freed meanwhile takes its identity; kept
    /// until the resolve ends, with the callbacks of what they hold, which
    /// run in them.
    @exclusivity(unchecked)
    private var ownGraphs: [(owner: Container, graph: GraphInstances)] = []
    /// Emptied graphs that `enterGraph(of:)` reuses.
    @exclusivity(unchecked)
    private var spareGraphs: [GraphInstances] = []
    /// Tables and registration lists that containers freed on this thread
    /// left for the next ones (see `SpareTables`); reached through this
    /// pointer without retaining the context.
    let spareTables: UnsafeMutablePointer<SpareTables> = {
        let spares = UnsafeMutablePointer<SpareTables>.allocate(capacity: 1)
        spares.initialize(to: SpareTables())
        return spares
    }()
    /// Emptied boxes and registrations that scopes freed on this thread
    /// left for the next ones (see `SpareObjects`); reached as
    /// `spareTables` is.
    let spareObjects: UnsafeMutablePointer<SpareObjects> = {
        let spares = UnsafeMutablePointer<SpareObjects>.allocate(capacity: 1)
        spares.initialize(to: SpareObjects())
        return spares
    }()
    /// Spare frames for this thread's async resolves.
    let framePool: UnsafeMutablePointer<AsyncFramePool> = {
        let pool = UnsafeMutablePointer<AsyncFramePool>.allocate(capacity: 1)
        pool.initialize(to: AsyncFramePool())
        return pool
    }()
    /// `onResolved` callbacks waiting for the outermost resolve to finish.
    @exclusivity(unchecked)
    private var pending: [PendingHook] = []
    /// True while pending callbacks run; resolves they make are not outermost.
    @usableFromInline
    @exclusivity(unchecked)
    var finishing = false

    init() {
        graph = mainGraph
    }

    /// Definition indices freed on this thread, handed out again by
    /// `DenseIndices.takeDefinitionIndex` without its lock. At most
    /// `spareIndexCapacity`; the rest go back to `DenseIndices.definitions`,
    /// and so do these when the thread exits.
    @exclusivity(unchecked)
    private var spareIndices = UnsafeMutablePointer<UInt32>.allocate(capacity: spareIndexCapacity)
    @exclusivity(unchecked)
    private var spareIndexCount = 0
    private static let spareIndexCapacity = 16

    /// This thread's identity in the claims of `InstanceCreation`: twice a
    /// dense index of live contexts, plus 2, so that it is even (the low
    /// bit marks a contended claim) and never 0 (a free one), and fits the
    /// 32 bits a definition keeps its claim in.
    let claimHolder: UInt32 = {
        let index = DenseIndices.contexts.take()
        // Dense indices count threads alive at once.
        precondition(index < 1 << 30, "Syringe: more than 2³⁰ threads resolving at once")
        return UInt32(index + 1) << 1
    }()

    deinit {
        framePool.deinitialize(count: 1)
        framePool.deallocate()
        spareTables.deinitialize(count: 1)
        spareTables.deallocate()
        spareObjects.deinitialize(count: 1)
        spareObjects.deallocate()
        frames.deallocate()
        building.deallocate()
        DenseIndices.definitions.giveBack(UnsafeBufferPointer(start: spareIndices, count: spareIndexCount))
        spareIndices.deallocate()
        DenseIndices.contexts.giveBack(Int(claimHolder >> 1) - 1)
    }

    /// One of the definition indices this thread keeps, if any.
    func takeSpareIndex() -> Int? {
        guard spareIndexCount > 0 else { return nil }
        spareIndexCount -= 1
        return Int(spareIndices[spareIndexCount])
    }

    /// Keeps a freed definition's index for this thread; false when full.
    func keepSpareIndex(_ index: Int) -> Bool {
        guard spareIndexCount < Self.spareIndexCapacity else { return false }
        spareIndices[spareIndexCount] = UInt32(index)
        spareIndexCount += 1
        return true
    }

    struct PendingHook {
        let definition: AnyDefinition
        let run: () throws -> Void
        /// Takes a `.shared` or `.weak` instance back when its callbacks
        /// could not all run (see `abandon`), or disposes an instance that
        /// had no owner (see `deferFailure`); nil otherwise.
        let undo: ((ResolutionContext) -> Void)?
        /// For callbacks: the registrations on the path to the instance when
        /// it was made, outermost first, the instance's own last. The path
        /// of what they throw, and of what the resolves they make throw:
        /// they run after the outermost resolve has left every frame.
        /// Retained: a registration replaced meanwhile is still named.
        var path: [AnyDefinition] = []
        /// For callbacks queued while `graph` was not the main one: that
        /// graph and its owner, which the callbacks' resolves join.
        var graph: OuterGraph? = nil
        /// A failure `deferFailure` queued: the resolve that queued it fails.
        var isFailure = false
    }

    /// The `path` of the callbacks `finish()` is running.
    @exclusivity(unchecked)
    var runningHookPath: [AnyDefinition] = []

    /// The async resolve that this thread's synchronous resolve runs inside:
    /// set by the async engine while it runs a synchronous registration (see
    /// `Container.produceBridged`), so that the path of an error starts at
    /// the async resolve's outermost request and `.graph` instances are
    /// shared with its graph. Nil otherwise.
    @usableFromInline
    @exclusivity(unchecked)
    var asyncParent: AsyncFrame?

    /// True while an alias (`implements`) produces its target's instance
    /// (`Container.forwarding`): a `.scoped` target's copy in the scope is
    /// then looked for without the scope's lock first (see
    /// `Container.scopeLocal(of:heldBy:forAlias:)`). Stays set for what
    /// the target's factory resolves, if it runs, which only makes their
    /// first resolve in a scope look once more.
    @exclusivity(unchecked)
    var forwardingAlias = false

    /// True while the `onResolved` callbacks of `asyncParent`'s instance
    /// run (`AsyncResolution.finish`): its resolve has built every frame on
    /// the path, so an async registration found there, asked for
    /// synchronously, is not built now (`.registeredAsync`), not a cycle,
    /// and what the callbacks resolve is asked for by a callback.
    @exclusivity(unchecked)
    var asyncParentHasBuilt = false

    /// Runs `body`, synchronous code of the async resolve `frame` belongs
    /// to, joined to that resolve unless it has ended (see `asyncParent`):
    /// a synchronous registration it builds (`Container.produceBridged`), a
    /// main-actor factory, or with `callbacks` those of `frame`'s instance.
    @inline(__always)
    func joining<R, E: Error>(_ frame: AsyncFrame?, callbacks: Bool = false, _ body: () throws(E) -> R) throws(E) -> R {
        let outer = (asyncParent, asyncParentHasBuilt)
        (asyncParent, asyncParentHasBuilt) = (frame?.unlessEnded, callbacks)
        defer { (asyncParent, asyncParentHasBuilt) = outer }
        return try body()
    }

    /// True when no resolve is in progress on this thread.
    @inlinable
    var isIdle: Bool { depth == 0 && !finishing }

    /// Instances this thread has created (wrapping): an observed resolve
    /// created its instance when this moved while it ran, since a resolve
    /// that reuses one creates nothing (see `Container.produceObserved`).
    /// One add per creation, cheaper than any check for an observer.
    @usableFromInline
    @exclusivity(unchecked)
    var creations: UInt = 0

    /// The observation the observed resolve in progress on this thread
    /// reports to; nested resolves report there too. Nil when none is.
    @exclusivity(unchecked)
    var observation: Observation?

    /// True while an observation's handler runs: what it resolves is not
    /// reported (it would report itself without end).
    @exclusivity(unchecked)
    var notifying = false

    /// Events of observed resolves that ended inside a resolve still in
    /// progress, delivered once this thread is idle (`reset`): a handler
    /// that resolves must start a resolve of its own, not join this one
    /// (where it would see the resolves in progress as cycles).
    @exclusivity(unchecked)
    var undelivered: [(observation: Observation, event: ResolutionEvent)] = []

    /// Delivers `event` now if this thread is idle, else when it is.
    func deliver(_ event: ResolutionEvent, to observation: Observation) {
        undelivered.append((observation, event))
        if isIdle {
            deliverUndelivered()
        } else {
            hasDeferredWork = true   // so that the outermost resolve resets, and delivers
        }
    }

    /// Runs the handlers of the events waiting for this thread to be idle,
    /// outside any resolve: what they resolve is a resolve of its own (not
    /// part of an async resolve this thread serves either), and not observed.
    func deliverUndelivered() {
        guard !undelivered.isEmpty else { return }
        let events = undelivered
        undelivered = []
        let (wasNotifying, parent) = (notifying, asyncParent)
        notifying = true
        asyncParent = nil
        defer { (notifying, asyncParent) = (wasNotifying, parent) }
        for (observation, event) in events {
            observation.deliver(event)
        }
    }

    /// The registration whose `onResolved` callbacks `finish()` is running:
    /// what they resolve is its dependency.
    @exclusivity(unchecked)
    var runningHook: AnyDefinition?

    /// The registration whose factory or callback asked for the resolve
    /// about to start, and how; nil for a top-level resolve.
    var requester: (definition: AnyDefinition, origin: DependencyGraph.Edge.Origin)? {
        if depth > 0 {
            return (frames[depth - 1].takeUnretainedValue(), .factory)
        }
        if finishing, let runningHook {
            return (runningHook, .onResolved)
        }
        return asyncParent.map { ($0.definition, asyncParentHasBuilt ? .onResolved : .factory) }
    }

    /// How deep the resolve about to start is nested, as `ResolutionEvent` counts.
    var observedDepth: Int {
        // A callback's resolves are one level below the instance it configures.
        (asyncParent?.depth ?? 0) + depth + (finishing ? 1 : 0)
    }

    /// True when the outermost resolve left callbacks to run or a graph to
    /// drop. A flag, not two `isEmpty` checks: every outermost resolve reads it.
    @usableFromInline
    @exclusivity(unchecked)
    var hasDeferredWork = false

    /// This thread's context.
    @usableFromInline
    static var current: ResolutionContext {
        currentUnretained.takeUnretainedValue()
    }

    /// This thread's context, without a retain: the thread's slot holds it
    /// until the thread exits, so it outlives any resolve on the thread.
    @inlinable
    @inline(__always)
    static var currentUnretained: Unmanaged<ResolutionContext> {
        if let raw = syr_thread_get(ResolutionTable.contextSlot) {
            return Unmanaged<ResolutionContext>.fromOpaque(raw)
        }
        return makeCurrent()
    }

    /// Creates this thread's context on its first resolve.
    @usableFromInline
    @inline(never)
    static func makeCurrent() -> Unmanaged<ResolutionContext> {
        // The slot can be empty while the thread still has a context: a
        // platform may tear thread-locals down before a later thread-exit
        // destructor resolves, and a program can link two copies of the C
        // target (each with its own slot). The key is the owner: reuse its
        // context, so a thread never has two and a resolve in progress is
        // never lost.
        if let raw = pthread_getspecific(contextKey) {
            syr_thread_set(ResolutionTable.contextSlot, raw)
            return Unmanaged<ResolutionContext>.fromOpaque(raw)
        }
        let context = Unmanaged.passRetained(ResolutionContext())
        // The key only runs the destructor, which releases the context when
        // the thread exits; resolves read the C thread-local slot.
        pthread_setspecific(contextKey, context.toOpaque())
        syr_thread_set(ResolutionTable.contextSlot, context.toOpaque())
        return context
    }

    /// How often a registration with runtime arguments may be nested in its
    /// own construction. Only such a registration can legitimately resolve
    /// itself again (a tree built with `depth - 1`), so it is not refused on
    /// sight; this bound turns one that never stops into a cycle error long
    /// before the stack runs out.
    @inlinable
    static var maximumRecursion: UInt32 { 256 }

    /// How deep one resolve may nest at all, through distinct registrations:
    /// a safety net far above any real object graph (G2 in the benchmarks is
    /// a thousand levels deep).
    static var maximumDepth: Int { 10_000 }

    /// Starts building `definition`; fails if that would be a cycle: the
    /// argument-free definition is already being built on this thread, or it
    /// (or the whole resolve) is nested deeper than the bounds above.
    ///
    /// Inlined, with the common nested case in line: a definition that is
    /// not on this thread's path yet (counted zero times, and not the
    /// outermost frame) and room for its frame. That is every level of an
    /// object graph; the call and the general checks of `enterNested`, with
    /// `leave`'s call, cost S5 (five levels) 131 of its 2 918 instructions.
    /// A definition already on the path (a cycle, or recursion with
    /// arguments) and growth take `enterNested`. `frameCapacity` never
    /// exceeds `maximumDepth`, so room for a frame also means the depth
    /// bound holds.
    @inlinable
    @inline(__always)
    func enter(_ definition: AnyDefinition) throws(ResolutionError) {
        let identity = Unmanaged.passUnretained(definition)
        if depth == 0 {
            frames[0] = identity
            depth = 1
            return
        }
        let index = definition.index
        if index < buildingCapacity && depth < frameCapacity && building[index] == 0
            && frames[0].toOpaque() != identity.toOpaque() {
            building[index] = 1
            frames[depth] = identity
            depth &+= 1
            return
        }
        try enterNested(definition)
    }

    /// A nested `enter` in general: the cycle checks, growth, then the push.
    @usableFromInline
    @inline(never)
    func enterNested(_ definition: AnyDefinition) throws(ResolutionError) {
        let index = definition.index
        if index >= buildingCapacity {
            growBuilding(toHold: index)
        }
        let count = building[index]
        let isOutermost = frames[0].toOpaque() == Unmanaged.passUnretained(definition).toOpaque()
        let occurrences = count + (isOutermost ? 1 : 0)
        if (occurrences > 0 && !definition.takesArguments) || occurrences >= Self.maximumRecursion
            || depth >= Self.maximumDepth {
            throw definition.error(.cycle, path: pathText(appending: definition.stepText))
        }
        if depth == frameCapacity {
            growFrames()
        }
        building[index] = count + 1
        frames[depth] = Unmanaged.passUnretained(definition)
        depth += 1
    }

    /// Finishes the innermost `enter`. Inlined, like `enter`.
    @inlinable
    @inline(__always)
    func leave() {
        depth &-= 1
        if depth > 0 {
            // At least one: its `enter` counted it.
            building[frames[depth]._withUnsafeGuaranteedRef { $0.index }] &-= 1
        }
    }

    private func growBuilding(toHold index: Int) {
        let capacity = Swift.max(index + 1, buildingCapacity * 2, 64)
        let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        grown.moveInitialize(from: building, count: buildingCapacity)
        (grown + buildingCapacity).initialize(repeating: 0, count: capacity - buildingCapacity)
        building.deallocate()
        building = grown
        buildingCapacity = capacity
    }

    private func growFrames() {
        let capacity = Swift.min(frameCapacity * 2, Self.maximumDepth)
        let grown = UnsafeMutablePointer<Unmanaged<AnyDefinition>>.allocate(capacity: capacity)
        grown.moveInitialize(from: frames, count: frameCapacity)
        frames.deallocate()
        frames = grown
        frameCapacity = capacity
    }

    /// The path from the outermost request to the innermost frame.
    var pathText: [String] {
        (asyncParent?.pathText ?? []) + runningHookPath.map(\.stepText)
            + (0..<depth).map { frames[$0].takeUnretainedValue().stepText }
    }

    /// The path from the outermost request to `step`.
    func pathText(appending step: String) -> [String] {
        pathText + [step]
    }

    /// The innermost `.shared` or `.weak` registration being built: the one a
    /// `.scoped` instance resolved now would be captured by.
    func innermostSingleton() -> AnyDefinition? {
        for index in stride(from: depth - 1, through: 0, by: -1) {
            let definition = frames[index].takeUnretainedValue()
            if definition.kind == .shared || definition.kind == .weak {
                return definition
            }
        }
        return asyncParent?.innermostSingleton
    }

    /// Whether `definition` is being built by this thread right now.
    func isBuilding(_ definition: AnyDefinition) -> Bool {
        let identity = Unmanaged.passUnretained(definition).toOpaque()
        return (0..<depth).contains { frames[$0].toOpaque() == identity }
    }

    /// Turns what `definition`'s factory (or callback) threw into a
    /// `ResolutionError`. Call while its frame is still entered.
    @usableFromInline
    func failure(_ error: any Error, in definition: AnyDefinition) -> ResolutionError {
        if let error = error as? ResolutionError {
            return error
        }
        let path = isBuilding(definition) ? pathText : pathText(appending: definition.stepText)
        if error is InstanceClosed {
            return definition.error(.closed, path: path)
        }
        if let error = error as? AsyncOnly {
            // An async registration asked for synchronously; if the async
            // resolve around this one is building it, that is a cycle.
            let reason: ResolutionError.Reason = !asyncParentHasBuilt && asyncParent?.contains(definition) == true ? .cycle
                : error.mainActor ? .isolatedToMainActor : .registeredAsync
            return definition.error(reason, path: path)
        }
        return definition.error(.factoryFailed(error), path: path)
    }

    /// Turns what `hook`'s callbacks threw into a `ResolutionError`: one a
    /// resolve they made threw has its path already (see `pathText`);
    /// anything else is the callback's own failure, on the instance's path.
    private func callbackFailure(_ error: any Error, in hook: PendingHook) -> ResolutionError {
        if let error = error as? ResolutionError {
            return error
        }
        // (A deferred failure is a `ResolutionError`; an undo runs nothing:
        // only callbacks get here, and they were queued inside their
        // instance's frame, so their path ends with it.)
        let failure = failure(error, in: hook.definition)
        let onItsPath = failure.with(reason: failure.reason, path: hook.path.map(\.stepText))
        guard case .factoryFailed = failure.reason else {
            return onItsPath
        }
        return onItsPath.thrownByCallback()
    }

    /// The current graph and its owner, as `enterGraph(of:)` found them.
    typealias OuterGraph = (graph: GraphInstances, owner: UnsafeMutableRawPointer?)

    /// Makes `container`'s graph of this outermost resolve the current one,
    /// when the current graph is another container's, and returns what
    /// `leaveGraph` restores; nil when it is `container`'s already. For the
    /// factory of a `.shared`, `.weak` or `.scoped` instance held by
    /// `container` (and the callbacks it queues), made for a resolve through
    /// a child of it; and for a `.graph` resolve made directly through
    /// `container` inside another container's (see
    /// `Container.produceInOwnGraph`, and `reuseOrConstructInItsGraph` for
    /// an alias's target). Such a factory resolves from `container`, and a
    /// `.graph` instance the current graph has may have been built with the
    /// other container's registrations (a child's override): kept inside a
    /// singleton, it would outlive the resolve and reach every later one.
    ///
    /// One graph per container and outermost resolve, kept until that
    /// resolve ends, as the main one is: two of a container's singletons
    /// made in one resolve share its `.graph` instances, and the
    /// `onResolved` callbacks of what it holds run in it (`finish`). The
    /// frames stay on the one path, so cycles through it are still seen.
    @inline(__always)
    func enterGraph(of container: Container) -> OuterGraph? {
        let owner = Unmanaged.passUnretained(container).toOpaque()
        if graphOwner == owner {
            return nil
        }
        return switchGraph(to: graph(of: container), owner: owner)
    }

    /// Restores the graph `enterGraph(of:)` replaced.
    func leaveGraph(_ outer: OuterGraph) {
        ownGraphDepth -= 1
        (graph, graphOwner) = outer
    }

    /// `container`'s graph in this outermost resolve: the main one if the
    /// resolve was asked of it, else its own, made on first use.
    private func graph(of container: Container) -> GraphInstances {
        let owner = Unmanaged.passUnretained(container).toOpaque()
        if ownGraphDepth > 0 && owner == mainOwner {
            return mainGraph
        }
        if let existing = ownGraphs.first(where: { $0.owner === container }) {
            return existing.graph
        }
        let made = spareGraphs.popLast() ?? GraphInstances()
        ownGraphs.append((container, made))
        hasDeferredWork = true   // so that the outermost resolve resets, and ends it
        return made
    }

    /// Makes `own`, `owner`'s graph, the current one; returns the one it replaced.
    private func switchGraph(to own: GraphInstances, owner: UnsafeMutableRawPointer?) -> OuterGraph {
        if ownGraphDepth == 0 {
            mainOwner = graphOwner
        }
        let outer = (graph, graphOwner)
        (graph, graphOwner) = (own, owner)
        ownGraphDepth += 1
        return outer
    }

    /// Where `definition`'s instance in the current graph is, if it has one.
    @inlinable
    @inline(__always)
    func graphInstance<T>(of definition: Definition<T>) -> T? {
        guard let value = graph.value(at: definition.graphIndex) else {
            return nil
        }
        return GraphInstances.instance(at: value, as: T.self)
    }

    /// The box of `definition`'s instance in the graph of the async resolve
    /// around this one (see `asyncParent`, which must be set): the one it
    /// has, or the one `build` makes, inside `definition`'s frame, while
    /// this thread holds the graph's claim on it. Another thread of the
    /// graph (a child task of an async factory) that asks meanwhile waits
    /// for it, so that the factory runs once, and only the instance the
    /// graph keeps gets callbacks and disposal.
    ///
    /// Waiting blocks the thread, a thread of the cooperative pool as a rule,
    /// but only while another thread runs a synchronous factory, which
    /// cannot suspend: it returns without needing the pool, and a thread
    /// never waits for a task here (see `AsyncResolution.claim(_:forThread:)`).
    /// A factory that needs, through other threads, what this thread holds
    /// would never return: `InstanceCreation` reports that as a cycle
    /// instead of waiting, as for `.shared` instances.
    ///
    /// Not inlined, and not generic: only a synchronous registration
    /// resolved by the async engine gets here.
    @usableFromInline
    func reuseOrBuildInAsyncGraph(_ definition: AnyDefinition, _ build: () throws(ResolutionError) -> AnyObject) throws(ResolutionError) -> AnyObject {
        let resolution = bridgedGraph.unsafelyUnwrapped
        if let box = resolution.box(of: definition) {
            return box
        }
        // The cycle check comes before the claim: this thread would wait
        // for its own claim instead of reporting the cycle.
        try enter(definition)
        defer { leave() }
        let (slot, claim) = resolution.claim(definition, forThread: claimHolder)
        switch claim {
        case .built(let box):
            return box
        case .claimed:
            let made: AnyObject
            do throws(ResolutionError) {
                made = try build()
            } catch {
                resolution.storeAndRelease(nil, in: slot, heldBy: claimHolder)
                throw error
            }
            return resolution.storeAndRelease(made, in: slot, heldBy: claimHolder).unsafelyUnwrapped
        case .contended:
            // When the claim is ours, the thread that held it has built the
            // instance, or failed: then this one builds it.
            try InstanceCreation.acquire(slot, of: definition, context: self)
            defer { InstanceCreation.release(ObjectIdentifier(slot)) }
            if let box = resolution.box(in: slot) {
                return box
            }
            return resolution.store(try build(), in: slot)
        }
    }

    /// The graph of the async resolve around this one that the current
    /// graph stands for: the async frame's (whose container this thread's
    /// outermost resolve was asked of), or, while this thread builds in
    /// another container's graph (`enterGraph(of:)`), that container's graph
    /// in the async resolve, so that both engines share one per container.
    private var bridgedGraph: AsyncResolution? {
        guard let asyncParent else { return nil }
        guard ownGraphDepth > 0, let graphOwner, graphOwner != mainOwner else {
            return asyncParent.graphResolution
        }
        // Held by `ownGraphs` while its graph is current.
        return asyncParent.resolution.ownGraph(of: Unmanaged<Container>.fromOpaque(graphOwner).takeUnretainedValue())
    }

    /// Keeps `instance` as `definition`'s instance for the rest of the graph.
    @inlinable
    func storeGraphInstance<T>(_ instance: T, of definition: Definition<T>) {
        // Borrowed: `graph` is a variable (`enterGraph(of:)` switches it),
        // and a method called on a variable's object retains it for the
        // call, once per instance a graph builds. The context holds the
        // graph (`mainGraph`, or `ownGraphs`), and `store` runs nothing
        // that could switch it.
        Unmanaged.passUnretained(graph)._withUnsafeGuaranteedRef { $0.store(instance, of: definition) }
        hasDeferredWork = true
    }

    /// Queues `definition`'s `onResolved` callbacks on `instance` for the end
    /// of the outermost resolve. `undo` takes a published instance back if
    /// they never all run.
    @usableFromInline
    func deferCallbacks<T>(_ hooks: Hooks<T>, of definition: AnyDefinition, resolver: Resolver, instance: T,
                           undo: ((ResolutionContext) -> Void)?) {
        // Hooks may hold only disposers.
        guard hooks.hasCallbacks else { return }
        pending.append(PendingHook(definition: definition, run: {
            for callback in hooks.callbacks {
                try callback(resolver, instance)
            }
        }, undo: undo, path: runningHookPath + (0..<depth).map { frames[$0].takeUnretainedValue() },
           graph: ownGraphDepth > 0 ? (graph, graphOwner) : nil))
        hasDeferredWork = true
    }

    /// How many callbacks are queued: what a `.shared` or `.weak` creation
    /// compares before and after its factory, to see whether it built
    /// instances whose callbacks are still to run (see `deferUndo`).
    var pendingCount: Int { pending.count }

    /// Queues `undo` for a `.shared` or `.weak` instance that has no
    /// callbacks of its own but holds instances whose callbacks are queued:
    /// if one of those fails, the outermost resolve is abandoned from it on
    /// (see `finish`), this entry with it, and `undo` takes the instance
    /// back, so that no later resolve returns an object built around a
    /// half-configured one.
    func deferUndo(of definition: AnyDefinition, _ undo: @escaping (ResolutionContext) -> Void) {
        pending.append(PendingHook(definition: definition, run: {}, undo: undo))
        hasDeferredWork = true
    }

    /// Queues `failure` to be thrown when the outermost resolve finishes: for
    /// a failure found where throwing at once would cost the resolve path
    /// (see `Container.applyHooks`). The resolve fails all the same, and
    /// `disposal`, the refused instance's, runs as its undo: whether this
    /// entry throws or the resolve fails before it (`abandon`), exactly once,
    /// when no factory of the resolve can be using the instance any more.
    func deferFailure(_ failure: ResolutionError, of definition: AnyDefinition, disposing disposal: PendingDisposal) {
        pending.append(PendingHook(definition: definition, run: { throw failure }, undo: { _ in disposal.abandon() }, isFailure: true))
        hasDeferredWork = true
    }

    /// What the `@LazyInjected` properties first read inside this outermost
    /// resolve do with their instance when it ends: `keep` it once the
    /// resolve has succeeded, `forget` it when it failed, as the instance
    /// may then be a `.shared` one taken back, or one whose callbacks never
    /// ran (see `LazyInjection.resolveOnce`). `forget` returns what it
    /// dropped, for `abandon` to release once the context is idle.
    @exclusivity(unchecked)
    private var lazyStores: [(keep: () -> Void, forget: () -> AnyObject?)] = []

    /// Queues what a `@LazyInjected` property does with the instance it
    /// resolved inside this resolve when the outermost one ends.
    func deferLazyStore(keep: @escaping () -> Void, forget: @escaping () -> AnyObject?) {
        lazyStores.append((keep, forget))
        hasDeferredWork = true
    }

    /// Runs the queued callbacks (they may resolve more, joining this graph
    /// and queueing more callbacks), then drops the graph. Called by the
    /// outermost resolve only. When a callback throws, the callbacks after it
    /// do not run, and the instances whose callbacks did not all run are
    /// taken back (see `abandon`); else the `@LazyInjected` properties first
    /// read in the resolve keep their instances. Callbacks that would run
    /// without end fail the resolve as a cycle (see `endlessCallbacks`).
    ///
    /// Inside an async resolve that is still building (a synchronous
    /// registration an async factory asked for: `asyncParent`), the
    /// callbacks are handed over to that resolve instead (`handOver`).
    @usableFromInline
    func finish() throws(ResolutionError) {
        if let asyncParent, !asyncParentHasBuilt, handOver(to: asyncParent) {
            return
        }
        finishing = true
        var index = 0
        while index < pending.count {
            let hook = pending[index]
            if let endless = endlessCallbacks(on: hook.path) {
                abandon(from: index)
                throw endless
            }
            runningHook = hook.definition
            runningHookPath = hook.path
            defer {
                runningHook = nil
                runningHookPath = []
            }
            do {
                let outer = hook.graph.map { switchGraph(to: $0.graph, owner: $0.owner) }
                defer { outer.map(leaveGraph) }
                try hook.run()
            } catch {
                let failure = callbackFailure(error, in: hook)
                abandon(from: index)
                throw failure
            }
            index += 1
        }
        for store in lazyStores {
            store.keep()
        }
        reset()
    }

    /// Queues this outermost synchronous resolve's callbacks (and the undos
    /// of what it published) in the async resolve it runs inside, to run
    /// when that resolve has built its whole graph, as its own async
    /// registrations' callbacks do: run now, a callback that resolves an
    /// instance the async resolve is still building (the README's way out
    /// of a cycle, with the client's factory async) would find it being
    /// built, a cycle. Each runs then as this finish would have run it
    /// (`runHandedOver`), with the path it was queued on. If the async
    /// resolve fails, or a callback before them throws, the undos take back
    /// what they would have.
    ///
    /// False, handing over nothing, when this synchronous resolve fails (an
    /// instance refused for want of an owner, `deferFailure`: the async
    /// factory that asked gets the error, as from any synchronous resolve
    /// that fails), and when `@LazyInjected` properties were first read
    /// here (kept or forgotten when this resolve succeeds or fails). Then
    /// the callbacks run now, as an outermost synchronous resolve's.
    private func handOver(to parent: AsyncFrame) -> Bool {
        guard lazyStores.isEmpty, !pending.contains(where: \.isFailure) else {
            return false
        }
        // The containers whose graphs the callbacks join, held until they
        // run: the one this resolve was asked of, which the async factory's
        // resolver holds, and those of callbacks queued in another's graph,
        // which `ownGraphs` holds until `reset`.
        let asked = graphOwner.map { Unmanaged<Container>.fromOpaque($0).takeUnretainedValue() }
        let above = parent.pathDefinitions
        let hooks = pending.map { hook in
            let owner = hook.graph?.owner.map { Unmanaged<Container>.fromOpaque($0).takeUnretainedValue() }
            return AsyncResolution.Pending(definition: hook.definition, run: {
                try ResolutionContext.current.runHandedOver(hook, in: owner, asked: asked, joining: parent)
            }, undo: hook.undo.map { undo in { undo(ResolutionContext.current) } }, path: above + hook.path)
        }
        guard parent.resolution.adopt(hooks) else {
            return false
        }
        reset()
        return true
    }

    /// Runs a callback `handOver` queued in the async resolve `parent`
    /// belongs to, when that resolve has built its graph: as the finish of an
    /// outermost resolve of this thread (what its resolves queue runs after
    /// it, and resolves made without end are a cycle), joined to the async
    /// resolve as its own callbacks are, with `asked`'s graph the main one
    /// and, if it was queued in another container's (`owner`), that one
    /// current. Its undo stays with the async resolve, which runs it if
    /// this throws.
    private func runHandedOver(_ hook: PendingHook, in owner: Container?, asked: Container?, joining parent: AsyncFrame) throws(ResolutionError) {
        let current: OuterGraph?
        if let owner, owner !== asked {
            current = (graph(of: owner), Unmanaged.passUnretained(owner).toOpaque())
        } else {
            current = nil
        }
        let handed = PendingHook(definition: hook.definition, run: hook.run, undo: nil, path: hook.path, graph: current)
        // A synchronous resolve cannot suspend, so the thread that finishes
        // an async resolve is not inside one, unless a synchronous factory
        // ran a run loop that ran the async code (the main thread's, on
        // Apple platforms): then the callback runs when the resolve in
        // progress finishes, and the async resolve keeps its undo.
        guard isIdle else {
            pending.append(handed)
            hasDeferredWork = true
            return
        }
        try joining(parent, callbacks: true) { () throws(ResolutionError) -> Void in
            graphOwner = asked.map { Unmanaged.passUnretained($0).toOpaque() }
            pending = [handed]
            hasDeferredWork = true
            try finish()
        }
    }

    /// A `.cycle` error when callbacks would run without end: when the
    /// instance whose callbacks are about to run, made on `path`, is one
    /// that callbacks keep making anew. The frames of one resolve cannot
    /// repeat (see `enter`), but each callback's resolves start a path of
    /// their own after it, so a loop through callbacks (a `.new` server
    /// whose callback resolves a `.new` client, whose factory resolves a
    /// new server) would queue callbacks for ever, each with a longer path.
    ///
    /// The same registration twice on the path is no such loop by itself:
    /// a `.new` A whose callback resolves a `.shared` B whose callback
    /// resolves a new A ends there, as the new A's callback finds B made.
    /// It is one when the steps from the instance's previous occurrence to
    /// it repeat the steps just before that occurrence: everything on them
    /// was built again, none of it kept (a kept instance is returned, not
    /// built, and leaves no step), so the callbacks run again just as
    /// before. Registrations with arguments are left to the depth bound:
    /// their arguments can differ each time around, as a tree's do. So is
    /// a loop whose callbacks resolve something different each time; the
    /// bound keeps it from running out of memory.
    private func endlessCallbacks(on path: [AnyDefinition]) -> ResolutionError? {
        guard let instance = path.last else {
            return nil   // an undo, or a deferred failure
        }
        let count = path.count
        if count >= Self.maximumDepth {
            return instance.error(.cycle, path: path.map(\.stepText)).thrownByCallback()
        }
        // Its previous occurrences with room for the repeat before them.
        for previous in stride(from: count - 2, through: (count - 1) / 2, by: -1) where path[previous] === instance {
            let length = count - 1 - previous
            let repeats = (0..<length).allSatisfy { step in
                path[previous - step] === path[count - 1 - step] && !path[previous - step].takesArguments
            }
            if repeats {
                return instance.error(.cycle, path: path.map(\.stepText)).thrownByCallback()
            }
        }
        return nil
    }

    /// Ends a failed outermost resolve: every `.shared` or `.weak` instance it
    /// published whose `onResolved` callbacks have not all run (`pending`
    /// from `start` on) is taken back, so that no later resolve returns a
    /// half-configured object (and disposed, if it has disposers: see
    /// `Definition.abandonRetracted`), every `.new` or `.graph` instance
    /// refused for want of an owner is disposed, and every `@LazyInjected`
    /// property first read in it is left unresolved. Then resets.
    @usableFromInline
    func abandon(from start: Int = 0) {
        for hook in pending[start...] {
            hook.undo?(self)
        }
        // Released once the context is idle, as `reset` releases the
        // callbacks: the last reference's `deinit` may resolve.
        let forgotten = lazyStores.map { $0.forget() }
        withExtendedLifetime(forgotten) {
            reset()
        }
    }

    /// Forgets everything after the outermost resolve, so that the next
    /// resolve starts clean.
    ///
    /// Dropping the graph and the callbacks can release the last reference to
    /// an instance, whose `deinit` may resolve again. The graph's teardown
    /// keeps such resolves inside the dying graph (see
    /// `GraphInstances.removeAll`; callbacks they queue are dropped); the
    /// callbacks, and the containers whose graphs it made (a scope a factory
    /// let go of), are released only once the context is idle again, so a
    /// resolve from their instances' `deinit`s starts a graph of its own.
    func reset() {
        // Every frame has left by now (construct leaves on every exit path);
        // leaving any that had not keeps the cycle counters true.
        while depth > 0 {
            leave()
        }
        // The graphs end in turn; a `deinit` run by one that resolves may
        // store into one that has ended, so until all are empty.
        var owners: [Container] = []
        repeat {
            graph.removeAll { self.finishing = $0 }
            endOwnGraphs(keeping: &owners)
        } while graph.usedCount > 0
        let dropped = (pending, owners, lazyStores)
        withExtendedLifetime(dropped) {
            pending.removeAll(keepingCapacity: true)
            lazyStores.removeAll()
            finishing = false
            hasDeferredWork = false
        }
        deliverUndelivered()
    }
}

extension ResolutionContext {
    /// Ends the graphs `enterGraph(of:)` made for this outermost resolve,
    /// each as the current one while it ends, as `reset` ends the main one:
    /// a `deinit` that resolves joins the graph being ended, which destroys
    /// what it stores (see `GraphInstances.removeAll`). Each leaves the list
    /// before it ends, so that one such a `deinit` needs again is made anew,
    /// and ended by this same loop, not reopened after its end. Their
    /// containers go to `owners`, for `reset` to release once it is done.
    fileprivate func endOwnGraphs(keeping owners: inout [Container]) {
        while let (owner, own) = ownGraphs.popLast() {
            let outer = switchGraph(to: own, owner: Unmanaged.passUnretained(owner).toOpaque())
            own.removeAll { self.finishing = $0 }
            leaveGraph(outer)
            spareGraphs.append(own)
            owners.append(owner)
        }
    }
}

/// Releases each thread's `ResolutionContext` when the thread exits.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        // Empty the slot first: a later thread-exit destructor that resolves
        // must make a new context, not use this one after it is freed.
        syr_thread_set(ResolutionTable.contextSlot, nil)
        #if canImport(Darwin)
        Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        #else
        if let raw {
            Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        }
        #endif
    }
    precondition(status == 0, "Syringe: pthread_key_create failed (\(status))")
    return key
}()
