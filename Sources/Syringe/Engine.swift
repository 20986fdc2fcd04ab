public import CSyringeTable

/// Step 4 of a resolve: the engine, which turns a found definition into an
/// instance.
///
/// A resolve travels these files, in this order:
///
///     caller ── Container+Resolve.swift   tryResolve, resolve, resolveIfRegistered (public)
///                 │
///                 ├─ Lookup.swift          locate: this container, then each ancestor
///                 │    └─ ResolutionTable.swift     the C table (include/syringe_table.h)
///                 │
///                 └─ Engine.swift          produce: an existing `.shared` instance, or
///                      │                   produceSlowly: the thread's ResolutionContext,
///                      │                   the outermost resolve's bookkeeping, `.new`,
///                      │                   and `.graph` (GraphInstances.swift)
///                      ├─ Scopes.swift     produceInScope: `.new`, `.shared` (created once,
///                      │                   InstanceCreation.swift), `.graph`, `.weak`, and
///                      │                   aliases (Aliases.swift)
///                      └─ Engine.swift     construct: a frame on the context (cycles, paths),
///                                          callFactory: the registration's factory
///                                          (Definition.swift), onResolved queued
///
/// Nested resolves (a factory resolving its dependencies through its
/// `Resolver`) take the same path and join the resolve in progress on the
/// thread: they share its `.graph` instances and its frames.
///
/// Split for speed and code size. Per requested type `T`, only a thin
/// `@inlinable` path is specialised into the caller: it calls the shared,
/// non-generic `locate` and returns an existing `.shared` instance with one
/// acquire load and no retain but the instance's. Everything else is in
/// `produceSlowly` (which builds `.new` and `.graph` itself) and
/// `produceInScope` (the other scopes), both specialised for `T` but kept out
/// of line, so that a program resolving a thousand types does not carry a
/// thousand copies of them on its hot path.
extension Container {
    /// Produces an instance from what `locate` found. The one fast path: an
    /// existing `.shared` instance, through a guaranteed reference; everything
    /// else out of line.
    @inlinable
    @inline(__always)
    func produce<T>(_ located: Located, as type: T.Type, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        // The key's type identity is `T`'s, so the definition is a `Definition<T>`.
        let definition = Unmanaged<Definition<T>>.fromOpaque(located.definition)
        // While something observes resolves (tracing, validation), even an
        // existing instance is reported: `produceSlowly` takes it. The flag
        // first: tested after the instance's load, it stayed live across the
        // retain and cost S2 10 instructions per resolve, not 5.
        if !syr_observed(), let instance = definition._withUnsafeGuaranteedRef({ $0.sharedInstance() }) {
            return instance
        }
        return try produceSlowly(definition, holder: located.holder, arguments: arguments)
    }

    /// Everything but an existing `.shared` instance.
    ///
    /// Takes unretained handles and works on guaranteed references: the
    /// definition, its holder and this thread's context all outlive the call
    /// (see `Located` and `ResolutionContext`), and retaining them would cost
    /// a third of a `.new` resolve. `.new` and `.graph` definitions, the
    /// common cases, are built right here, the other scopes through
    /// `produceInScope`.
    @inlinable
    @inline(never)
    func produceSlowly<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        if syr_observed() {
            return try produceObserved(definition, holder: holder, arguments: arguments)
        }
        return try produceUnobserved(definition, holder: holder, arguments: arguments)
    }

    /// `produceSlowly` when nothing observes the resolve: the engine proper.
    @inlinable
    @inline(__always)
    func produceUnobserved<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        // Here rather than in `locate`, so that an existing `.shared`
        // instance pays nothing: `close()` takes those, which sends their
        // resolves here too. Along the chain: a child of a closed container
        // creates nothing.
        if isClosedOnChainNow {
            return try existingInstanceOrClosed(definition._withUnsafeGuaranteedRef { $0 }, holder: holder)
        }
        if definition._withUnsafeGuaranteedRef({ $0.kind }) == .graph {
            // Most edges of an object graph end in an instance the graph
            // already has: that takes no frame and no throwing closure. A
            // hit is never the outermost resolve: an idle context's graph is
            // empty (it is dropped when the outermost resolve ends), so
            // there is nothing to finish. The slot is read through a
            // non-generic closure: a generic one stayed a call of its own.
            //
            // The graph is this container's: a `.graph` resolve through
            // another container than the one whose graph is current (a
            // factory asking a container directly) builds in this
            // container's graph of the outermost resolve, so that what it
            // builds with this container's registrations never ends up in
            // another's, where that container's singletons would find it
            // (see `ResolutionContext.enterGraph(of:)`). `.new` resolves
            // keep nothing in a graph, and pay nothing for it.
            let context = ResolutionContext.currentUnretained
            let index = definition._withUnsafeGuaranteedRef { $0.graphIndex }
            // Compared as bits: as optionals, the comparison took five
            // instructions more on every edge of a graph.
            let me = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
            if context._withUnsafeGuaranteedRef({ unsafeBitCast($0.graphOwner, to: UInt.self) == me }) {
                if let value = context._withUnsafeGuaranteedRef({ $0.graph.value(at: index) }) {
                    return GraphInstances.instance(at: value, as: T.self)
                }
            } else if context._withUnsafeGuaranteedRef({ !$0.isIdle }) {
                return try produceInOwnGraph(definition, holder: holder, arguments: arguments)
            }
            // Built here rather than in a function of its own, so that each
            // level of a graph nests as few frames as a `.new` chain (256
            // bytes of stack where it took 480: a hundred levels deep, the
            // difference alone no longer fits the data cache). A nest of its
            // own, not a case in the one below: one nest switching on the
            // kind measured S1 3 and S5 about 30 instructions more.
            return try guaranteed(definition) { (definition) throws(ResolutionError) -> T in
                try guaranteed(context) { (context) throws(ResolutionError) -> T in
                    try asOutermostIfIdle(context) { () throws(ResolutionError) -> T in
                        try reuseOrConstructInGraphSlowly(definition, arguments: arguments, context: context)
                    }
                }
            }
        }
        return try guaranteed(definition) { (definition) throws(ResolutionError) -> T in
            try guaranteed(ResolutionContext.currentUnretained) { (context) throws(ResolutionError) -> T in
                try asOutermostIfIdle(context) { () throws(ResolutionError) -> T in
                    definition.kind == .new
                        ? try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
                        : try produceInScope(definition, holder: holder, arguments: arguments, context: context)
                }
            }
        }
    }

    /// Runs `body`, and if it is the outermost resolve on this thread (the
    /// context was idle), the bookkeeping of the object graph it owns (this
    /// container's): its deferred callbacks and its graph when it succeeds,
    /// or the undoing of what it published when it fails.
    @inlinable
    @inline(__always)
    func asOutermostIfIdle<T>(_ context: ResolutionContext, _ body: () throws(ResolutionError) -> T) throws(ResolutionError) -> T {
        let outermost = context.isIdle
        if outermost {
            context.graphOwner = Unmanaged.passUnretained(self).toOpaque()
        }
        do throws(ResolutionError) {
            let instance = try body()
            if outermost && context.hasDeferredWork {
                try context.finish()
            }
            return instance
        } catch {
            if outermost {
                context.abandon()
            }
            throw error
        }
    }

    /// `produceUnobserved` for a `.graph` resolve nested in one through
    /// another container: in this container's graph. Out of line and
    /// unspecialised: factories resolve through the container whose graph
    /// is current.
    @usableFromInline
    @inline(never)
    func produceInOwnGraph<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        let context = ResolutionContext.current
        let outerGraph = context.enterGraph(of: self)
        defer { outerGraph.map(context.leaveGraph) }
        return try produceUnobserved(definition, holder: holder, arguments: arguments)
    }

    /// Produces an instance inside the resolve in progress on this thread,
    /// without the outermost resolve's bookkeeping: for aliases, which reach
    /// their target from inside the engine.
    func produceNested<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        if let instance = definition.sharedInstance() {
            return instance
        }
        return try produceInScope(definition, holder: .passUnretained(holder), arguments: arguments, context: context)
    }

    /// Runs the factory inside a frame of its own (cycle detection, paths),
    /// and hands the instance to the definition's hooks, if it has any.
    @inlinable
    func construct<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try context.enter(definition)
        defer { context.leave() }
        let instance = try callFactory(definition, resolver: resolver, arguments: arguments, context: context)
        context.creations &+= 1
        if let hooks = definition.loadHooks() {
            applyHooks(hooks, to: instance, of: definition, resolver: resolver, context: context)
        }
        return instance
    }

    /// A new `.new` or `.graph` instance's hooks: hands it to the nearest
    /// scope for disposal if it has disposers, and queues its `onResolved`
    /// callbacks. Out of line and not throwing (a failure to track is thrown
    /// when the outermost resolve finishes), so that `construct` stays as
    /// small as it was before disposal existed: a throwing call here made
    /// the optimiser stop inlining it, which cost S1 about 30 instructions.
    ///
    /// An instance refused for want of an owner is disposed when the
    /// outermost resolve fails, not here: until then the factory that asked
    /// for it may still be using it. Its callbacks are not queued: the
    /// failure, queued first, ends the resolve before they would run.
    @usableFromInline
    func applyHooks<T>(_ hooks: Hooks<T>, to instance: T, of definition: Definition<T>, resolver: Resolver, context: ResolutionContext) {
        if hooks.hasDisposers,
           let refused = trackForDisposal(instance, of: definition, path: context.pathText, captor: context.innermostSingleton()) {
            context.deferFailure(refused.failure, of: definition, disposing: refused.disposal)
            return
        }
        context.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance, undo: nil)
    }

    /// Calls the factory, turning what it throws into a `ResolutionError`.
    /// Call inside the definition's frame.
    @inlinable
    @inline(__always)
    func callFactory<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        do {
            return try definition.factory(resolver, arguments)
        } catch {
            throw context.failure(error, in: definition)
        }
    }

    /// Runs `body` with a guaranteed (unretained) reference to `object`.
    ///
    /// `_withUnsafeGuaranteedRef` rethrows untyped errors, so `body`'s
    /// `ResolutionError` comes back as `any Error` and is taken out again,
    /// on the failure path only. (Carrying it in a `Result<R, ResolutionError>`
    /// instead cost every call in unspecialised code, such as a scope's
    /// resolves, a runtime lookup of that `Result`'s metadata: about 330
    /// instructions, ten times per request in the TodoService example.)
    @inlinable
    @inline(__always)
    func guaranteed<Object: AnyObject, R>(_ object: Unmanaged<Object>, _ body: (Object) throws(ResolutionError) -> R) throws(ResolutionError) -> R {
        do {
            return try object._withUnsafeGuaranteedRef(body)
        } catch {
            throw Container.resolutionError(error)
        }
    }

    /// What `guaranteed`'s body threw, typed again. Out of line: the cast
    /// inlined into every resolve made them larger, and the optimiser then
    /// inlined less of them (S7 cost 10 instructions more).
    @usableFromInline
    @inline(never)
    static func resolutionError(_ error: any Error) -> ResolutionError {
        guard let error = error as? ResolutionError else {
            preconditionFailure("Syringe: a resolve's body threw \(type(of: error)), not a ResolutionError")
        }
        return error
    }

    /// A pointer standing in for an empty argument tuple; never dereferenced.
    @inlinable
    static var noArguments: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    }
}
