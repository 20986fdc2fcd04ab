import CSyringeTable
import Synchronization

/// Where observed resolves report: a container's tracer (`Container.trace`),
/// or a validation pass (`Container.validate`). It receives an event per
/// resolve, if it has a handler, and keeps every edge it sees (which
/// registration asked for which), for `Container.dependencyGraph()`.
///
/// Resolves pay for none of this unless an observation is active somewhere
/// in the process: the engine's fast paths ask `syr_observed()` (one load
/// and one branch, `include/syringe_observe.h`), and only when it is true
/// take the observed path (`Engine+Observation.swift`), which finds the
/// observation that applies and does the bookkeeping.
///
/// Which observation a resolve reports to: the one of the resolve around it
/// on the same thread or task, if that was observed, so that a tracer sees
/// everything a traced request builds, in whatever container; otherwise the
/// nearest from the container asked up to the root.
final class Observation: @unchecked Sendable {
    /// A handler for every event; nil when the observation only records edges.
    typealias Handler = @Sendable (ResolutionEvent) -> Void

    private let lock = Lock()
    /// Guarded by `lock`.
    private var handler: Handler?
    /// Guarded by `lock`: a validation pass is recording through this observation.
    private var recording = false
    /// Guarded by `lock`: each edge, and the `edgeClock` time it was last seen.
    private var edges: [ObservedEdge: UInt64] = [:]
    /// Guarded by `lock`: for each node of this container's registrations
    /// that was replaced or removed, the `edgeClock` time it was; edges
    /// seen before then, which its descendants' observations may keep
    /// (see `Container.forgetObservedEdges`), are not drawn.
    private var forgotten: [NodeIdentity: UInt64] = [:]
    /// Guarded by `lock`: what the nodes a graph may not find among its
    /// containers' registrations look like (see `DetachedNode`).
    private var detached: [NodeIdentity: DetachedNode] = [:]
    /// Mirrors `handler != nil || recording`, for the lock-free check of
    /// `Container.nearestObservation()`. Counted in `syr_observers` while true.
    private let active = Atomic<Bool>(false)

    /// The observation of the async resolve in progress in this task, bound
    /// by the outermost observed async resolve (and by `validateAsync`), so
    /// that the resolves of its factories and their child tasks report to it.
    @TaskLocal static var current: ObservedResolve?

    /// Runs `body` with `resolve` bound as `current`, on the caller's
    /// executor: an async resolve's `onCallersExecutor` factories, and a
    /// `validateAsync` pass on the main actor, run where they would
    /// unobserved.
    ///
    /// `TaskLocal.withValue` runs a closure written in a
    /// `nonisolated(nonsending)` function on the global executor; this
    /// closure names the caller's isolation (`isolation`), which makes it
    /// isolated to it (SE-0420), and `body` inherits that.
    static func withCurrent<R>(_ resolve: ObservedResolve, isolation: isolated (any Actor)? = #isolation,
                               _ body: nonisolated(nonsending) () async -> R) async -> R {
        await $current.withValue(resolve) {
            _ = isolation
            return await body()
        }
    }

    deinit {
        if active.load(ordering: .relaxed) {
            syr_observers_add(-1)
        }
    }

    var isActive: Bool { active.load(ordering: .acquiring) }

    /// Installs or removes the handler.
    func setHandler(_ newHandler: Handler?) {
        lock.withLock {
            handler = newHandler
            updateActive()
        }
    }

    /// Starts or stops a validation pass's recording.
    func setRecording(_ on: Bool) {
        lock.withLock {
            recording = on
            updateActive()
        }
    }

    /// Call with the lock held.
    private func updateActive() {
        let now = handler != nil || recording
        if active.exchange(now, ordering: .acquiringAndReleasing) != now {
            syr_observers_add(now ? 1 : -1)
        }
    }

    /// At most this many edges are kept: a service that makes a child
    /// container per request, each holding its own registrations, would
    /// otherwise add edges for as long as it is traced.
    static var edgeLimit: Int { 65_536 }

    /// Keeps an edge (and how its target looks, if it is missing or held
    /// by a scope).
    func record(_ edge: ObservedEdge, target node: DetachedNode? = nil) {
        let now = Self.edgeTime()
        lock.withLock {
            guard edges.count < Self.edgeLimit || edges[edge] != nil else { return }
            edges[edge] = now
            if let node, detached.updateValue(node, forKey: edge.to) == nil {
                pruneDetachedIfStale()
            }
        }
    }

    /// Drops what `detached` says of nodes that no kept edge leads to any
    /// more: `forgetEdges` drops edges but cannot tell whether another edge
    /// still leads to their targets, so a traced service whose factories
    /// ask for keys that come and go (a missing dependency under a
    /// per-tenant name, say) added an entry per key for as long as it ran.
    /// Only once the entries outnumber the edges (each edge has at most one
    /// target) by a margin, so that each pass removes at least as many
    /// entries as it reads edges, and recording costs amortised O(1). Call
    /// with the lock held.
    private func pruneDetachedIfStale() {
        guard detached.count > 2 * edges.count + 64 else { return }
        let targets = Set(edges.keys.lazy.map(\.to))
        detached = detached.filter { targets.contains($0.key) }
    }

    /// How many nodes `detached` describes. For tests.
    var detachedCount: Int {
        lock.withLock { detached.count }
    }

    /// Hands `event` to the handler, if there is one. Call with the
    /// resolving thread idle (see `ResolutionContext.deliver`).
    func deliver(_ event: ResolutionEvent) {
        if let handler = lock.withLock({ handler }) {
            handler(event)
        }
    }

    /// Forgets the edges from `node`: its registration was replaced or
    /// removed, and the new one may depend on other things.
    func forgetEdges(from node: NodeIdentity) {
        lock.withLock {
            edges = edges.filter { $0.key.from != node }
        }
    }

    /// Whether an edge was ever recorded in the process: until then, no
    /// observation holds one to forget.
    static var anyEdgeRecorded: Bool {
        edgeClock.load(ordering: .acquiring) != 0
    }

    /// Notes that the registration of `node`, held by this observation's
    /// container, was replaced or removed now.
    func noteForgotten(_ node: NodeIdentity) {
        let now = edgeClock.add(1, ordering: .acquiringAndReleasing).newValue
        lock.withLock {
            if forgotten.count >= Self.forgottenLimit && forgotten[node] == nil {
                // The older half goes: a descendant's graph may then draw
                // an edge of those registrations' old ones again, which is
                // better than memory that grows with every key a
                // long-running process registers and removes.
                let cutoff = forgotten.values.sorted()[forgotten.count / 2]
                forgotten = forgotten.filter { $0.value >= cutoff }
            }
            forgotten[node] = now
        }
    }

    /// How many replaced or removed registrations an observation remembers
    /// (see `forgotten`).
    static var forgottenLimit: Int { 4_096 }

    /// The time of `edgeClock` for an edge recorded now: never 0 (see
    /// `anyEdgeRecorded`).
    private static func edgeTime() -> UInt64 {
        let now = edgeClock.load(ordering: .acquiring)
        guard now == 0 else { return now }
        _ = edgeClock.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        return edgeClock.load(ordering: .acquiring)
    }

    /// Adds edges recorded elsewhere (a validation pass's), as `record`
    /// would: no more than `edgeLimit` in all, or a container validated
    /// again and again, whose factories ask for keys that change (a name
    /// made per call), kept every edge of every pass.
    func absorb(_ other: Observation) {
        let (otherEdges, otherDetached) = other.lock.withLock { (other.edges, other.detached) }
        lock.withLock {
            for (edge, seenAt) in otherEdges {
                if let known = edges[edge] {
                    edges[edge] = max(known, seenAt)
                } else if edges.count < Self.edgeLimit {
                    edges[edge] = seenAt
                } else {
                    continue
                }
                if detached[edge.to] == nil, let node = otherDetached[edge.to] {
                    detached[edge.to] = node
                }
            }
            pruneDetachedIfStale()
        }
    }

    /// How many edges are kept. For tests.
    var edgeCount: Int {
        lock.withLock { edges.count }
    }

    /// The edges seen so far, with when each was last seen, and how the
    /// missing and scope-held nodes among their ends look.
    var seen: (edges: [ObservedEdge: UInt64], detached: [NodeIdentity: DetachedNode]) {
        lock.withLock { (edges, detached) }
    }

    /// When the registrations of this container that were replaced or
    /// removed were, by node (see `noteForgotten`).
    var forgottenTimes: [NodeIdentity: UInt64] {
        lock.withLock { forgotten }
    }
}

/// A node of the dependency graph as the engine sees it: a registration, by
/// the container that holds it and its key. Registrations made in a scope
/// (per-request values) are one node however many scopes there were.
struct NodeIdentity: Hashable, @unchecked Sendable {
    enum Holder: Hashable {
        /// By `Container.graphIdentity`, never reused (an address would be,
        /// by a container made after this one is freed).
        case container(UInt64)
        /// Some scope made by `makeScope()`: scopes come and go per request.
        case scope
        /// Registered nowhere that the request looked.
        case missing
    }

    let holder: Holder
    let key: DefinitionKey

    /// The node of `definition`, found in `holder`. A scope's copy of a
    /// `.scoped` registration is the registration's node.
    static func of(_ definition: AnyDefinition, heldBy holder: Container) -> NodeIdentity? {
        guard definition.kind == .scopeLocal else {
            return NodeIdentity(holder: holder.isScope ? .scope : .container(holder.graphIdentity), key: definition.key)
        }
        if definition.key.signature == ScopeLocalCopy.identity {
            // The copy of a `.scoped` registration made in the scope itself.
            return NodeIdentity(holder: .scope, key: DefinitionKey(type: definition.key.type, signature: NoArguments.identity, name: definition.key.name))
        }
        var container = holder.parent
        while let current = container {
            if let original = current.lookup(definition.key), original.kind == .scoped {
                return NodeIdentity.of(original, heldBy: current)
            }
            container = current.parent
        }
        return nil
    }
}

/// How the graph shows a node it may not find among its containers'
/// registrations when it is made.
enum DetachedNode: Sendable {
    /// A request that found no registration, as it asked.
    case missing(type: String, name: String?, argumentTypes: [String])
    /// A registration made in a scope, which may be gone by then: its kind
    /// (its type, name and argument types are in its key).
    case scopeHeld(AnyDefinition.Kind)

    /// A request for `key` that would find nothing.
    static func missing(of key: DefinitionKey) -> DetachedNode {
        .missing(type: key.typeName, name: key.name, argumentTypes: key.argumentTypeNames)
    }
}

/// One observed dependency: `from`'s factory (or callback, or initialiser)
/// asked for `to`.
struct ObservedEdge: Hashable, Sendable {
    let from: NodeIdentity
    let to: NodeIdentity
    let origin: DependencyGraph.Edge.Origin
}

/// One observed resolve in progress in an async task: the observation it
/// reports to, and whether it created its instance (set by the engine where
/// async instances are made).
final class ObservedResolve: Sendable {
    let observation: Observation
    private let createdFlag = Atomic<Bool>(false)

    init(observation: Observation) {
        self.observation = observation
    }

    var created: Bool { createdFlag.load(ordering: .relaxed) }

    /// Called where an instance is made, when anything observes.
    func markCreated() {
        createdFlag.store(true, ordering: .relaxed)
    }
}

/// Hands out `Container.graphIdentity` values.
private let graphIdentities = Atomic<UInt64>(0)

/// Orders the recording of edges and the replacement or removal of the
/// registrations they come from (`Observation.noteForgotten`); 0 until an
/// edge is first recorded in the process.
private let edgeClock = Atomic<UInt64>(0)

extension Container {
    /// A number for this container that no other container of the process
    /// has had or will have: what identifies its registrations in recorded
    /// edges. Given on first use, so that containers that are never
    /// observed (a request's scope) pay nothing for it.
    var graphIdentity: UInt64 {
        let current = graphIdentitySlot.load(ordering: .relaxed)
        if current != 0 {
            return current
        }
        let made = graphIdentities.wrappingAdd(1, ordering: .relaxed).newValue
        let (exchanged, original) = graphIdentitySlot.compareExchange(expected: 0, desired: made, ordering: .relaxed)
        return exchanged ? made : original
    }

    /// Forgets the edges recorded from `definition`, held here, which is
    /// being replaced or removed: the registration that takes its key may
    /// depend on other things. Call with the writer lock held.
    ///
    /// Dropped here and in the parents' observations; a descendant's (its
    /// `validate()`'s or tracer's) may hold some too, and a container does
    /// not know its descendants: they leave out edges from the node
    /// recorded before the time noted here when they make their graph.
    func forgetObservedEdges(from definition: AnyDefinition) {
        guard definition.kind != .scopeLocal, let node = NodeIdentity.of(definition, heldBy: self) else { return }
        if Observation.anyEdgeRecorded {
            observation.noteForgotten(node)
        }
        var container: Container? = self
        while let current = container {
            current.existingObservation?.forgetEdges(from: node)
            container = current.parent
        }
    }

    /// This container's observation, made on first use and kept until the
    /// container is freed (never replaced, so resolves read it without a
    /// section).
    var observation: Observation {
        if let existing = observationSlot.load(ordering: .acquiring) {
            return Unmanaged<Observation>.fromOpaque(existing).takeUnretainedValue()
        }
        let made = Unmanaged.passRetained(Observation())
        let (exchanged, original) = observationSlot.compareExchange(expected: nil, desired: UnsafeRawPointer(made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged {
            return made.takeUnretainedValue()
        }
        made.release()
        return Unmanaged<Observation>.fromOpaque(original.unsafelyUnwrapped).takeUnretainedValue()
    }

    /// This container's observation if one was ever made.
    var existingObservation: Observation? {
        observationSlot.load(ordering: .acquiring).map { Unmanaged<Observation>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The active observation nearest to this container, on the way to the root.
    func nearestObservation() -> Observation? {
        var container: Container? = self
        while let current = container {
            if let observation = current.existingObservation, observation.isActive {
                return observation
            }
            container = current.parent
        }
        return nil
    }

    /// The container from this one up that holds `definition` now: where a
    /// requesting registration was found, for its end of an edge. Inside a
    /// read-side section.
    func holder(of definition: AnyDefinition) -> Container? {
        var container: Container? = self
        while let current = container {
            if current.lookup(definition.key) === definition {
                return current
            }
            container = current.parent
        }
        return nil
    }
}
