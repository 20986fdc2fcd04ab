import Synchronization

/// A dependency-injection container: register factories, resolve instances.
///
/// Resolution is lock-free: a resolve hashes its key with XXH3, probes a C
/// open-addressing table, and for a `.shared` instance that already exists
/// does one atomic load. Registering, removing and releasing are serialised
/// by a writer lock and may happen while other threads resolve.
///
/// ```swift
/// let container = Container()
/// container.register { _ in ConsoleLogger() as Logger }
/// container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }
/// let repo = container.resolve(type: Repo.self)
/// ```
///
/// A child container (`Container(parent:)`) resolves its own registrations
/// first, then its parent's. `.shared` instances live in the container that
/// holds the registration, and their factories resolve from that container,
/// so a parent's singleton does not capture one child's override. `.new` and
/// `.graph` factories resolve from the container that was asked. Within one
/// resolve each container has its own object graph: a parent's singleton made
/// during a child's resolve builds in the parent's, so it never gets a
/// `.graph` instance the child made.
///
/// Registrations and instances that are replaced, removed or released are
/// freed as soon as no resolve that could still be using them is running: at
/// once when no resolve is in flight on another thread.
public final class Container: @unchecked Sendable {
    @usableFromInline
    let table: ResolutionTable
    /// The container consulted when a key is not registered here.
    public let parent: Container?
    /// Serialises writers (registration, removal, release); resolves never
    /// take it. In the table's block (see `WriterLock`).
    let writerLock: WriterLock
    /// What this container has registered. Guarded by `writerLock`, as are
    /// `tracked` and `closedEntries`; exclusivity is therefore not checked at
    /// run time (no two accesses can overlap, and every registration, a
    /// scope's copies and its close paid for the checks).
    @exclusivity(unchecked)
    var registry = Registry()
    /// Whether this container was made by `makeScope()`.
    let isScope: Bool
    /// Set once, by `close()`; see `isClosed`.
    @usableFromInline
    let closedFlag = Atomic<Bool>(false)
    /// `.new` and `.graph` instances with disposers that a scope disposes
    /// when it closes. Guarded by `writerLock`.
    @exclusivity(unchecked)
    var tracked: [PendingDisposal] = []
    /// What `close()` took, its disposers run and dropped, kept for the
    /// boxes until this container is freed (see `keepDisposedBoxes`). Set
    /// once; guarded by `writerLock`.
    @exclusivity(unchecked)
    var closedEntries: [PendingDisposal] = []
    /// What `close()` took with nothing to dispose, kept until this
    /// container is freed, as `closedEntries` keeps the rest. Guarded by
    /// `writerLock`.
    @exclusivity(unchecked)
    var keptBoxes = KeptBoxes()
    /// A retained `Observation` once this container traced or was validated
    /// (see `observation`); released with the container.
    let observationSlot = Atomic<UnsafeRawPointer?>(nil)
    /// See `graphIdentity`; 0 until first asked for.
    let graphIdentitySlot = Atomic<UInt64>(0)

    /// Creates an empty container, optionally the child of `parent`.
    ///
    /// ```swift
    /// let app = Container()
    /// let test = Container(parent: app)   // overrides here, the rest from `app`
    /// ```
    public init(parent: Container? = nil) {
        self.parent = parent
        self.isScope = false
        (table, writerLock) = Self.makeTable(registry: &registry)
    }

    init(parent: Container, isScope: Bool) {
        self.parent = parent
        self.isScope = isScope
        (table, writerLock) = Self.makeTable(registry: &registry)
    }

    /// A new container's table and writer lock: those a freed container
    /// left on this thread (with its registration list's storage, which
    /// goes in `registry`), or new ones.
    private static func makeTable(registry: inout Registry) -> (ResolutionTable, WriterLock) {
        if let table = SpareTables.take(into: &registry.ordered) {
            return (table, WriterLock(reusingAt: table.ownerArea))
        }
        let table = ResolutionTable()
        return (table, WriterLock(initializingAt: table.ownerArea))
    }

    deinit {
        // No reader can exist any more: nothing references this container,
        // and no writer: writers hold it too.
        if registry.hasGraphDefinitions {
            retireGraphDefinitions()
        }
        if isScope {
            recycleScopeObjects()
        }
        if !SpareTables.keep(table, ordered: &registry.ordered) {
            table.destroy()
        }
        if let observation = observationSlot.load(ordering: .acquiring) {
            Unmanaged<Observation>.fromOpaque(observation).release()
        }
    }

    /// Hands this freed container's `.graph` registrations to the reclaimer
    /// instead of releasing them with the rest.
    ///
    /// Their instances may still be in an object graph that outlives the
    /// resolve that used this container: a factory that made a child
    /// container, resolved a `.graph` service from it and let it go, inside
    /// a resolve that goes on. The graph keeps such an instance in the slot
    /// of the registration's dense index and destroys it, when the graph
    /// ends, through the registration; a registration freed before that
    /// gave its index back for the next `.graph` registration to take,
    /// whose resolve then found the old instance as its own, of another
    /// type, and the graph's end used the freed registration. Retired, a
    /// registration is freed only once every resolve running now, on any
    /// thread, has returned, and every graph ends inside its resolve.
    private func retireGraphDefinitions() {
        for index in registry.ordered.indices {
            guard let definition = registry.ordered[index], definition.kind == .graph else { continue }
            registry.ordered[index] = nil
            Reclamation.retire(definition)
        }
        // Freed here if no resolve is running, as a release would have.
        Reclamation.poll()
    }
}
