/// Step 5 of a resolve: what each scope does with a definition's factory.
extension Container {
    /// Every scope but an existing `.shared` instance, which `produce`
    /// returns itself. Specialised for `T` like `produceSlowly`, and out of
    /// line like it.
    @inlinable
    @inline(never)
    func produceInScope<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try guaranteed(holder) { (holder) throws(ResolutionError) -> T in
            switch definition.kind {
            case .new:
                return try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
            case .shared:
                return try createShared(definition, holder: holder, arguments: arguments, context: context)
            case .graph:
                return try reuseOrConstructInItsGraph(definition, arguments: arguments, context: context)
            case .weak:
                return try reuseOrCreateWeak(definition, holder: holder, arguments: arguments, context: context)
            case .scoped, .scopeLocal:
                return try produceScoped(definition, holder: holder, arguments: arguments, context: context)
            case .forward, .forwardToScoped:
                // An alias has no frame of its own: its target's frame is the
                // step (an error from below names the alias too: see
                // `ResolutionError.throughAlias`). Its factory (see
                // Aliases.swift) produces the target as a resolve of it from
                // this container would.
                return try callFactory(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
            }
        }
    }

    /// `.graph`: the instance the current object graph already has, or a new
    /// one that the rest of the graph will share.
    @inlinable
    func reuseOrConstructInGraph<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        if let instance = context.graphInstance(of: definition) {
            return instance
        }
        return try reuseOrConstructInGraphSlowly(definition, arguments: arguments, context: context)
    }

    /// `reuseOrConstructInGraph` in this container's graph, as
    /// `produceUnobserved` builds one: for an alias's target, resolved
    /// through the container asked (see `ResolutionContext.enterGraph(of:)`).
    /// Out of line: only aliases get here.
    @usableFromInline
    func reuseOrConstructInItsGraph<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        let outerGraph = context.enterGraph(of: self)
        defer { outerGraph.map(context.leaveGraph) }
        return try reuseOrConstructInGraph(definition, arguments: arguments, context: context)
    }

    /// `.graph` when this thread's graph does not have the instance: the
    /// async graph around this resolve may (see
    /// `ResolutionContext.asyncParent`), or it is built.
    @inlinable
    @inline(__always)
    func reuseOrConstructInGraphSlowly<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        if context.asyncParent != nil {
            return try reuseOrConstructInAsyncGraph(definition, arguments: arguments, context: context)
        }
        let instance = try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
        context.storeGraphInstance(instance, of: definition)
        return instance
    }

    /// `.graph` inside an async resolve (`context.asyncParent`): the
    /// instance its async graph has, or a new one the graph then keeps,
    /// built once however many threads of the graph ask for it at once
    /// (see `ResolutionContext.reuseOrBuildInAsyncGraph`).
    ///
    /// Out of line: the async engine resolves synchronous registrations
    /// through the unspecialised `produceSlowly`, where generic metadata is
    /// a runtime lookup (`Optional<T>`'s, which this named once, about 400
    /// instructions), and inlined there it was fetched at the start of every
    /// such resolve, `.graph` or not. Not inlinable either, so not
    /// specialised in a client: seen there, this body changed how the
    /// optimiser laid out the client's own `produceSlowly`, the `.new` path
    /// included (S5 cost 15 instructions more than with it opaque). Only a
    /// synchronous factory's resolve inside an async one gets here.
    @usableFromInline
    @inline(never)
    func reuseOrConstructInAsyncGraph<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        let box = try context.reuseOrBuildInAsyncGraph(definition) { () throws(ResolutionError) -> AnyObject in
            // `construct`'s body, in the frame entered before the claim
            // (`reuseOrBuildInAsyncGraph`): written out rather than split
            // out of `construct`, which every `.new` and `.graph` resolve
            // inlines, so that their code stays as it was.
            let resolver = Resolver(container: self)
            let instance = try callFactory(definition, resolver: resolver, arguments: arguments, context: context)
            context.creations &+= 1
            if let hooks = definition.loadHooks() {
                applyHooks(hooks, to: instance, of: definition, resolver: resolver, context: context)
            }
            return InstanceBox.make(instance)
        }
        let instance = unsafeDowncast(box, to: InstanceBox.self).value(as: T.self)
        context.storeGraphInstance(instance, of: definition)
        return instance
    }

    /// `.shared`: creates the instance exactly once. Not inlined: it runs
    /// once per instance generation.
    ///
    /// The instance is published when its factory returns, before its
    /// `onResolved` callbacks run (they run when the outermost resolve has
    /// built the whole graph). If that resolve fails before they have all
    /// run, the instance is taken back, so that the next resolve creates it
    /// anew instead of returning a half-configured object, and disposed if
    /// it has disposers (see `retraction`).
    @usableFromInline
    func createShared<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try claiming(definition, context: context) { () throws(ResolutionError) -> T in
            if let instance = definition.sharedInstance() {
                return instance  // another thread created it while we waited
            }
            // Or the holder was closed while we waited, and `close()` took
            // that instance (or its creator abandoned it): building another
            // only to dispose of it would run the factory after the close.
            if holder.isClosed {
                throw definition.error(.closed, path: context.pathText)
            }
            if definition.isRetired, let replacement = holder.replacement(of: definition) {
                // The resolve then counts as made after the replacement: the
                // new registration's instance, never a second one of this.
                return try produce(replacement, as: T.self, arguments: arguments)
            }
            // In `holder`'s graph: the factory, and the callbacks queued below.
            let outerGraph = context.enterGraph(of: holder)
            defer { outerGraph.map(context.leaveGraph) }
            let resolver = Resolver(container: holder)
            let queuedBefore = context.pendingCount
            let instance = try callFactory(definition, resolver: resolver, arguments: arguments, context: context)
            context.creations &+= 1
            guard let box = definition.publishShared(instance) else {
                // An async creator published first. (Not `??`: in this
                // unspecialised code it instantiates `Optional<T>`'s metadata
                // for every type, which cost S7 20 instructions per resolve.)
                if let published = definition.sharedInstance() {
                    return published
                }
                return instance
            }
            try holder.publishOrAbandon(box: box, of: definition, path: context.pathText)
            // With callbacks only: the undo closure is a context to
            // allocate, for nothing when the hooks hold only disposers.
            // Without callbacks of its own, an undo all the same when the
            // instances its factory built have callbacks still to run: the
            // instance holds them, configured or not. (The undo is made in
            // each branch: a closure is a context to allocate, for nothing
            // on the usual path.)
            if let hooks = definition.loadHooks(), hooks.hasCallbacks {
                context.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance,
                                       undo: Self.retraction(of: definition, box: box))
            } else if context.pendingCount > queuedBefore {
                context.deferUndo(of: definition, Self.retraction(of: definition, box: box))
            }
            return instance
        }
    }

    /// The registration now under the key of `definition`, which was
    /// replaced after this resolve found it and whose `.shared` instance
    /// was taken since (a resolve that held the definition past its
    /// read-side section: a synchronous registration inside an async
    /// resolve). Nil if the key was removed: then the caller builds the
    /// instance of the registration it found, as a resolve that found it
    /// just before the removal would have.
    func replacement(of definition: AnyDefinition) -> Located? {
        let key = definition.key
        return locate(type: key.type, signature: key.signature, name: key.name)
    }

    /// `.weak`: the live instance, or a new one. Like `.shared`, a new
    /// instance whose callbacks did not all run is forgotten again.
    @usableFromInline
    func reuseOrCreateWeak<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        if definition.hasDisposers {
            // Shared by whoever holds it, owned by nobody: nothing could
            // tell when to dispose it.
            throw definition.error(.disposerWithoutOwner(scope: .weak), path: context.pathText(appending: definition.stepText))
        }
        return try claiming(definition, context: context) { () throws(ResolutionError) -> T in
            let box = definition.weakBox!
            if let instance = box.load() {
                return instance
            }
            let outerGraph = context.enterGraph(of: holder)   // see `createShared`
            defer { outerGraph.map(context.leaveGraph) }
            let resolver = Resolver(container: holder)
            let queuedBefore = context.pendingCount
            let instance = try callFactory(definition, resolver: resolver, arguments: arguments, context: context)
            context.creations &+= 1
            box.store(instance)
            guard let created = box.storedObject else {
                return instance   // not a reference: nothing is kept
            }
            if let hooks = definition.loadHooks(), hooks.hasCallbacks {
                context.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance,
                                       undo: Self.forgetting(created, of: definition, in: box))
            } else if context.pendingCount > queuedBefore {
                context.deferUndo(of: definition, Self.forgetting(created, of: definition, in: box))   // see `createShared`
            }
            return instance
        }
    }

    /// What a failed outermost resolve does with a `.shared` instance it
    /// published in `box` (see `createShared`): takes it back, and disposes
    /// it, as its owner's `close()` can no longer (see
    /// `Definition.abandonRetracted`). Unless something took it first:
    /// `close()`, which disposes it itself, or `releaseSharedInstances()`.
    private static func retraction<T>(of definition: Definition<T>, box: UnsafeRawPointer) -> (ResolutionContext) -> Void {
        { _ in
            if let retracted = definition.retractShared(box) {
                definition.abandonRetracted(retracted)
            }
        }
    }

    /// What a failed outermost resolve does with a `.weak` instance it
    /// stored (`created`): forgets it, unless another has replaced it.
    private static func forgetting<T>(_ created: ObjectIdentifier, of definition: Definition<T>, in box: WeakInstanceBox<T>) -> (ResolutionContext) -> Void {
        { context in
            // Runs when the outermost resolve failed, on this thread, which
            // holds no claim by then: taking this one cannot wait for
            // ourselves.
            guard (try? InstanceCreation.acquire(definition, context: context)) != nil else { return }
            defer { InstanceCreation.release(definition) }
            box.forget(ifHolding: created)
        }
    }

    /// Runs `body` inside `definition`'s frame, holding its claim: a `.shared`
    /// or `.weak` instance is created by one thread at a time.
    @inline(__always)
    private func claiming<T>(_ definition: Definition<T>, context: ResolutionContext, _ body: () throws(ResolutionError) -> T) throws(ResolutionError) -> T {
        // The cycle check comes before the claim: waiting for our own claim
        // would never end instead of reporting the cycle.
        try context.enter(definition)
        defer { context.leave() }
        try InstanceCreation.acquire(definition, context: context)
        defer { InstanceCreation.release(definition) }
        return try body()
    }
}
