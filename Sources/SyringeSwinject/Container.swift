import CSyringeTable
import Synchronization
@_spi(SyringeSwinject) import Syringe

/// Swinject's `Container`, on Syringe's engine: register services with
/// factories, resolve them as optionals, share them by object scope, and
/// build child containers that see their parents' registrations.
///
/// Unlike Swinject's, this container is safe to use from any number of
/// threads at once without `synchronize()`: resolves read the registrations
/// without a lock (Syringe's C table and reclaimer), each thread builds its
/// own object graph, registrations may race with resolves, and a
/// `.container` instance is made once however many threads ask for it at
/// the same time. Your factories run on the threads that resolve, as they
/// do in Swinject; they are as thread-safe as you make them, or run one at a
/// time through `synchronize()`.
///
/// ```swift
/// let container = Container()
/// container.register(Animal.self) { _ in Cat(name: "Mimi") }
/// container.register(Person.self) { r in PetOwner(pet: r.resolve(Animal.self)!) }
///     .inObjectScope(.container)
/// let owner = container.resolve(Person.self)
/// ```
public final class Container: @unchecked Sendable {
    @usableFromInline
    let parent: Container?
    /// Registrations made for their own service type: the hot path's table.
    @usableFromInline
    let direct = EntryTable()
    /// Registrations reached through another type (`forward`, `implements`).
    let forwarded = EntryTable()
    /// Set once the first forward is made, so that misses of containers
    /// without one probe one table only.
    let hasForwards = Atomic<Bool>(false)
    /// Whether resolves run one at a time under `recursiveLock` (`synchronize()`).
    @usableFromInline
    let isSynchronized: Bool
    @usableFromInline
    let recursiveLock: RecursiveLock
    let debugHelper: DebugHelper
    @usableFromInline
    let defaultObjectScope: ObjectScope
    /// What this container's entries know of it (see `ContainerLink`).
    let link = ContainerLink()

    /// Guards the fields below and every table write.
    let writer = Lock()
    /// Every key, for the writer side; keeps the published entries alive.
    private var registry: [ServiceKey: ServiceEntryProtocol] = [:]
    private var behaviors: [Behavior] = []
    /// A graph `restoreObjectGraph` set, for the next outermost resolve.
    private var pendingGraph: GraphIdentifier?
    @usableFromInline
    let hasPendingGraph = Atomic<Bool>(false)
    /// This container as its factories' `Resolver` (see `SelfResolver`).
    /// Set once, by the initialiser; never written afterwards, so read
    /// without an exclusivity check.
    @usableFromInline
    @exclusivity(unchecked)
    var selfResolver: Unmanaged<SelfResolver>?

    init(parent: Container? = nil, debugHelper: DebugHelper, defaultObjectScope: ObjectScope = .graph, synchronized: Bool = false) {
        self.parent = parent
        self.debugHelper = debugHelper
        self.defaultObjectScope = defaultObjectScope
        self.isSynchronized = synchronized
        self.recursiveLock = parent?.recursiveLock ?? RecursiveLock()
        link.attach(self)
        selfResolver = SelfResolver.make(for: self)
    }

    /// A container, optionally a child of `parent` (whose registrations it
    /// resolves, and whose `.container` instances it shares), registering
    /// with `defaultObjectScope` unless told otherwise, informing
    /// `behaviors` of every registration, and filled by `registeringClosure`.
    ///
    /// ```swift
    /// let app = Container { c in
    ///     c.register(Animal.self) { _ in Cat() }
    /// }
    /// let child = Container(parent: app, defaultObjectScope: .container)
    /// ```
    public convenience init(
        parent: Container? = nil,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [Behavior] = [],
        registeringClosure: (Container) -> Void = { _ in }
    ) {
        self.init(parent: parent, debugHelper: LoggingDebugHelper(), defaultObjectScope: defaultObjectScope)
        behaviors.forEach(addBehavior)
        registeringClosure(self)
    }

    deinit {
        SelfResolver.release(selfResolver.unsafelyUnwrapped, of: self)
        link.clear()
        direct.destroy()
        forwarded.destroy()
        // Retired, not released: a graph in progress on this thread (a
        // factory that made this container and let it go) may still hold
        // these entries in its slots, unretained, and their indices must not
        // be reused before it ends. Every graph ends inside a read-side
        // section, which the reclaimer waits for, as for `removeAll`.
        registry.values.forEach { Syringe.Reclamation.retire($0) }
        Syringe.Reclamation.poll()
    }

    // MARK: Writers

    /// Removes every registration of this container (not its parent's).
    ///
    /// ```swift
    /// container.removeAll()
    /// ```
    public func removeAll() {
        let removed: [ServiceEntryProtocol] = writer.withLock {
            direct.removeAll()
            forwarded.removeAll()
            defer { registry.removeAll() }
            return Array(registry.values)
        }
        // Lock-free resolves may still be reading the entries.
        removed.forEach { Syringe.Reclamation.retire($0) }
        Syringe.Reclamation.poll()
    }

    /// Drops the instances kept by `objectScope` here and in every ancestor,
    /// so that the next resolves make new ones.
    ///
    /// ```swift
    /// container.resetObjectScope(.container)
    /// ```
    public func resetObjectScope(_ objectScope: ObjectScopeProtocol) {
        entries { _, entry in entry.objectScope === objectScope }.forEach { $0.resetInstance() }
        parent?.resetObjectScope(objectScope)
        Syringe.Reclamation.poll()
    }

    /// Drops the instances kept by `objectScope` here and in every ancestor.
    ///
    /// ```swift
    /// container.resetObjectScope(ObjectScope.container)
    /// ```
    public func resetObjectScope(_ objectScope: ObjectScope) {
        resetObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Drops the instances of `serviceType` kept by `objectScope`, here and,
    /// if this container registers `serviceType`, in its ancestors.
    ///
    /// ```swift
    /// container.resetObjectScope(.container, serviceType: Session.self)
    /// ```
    public func resetObjectScope(_ objectScope: ObjectScopeProtocol, serviceType: Any.Type) {
        let matching = entries { key, _ in key.serviceType == serviceType }
        guard !matching.isEmpty else {
            return
        }
        matching.filter { $0.objectScope === objectScope }.forEach { $0.resetInstance() }
        parent?.resetObjectScope(objectScope, serviceType: serviceType)
        Syringe.Reclamation.poll()
    }

    /// Drops the instances of `serviceType` kept by `objectScope`.
    ///
    /// ```swift
    /// container.resetObjectScope(ObjectScope.container, serviceType: Session.self)
    /// ```
    public func resetObjectScope(_ objectScope: ObjectScope, serviceType: Any.Type) {
        resetObjectScope(objectScope as ObjectScopeProtocol, serviceType: serviceType)
    }

    /// Adds a behavior, told of every registration from now on.
    ///
    /// ```swift
    /// container.addBehavior(RegistrationLogger())
    /// ```
    public func addBehavior(_ behavior: Behavior) {
        writer.withLock { behaviors.append(behavior) }
    }

    /// Whether `serviceType` is registered with `name` (with any arguments)
    /// here or in an ancestor.
    ///
    /// ```swift
    /// container.hasAnyRegistration(of: Animal.self, name: "cat")
    /// ```
    public func hasAnyRegistration<Service>(of serviceType: Service.Type, name: String? = nil) -> Bool {
        !entries { key, _ in key.serviceType == serviceType && key.name == name }.isEmpty
            || parent?.hasAnyRegistration(of: serviceType, name: name) == true
    }

    /// A resolver that runs resolves (and so your factories) one at a time,
    /// for factories that are not thread-safe themselves. The container is
    /// thread-safe without it.
    ///
    /// ```swift
    /// // Swinject's `Resolver` is not `Sendable`; this one is safe to share.
    /// nonisolated(unsafe) let resolver = container.synchronize()
    /// DispatchQueue.concurrentPerform(iterations: 8) { _ in _ = resolver.resolve(Animal.self) }
    /// ```
    public func synchronize() -> Resolver {
        Container(parent: self, debugHelper: debugHelper, defaultObjectScope: defaultObjectScope, synchronized: true)
    }

    // MARK: Object graphs

    /// The graph being built on this thread, or the one
    /// `restoreObjectGraph(_:)` set for the next resolve, or nil.
    ///
    /// ```swift
    /// container.register(Dog.self) { r in
    ///     graph = (r as? Container)?.currentObjectGraph
    ///     return Dog()
    /// }
    /// ```
    public var currentObjectGraph: GraphIdentifier? {
        let state = ResolutionState.current
        if state.depth > 0 {
            return state.graphIdentifier()
        }
        return writer.withLock { pendingGraph }
    }

    /// Makes the next outermost resolve on this container build into
    /// `identifier`'s graph, reusing the instances of it still alive.
    ///
    /// ```swift
    /// container.restoreObjectGraph(graph)
    /// let same = container.resolve(Dog.self)
    /// ```
    public func restoreObjectGraph(_ identifier: GraphIdentifier) {
        writer.withLock {
            pendingGraph = identifier
            hasPendingGraph.store(true, ordering: .releasing)
        }
    }

    /// Runs `closure` with every resolve on this thread building into
    /// `identifier`'s graph.
    ///
    /// ```swift
    /// container.withObjectGraph(graph) { c in
    ///     dog = c.resolve(Dog.self)
    /// }
    /// ```
    public func withObjectGraph<T>(_ identifier: GraphIdentifier, closure: (Container) throws -> T) rethrows -> T {
        // One read-side section for the whole closure: the graph's slots
        // refer to entries unretained, which it keeps allocated.
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        let state = ResolutionState.current
        let frame = state.enter(identifier)
        defer { state.leave(frame) }
        return try closure(self)
    }

    /// The graph an outermost resolve builds into: one `restoreObjectGraph`
    /// set, taken, or nil for a new one.
    @usableFromInline
    func takePendingGraph() -> GraphIdentifier? {
        guard hasPendingGraph.load(ordering: .acquiring) else {
            return nil
        }
        return writer.withLock {
            defer {
                pendingGraph = nil
                hasPendingGraph.store(false, ordering: .relaxed)
            }
            return pendingGraph
        }
    }

    // MARK: The registry

    /// Publishes `entry` under its key; the entry it replaces is retired.
    func publish(_ entry: ServiceEntryProtocol, key: ServiceKey, isForward: Bool, notify: (Behavior) -> Void) {
        let replaced: ServiceEntryProtocol? = writer.withLock {
            let value = Unmanaged.passUnretained(entry as AnyObject).toOpaque()
            // A key has one entry: a forward replaces a registration of the
            // same key and the other way round, as in Swinject's one dictionary.
            // The new table first, then the other: a resolve racing this
            // finds the old entry or the new one, never neither (which would
            // be a nil, or a parent's registration).
            if key.option == nil {
                let type = identity(key.serviceType), arguments = identity(key.argumentsType)
                if isForward {
                    hasForwards.store(true, ordering: .releasing)
                    _ = forwarded.insert(type: type, arguments: arguments, name: key.name, value)
                    _ = direct.remove(type: type, arguments: arguments, name: key.name)
                } else {
                    _ = direct.insert(type: type, arguments: arguments, name: key.name, value)
                    _ = forwarded.remove(type: type, arguments: arguments, name: key.name)
                }
            }
            return registry.updateValue(entry, forKey: key)
        }
        if let replaced {
            Syringe.Reclamation.retire(replaced)
        }
        // Outside the lock: a behavior is user code, and may register.
        writer.withLock { behaviors }.forEach(notify)
        Syringe.Reclamation.poll()
    }

    /// This container's entries whose key matches.
    func entries(where matches: (ServiceKey, ServiceEntryProtocol) -> Bool) -> [ServiceEntryProtocol] {
        writer.withLock { registry.filter { matches($0.key, $0.value) }.map(\.value) }
    }

    /// The entry registered for a key with an option (kept in the registry
    /// only: options are for extensions, never on a hot path).
    func optionEntry(_ key: ServiceKey) -> ServiceEntryProtocol? {
        writer.withLock { registry[key] }
    }

    /// Every registration here and in the ancestors (the nearest wins).
    func registrations() -> [ServiceKey: ServiceEntryProtocol] {
        var all = parent?.registrations() ?? [:]
        writer.withLock { all.merge(registry) { _, own in own } }
        return all
    }
}

extension Container: CustomStringConvertible {
    /// Every registration of this container, one per line, sorted.
    ///
    /// ```swift
    /// print(container)
    /// // [
    /// //     { Service: Animal, Factory: Resolver -> Animal, ObjectScope: graph }
    /// // ]
    /// ```
    public var description: String {
        let lines = writer.withLock { registry.map { "\n    { \($0.value.describeWithKey($0.key)) }" } }
        return "[" + lines.sorted().joined(separator: ",") + "\n]"
    }
}
