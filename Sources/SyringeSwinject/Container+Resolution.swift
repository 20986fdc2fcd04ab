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
        // the entry is a ServiceEntry<Service> and its producer makes a
        // `Service`. Nothing here names a generic type but `Service`
        // (see _ServiceEntryCore for why).
        let core = Unmanaged<_ServiceEntryCore>.fromOpaque(found)
        if let instance = existingGraphInstance(core, as: Service.self) {
            return instance
        }
        // Where `Service` is known (a call site's specialised resolve), an
        // existing `.container` instance is one load, as Syringe's `.shared`
        // is: no call to the producer. The producer checks the same first,
        // so the result is the same either way; in unspecialised code this
        // is skipped, as naming `ServiceEntry<Service>` there would cost a
        // metadata lookup. Not through `synchronize()`: there, as in
        // Swinject, a thread waits for the lock until a resolve in
        // progress has run the instance's `initCompleted` too.
        if _isConcrete(Service.self),
           let instance = Unmanaged<ServiceEntry<Service>>.fromOpaque(found)._withUnsafeGuaranteedRef({ $0.lockFreeInstance(for: self) }) {
            return instance
        }
        // A class reference or a class-bound existential comes back in
        // registers (`ProducedInstance`); another instance is made into
        // `scratch`, big enough for a small struct (a larger value goes to
        // a heap cell).
        // No closure returning `Service?` and no `withUnsafeTemporaryAllocation`
        // (which goes through a `Result<Service?, Never>`): where this runs
        // unspecialised, either would cost a metadata lookup.
        var scratch: (Int, Int, Int, Int) = (0, 0, 0, 0)
        guard MemoryLayout<Service>.size <= MemoryLayout.size(ofValue: scratch),
              MemoryLayout<Service>.alignment <= MemoryLayout.alignment(ofValue: scratch) else {
            return produceLarge(Service.self, producer: core._withUnsafeGuaranteedRef { $0.producer }, entry: found, repeat each arguments)
        }
        let produced = withUnsafePointer(to: (repeat each arguments)) { tuple in
            core._withUnsafeGuaranteedRef { $0.producer(self, found, UnsafeRawPointer(tuple), &scratch) }
        }
        guard produced.isMade else {
            return nil
        }
        return produced.take(Service.self, from: &scratch)
    }

    /// The instance of a `.graph` entry (kept as itself, a class instance)
    /// that the graph in progress on this thread already has, if any: most
    /// edges of an object graph end there. Read off the non-generic core and
    /// the thread's state, without calling the producer, so that it costs
    /// unspecialised code (a factory's resolve through `Resolver`) no
    /// metadata and no frames. What `produceInGraph` would return for it.
    @inlinable
    @inline(__always)
    func existingGraphInstance<Service>(_ core: Unmanaged<_ServiceEntryCore>, as _: Service.Type) -> Service? {
        let entry = core._withUnsafeGuaranteedRef { entry in
            (isGraph: entry.scope.load(ordering: .acquiring) == ScopeKind.graph.rawValue && entry.graphKeepsInstanceItself, index: entry.index)
        }
        guard entry.isGraph,
              let object = ResolutionState.unmanagedCurrent._withUnsafeGuaranteedRef({ $0.depth > 0 ? $0.slotObject(at: entry.index) : nil }) else {
            return nil
        }
        // The slot keeps the instance itself, a `Service` (the key and
        // `graphKeepsInstanceItself` say so).
        return unsafeBitCast(object, to: Service.self)
    }

    /// A found entry whose service is too large for the inline scratch.
    @usableFromInline
    func produceLarge<Service, each Argument>(
        _: Service.Type,
        producer: _ServiceEntryCore.Producer,
        entry: UnsafeMutableRawPointer,
        _ arguments: repeat each Argument
    ) -> Service? {
        let out = UnsafeMutablePointer<Service>.allocate(capacity: 1)
        defer { out.deallocate() }
        let produced = withUnsafePointer(to: (repeat each arguments)) { tuple in
            producer(self, entry, UnsafeRawPointer(tuple), UnsafeMutableRawPointer(out))
        }
        guard produced.isMade else {
            return nil
        }
        return produced.take(Service.self, from: UnsafeMutableRawPointer(out))
    }

    /// Finds the entry registered for exactly this service type, here or in
    /// an ancestor; nil when there is none, or when a forward of the same key
    /// comes first (the slow path resolves those). Lock-free.
    /// The common case, an unnamed key registered in this container, is
    /// inlined: one probe of the table.
    @inlinable
    @inline(__always)
    func locate(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?) -> UnsafeMutableRawPointer? {
        if name == nil, let found = direct.lookup(type: type, arguments: arguments) {
            return found
        }
        return locateSlowly(type: type, arguments: arguments, name: name)
    }

    /// `locate` past its inlined probe (which a named key skips).
    @usableFromInline
    func locateSlowly(type: UnsafeRawPointer, arguments: UnsafeRawPointer, name: String?) -> UnsafeMutableRawPointer? {
        var container = Unmanaged.passUnretained(self)
        var probed = name == nil
        while true {
            let step: (found: UnsafeMutableRawPointer?, stop: Bool, parent: Unmanaged<Container>?) = container._withUnsafeGuaranteedRef { current in
                let found = probed ? nil : name.map { current.direct.lookup(type: type, arguments: arguments, named: $0) }
                    ?? current.direct.lookup(type: type, arguments: arguments)
                probed = false
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

    /// Runs an entry's scope with the factory it has: its typed one, or one
    /// in Swinject's untyped form. For the producers of entries made where
    /// the factory's types were not known (`_register`), and the slow paths;
    /// a `register`'s producer calls `produce(_:arguments:make:)` itself.
    func produce<Service>(_ entry: ServiceEntry<Service>, arguments: UnsafeRawPointer) -> Service? {
        guard let make = entry.make else {
            return typed(entry.produceAny(in: self, arguments: arguments, make: nil))
        }
        return produce(entry, arguments: arguments, make: make)
    }

    /// Runs `entry`'s scope, with `make` (applied to `arguments`) as its
    /// factory: steps 1–4 above.
    @inlinable
    @inline(__always)
    func produce<Service>(_ entry: ServiceEntry<Service>, arguments: UnsafeRawPointer, make: (Resolver, UnsafeRawPointer) -> Service?) -> Service? {
        if isSynchronized {
            recursiveLock.lock()
        }
        defer {
            if isSynchronized {
                recursiveLock.unlock()
            }
        }
        return ResolutionState.unmanagedCurrent._withUnsafeGuaranteedRef { state in
            if state.depth == 0 {
                // The outermost resolve: it owns a graph, new or restored.
                state.enterOutermost(hasPendingGraph.load(ordering: .acquiring) ? takePendingGraph() : nil)
                defer { state.leaveOutermost() }
                return produceInGraph(entry, state: state, arguments: arguments, make: make)
            }
            return produceInGraph(entry, state: state, arguments: arguments, make: make)
        }
    }

    @inlinable
    @inline(__always)
    func produceInGraph<Service>(_ entry: ServiceEntry<Service>, state: ResolutionState, arguments: UnsafeRawPointer, make: (Resolver, UnsafeRawPointer) -> Service?) -> Service? {
        // `<=`: the outermost graph counts one (`enterOutermost`), so that
        // 200 nested resolves succeed, as in Swinject.
        guard state.depth <= Self.maximumDepth else {
            return tooDeep(Service.self)
        }
        state.depth += 1
        defer { state.depth -= 1 }
        switch ScopeKind(rawValue: entry.scope.load(ordering: .acquiring)).unsafelyUnwrapped {
        case .transient:
            return withSelfResolver { resolver in
                guard let made = make(resolver, arguments) else {
                    return nil
                }
                entry.completeInitialisation(made, resolver: resolver)
                return made
            }
        case .graph:
            if let existing = state.graphInstance(entry.index, as: Service.self) {
                return existing
            }
            return produceInGraphSlowly(entry, state: state, arguments: arguments, make: make)
        case let kind:
            return produceShared(entry, kind: kind, state: state, arguments: arguments, make: make)
        }
    }

    /// A `.graph` instance this graph does not have yet.
    @inlinable
    @inline(__always)
    func produceInGraphSlowly<Service>(_ entry: ServiceEntry<Service>, state: ResolutionState, arguments: UnsafeRawPointer, make: (Resolver, UnsafeRawPointer) -> Service?) -> Service? {
        if let restored = entry.restoredInstance(in: state) {
            return restored
        }
        return withSelfResolver { resolver in
            guard let made = make(resolver, arguments) else {
                return nil
            }
            if let stored = state.graphInstance(entry.index, as: Service.self) {
                return stored
            }
            state.setGraphInstance(made, entry.index, entry: entry)
            entry.completeInitialisation(made, resolver: resolver)
            return made
        }
    }

    /// Runs `body` with this container as a `Resolver`, passed by address
    /// (see `SelfResolver`). For specialised code: where `R` is not known,
    /// `_withUnsafeGuaranteedRef` would look up its metadata.
    @inlinable
    @inline(__always)
    func withSelfResolver<R>(_ body: (Resolver) -> R) -> R {
        selfResolver.unsafelyUnwrapped._withUnsafeGuaranteedRef { body($0.resolver) }
    }

    /// `.container`, `.weak` and custom scopes: under the entry's claim.
    @usableFromInline
    func produceShared<Service>(_ entry: ServiceEntry<Service>, kind: ScopeKind, state: ResolutionState, arguments: UnsafeRawPointer, make: (Resolver, UnsafeRawPointer) -> Service?) -> Service? {
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
        let resolver: Resolver = self
        guard let made = make(resolver, arguments) else {
            return nil
        }
        if let stored = entry.storedInstance(in: state, kind: kind) {
            return stored
        }
        let kept = entry.store(made, in: state, kind: kind)
        // Released before `initCompleted`, which may resolve anything.
        release()
        entry.completeInitialisation(kept, resolver: resolver)
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
