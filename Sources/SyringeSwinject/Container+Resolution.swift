import CSyringeTable
import Synchronization

/// The engine: from a request to an instance, with Swinject's semantics.
///
/// A resolve finds its entry in the C tables of the container and its
/// ancestors (lock-free, inside one of Syringe's read-side sections), returns
/// an existing `.container` instance at once, and otherwise runs the entry's
/// scope in this thread's `ResolutionState`:
///
/// 1. if the scope keeps an instance for this graph, return it;
/// 2. run the factory;
/// 3. if the factory's own resolves stored an instance meanwhile (a
///    circular dependency resolved through `initCompleted`), return that one;
/// 4. store the new instance in the scope, then run `initCompleted`, so that
///    a cycle closed there finds the instance instead of making another.
///
/// `.container`, `.weak` and custom scopes claim their entry while steps 1–4
/// run (Syringe's `InstanceCreation` claims), so that threads asking at the
/// same time wait and find the one instance instead of each making one. The
/// claim is not a lock: a thread that already holds it (a cycle on one
/// thread, which Swinject resolves by running the factory again) or whose
/// wait would close a cycle between threads goes on without it.
extension Container {
    /// A resolve with runtime arguments (or none): the one entry point of
    /// every typed `resolve`.
    @inlinable
    @inline(__always)
    func resolve<Service, each Argument>(
        _: Service.Type,
        name: String?,
        argumentsType: Any.Type,
        _ arguments: repeat each Argument
    ) -> Service? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let found = locate(type: identity(Service.self), arguments: identity(argumentsType), name: name) else {
            return resolveSlowly(Service.self, name: name, argumentsType: argumentsType, repeat each arguments)
        }
        // Found in a table of registrations made for `Service` itself, so
        // the entry is a ServiceEntry<Service>.
        let entry = Unmanaged<ServiceEntry<Service>>.fromOpaque(found)
        if let instance = entry._withUnsafeGuaranteedRef({ $0.containerInstance() }) {
            return instance
        }
        return withUnsafePointer(to: (repeat each arguments)) { tuple in
            produce(entry, arguments: UnsafeRawPointer(tuple))
        }
    }

    /// Finds the entry registered for exactly this service type, here or in
    /// an ancestor; nil when there is none, or when a forward of the same key
    /// comes first (the slow path resolves those). Lock-free.
    @usableFromInline
    func locate(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?) -> UnsafeMutableRawPointer? {
        var container = Unmanaged.passUnretained(self)
        while true {
            let step: (found: UnsafeMutableRawPointer?, stop: Bool, parent: Unmanaged<Container>?) = container._withUnsafeGuaranteedRef { current in
                let found = name.map { current.direct.lookup(type: type, arguments: arguments, named: $0) }
                    ?? current.direct.lookup(type: type, arguments: arguments)
                if found != nil {
                    return (found, true, nil)
                }
                if current.hasForwards.load(ordering: .acquiring), current.forwardedEntry(type: type, arguments: arguments, name: name) != nil {
                    return (nil, true, nil)
                }
                return (nil, false, current.parent.map { Unmanaged.passUnretained($0) })
            }
            if step.stop {
                return step.found
            }
            guard let parent = step.parent else {
                return nil
            }
            container = parent
        }
    }

    /// The entry a forward of this key reaches, in this container only.
    func forwardedEntry(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?) -> UnsafeMutableRawPointer? {
        if let name {
            return forwarded.lookup(type: type, arguments: arguments, named: name)
        }
        return forwarded.lookup(type: type, arguments: arguments)
    }

    /// Runs a found entry's scope with its typed factory. Specialised for
    /// `Service` in the caller's module but kept out of line, so that the
    /// inlined part of a resolve stays a lookup and a load.
    @inlinable
    @inline(never)
    func produce<Service>(_ entry: Unmanaged<ServiceEntry<Service>>, arguments: UnsafeRawPointer) -> Service? {
        entry._withUnsafeGuaranteedRef { entry in
            guard let make = entry.make else {
                return entry.produceAny(in: self, arguments: arguments, make: nil) as? Service
            }
            return produce(entry) { resolver in make(resolver, arguments) }
        }
    }

    /// Runs `entry`'s scope, with `make` as its factory: steps 1–4 above.
    @inlinable
    func produce<Service>(_ entry: ServiceEntry<Service>, make: (Resolver) -> Service?) -> Service? {
        if isSynchronized {
            recursiveLock.lock()
        }
        defer {
            if isSynchronized {
                recursiveLock.unlock()
            }
        }
        let state = ResolutionState.current
        if state.depth == 0 {
            // The outermost resolve: it owns a graph, new or restored.
            let frame = state.enter(takePendingGraph())
            defer { state.leave(frame) }
            return produceInGraph(entry, state: state, make: make)
        }
        return produceInGraph(entry, state: state, make: make)
    }

    @inlinable
    func produceInGraph<Service>(_ entry: ServiceEntry<Service>, state: ResolutionState, make: (Resolver) -> Service?) -> Service? {
        guard state.depth < Self.maximumDepth else {
            return tooDeep(Service.self)
        }
        state.depth += 1
        defer { state.depth -= 1 }
        switch ScopeKind(rawValue: entry.scope.load(ordering: .acquiring)).unsafelyUnwrapped {
        case .transient:
            guard let made = make(self) else {
                return nil
            }
            entry.completeInitialisation(made, resolver: self)
            return made
        case .graph:
            if let existing = state.graphInstance(entry.index, as: Service.self) {
                return existing
            }
            return produceInGraphSlowly(entry, state: state, make: make)
        case let kind:
            return produceShared(entry, kind: kind, state: state, make: make)
        }
    }

    /// A `.graph` instance this graph does not have yet.
    @inlinable
    @inline(never)
    func produceInGraphSlowly<Service>(_ entry: ServiceEntry<Service>, state: ResolutionState, make: (Resolver) -> Service?) -> Service? {
        if let restored = entry.restoredInstance(in: state) {
            return restored
        }
        guard let made = make(self) else {
            return nil
        }
        if let stored = state.graphInstance(entry.index, as: Service.self) {
            return stored
        }
        state.setGraphInstance(made, entry.index, entry: entry)
        entry.completeInitialisation(made, resolver: self)
        return made
    }

    /// `.container`, `.weak` and custom scopes: under the entry's claim.
    @usableFromInline
    func produceShared<Service>(_ entry: ServiceEntry<Service>, kind: ScopeKind, state: ResolutionState, make: (Resolver) -> Service?) -> Service? {
        if let stored = entry.storedInstance(in: state, kind: kind) {
            return stored
        }
        let claimed = InstanceClaims.claim(entry, for: state)
        var released = false
        func release() {
            if claimed && !released {
                InstanceClaims.release(entry)
                released = true
            }
        }
        defer { release() }
        if claimed, let stored = entry.storedInstance(in: state, kind: kind) {
            // Made by the thread this one waited for.
            return stored
        }
        guard let made = make(self) else {
            return nil
        }
        if let stored = entry.storedInstance(in: state, kind: kind) {
            return stored
        }
        let kept = entry.store(made, in: state, kind: kind)
        // Released before `initCompleted`, which may resolve anything.
        release()
        entry.completeInitialisation(kept, resolver: self)
        return kept
    }

    /// How deep resolves may nest: a factory that resolves itself forever
    /// (a circular dependency through initialisers, in a scope that keeps
    /// nothing) ends here with nil and a log line, where Swinject stops the
    /// program.
    @inlinable
    static var maximumDepth: Int { 200 }

    @usableFromInline
    func tooDeep<Service>(_: Service.Type) -> Service? {
        Container.log("SyringeSwinject: resolving \(Service.self) nested \(Self.maximumDepth) resolves deep; "
            + "a circular dependency through initialisers never ends. Inject one side in initCompleted instead.")
        return nil
    }
}
