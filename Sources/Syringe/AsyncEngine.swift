public import CSyringeTable

/// The async engine: what `Engine.swift` and `Scopes.swift` are to a
/// synchronous resolve, for `resolveAsync` and for the resolves of async
/// factories.
///
/// A synchronous registration is handed to the synchronous engine
/// (`produceBridged`): its factory cannot suspend, so everything it builds
/// runs on the current thread, joined to the async resolve around it through
/// `ResolutionContext.asyncParent`. An async registration is built here,
/// with its state carried by `AsyncFrame`s instead of a thread, and with
/// `AsyncClaims` in place of `InstanceCreation`, so that no thread ever waits
/// for a suspended factory.
///
/// Definitions are held strongly here: the read-side section that keeps
/// what a lock-free lookup found alive belongs to one thread and cannot stay
/// open across a suspension, so each lookup takes its reference inside its
/// section (`startAsync`) and closes it at once. The container asked is not:
/// it goes down the engine as an `Unmanaged<Container>`, held by the
/// `Resolver` that asked (which the engine call outlives), and an async
/// `.new` registration's factory gets a resolver that borrows it too, lent
/// to that factory's frame (see `Resolver.containerReference`).
extension Container {
    /// What the lookup that starts an async resolve found: an existing
    /// `.shared` instance, or the definition to produce one from, retained
    /// for the caller, which takes it with `takeRetainedValue()`. (As a
    /// strong payload, the definition was released after the factory's
    /// call through the enum's outlined destroy, about 15 instructions per
    /// level of an async chain more than a release of its own.)
    ///
    /// The holder is not retained: it is the container asked or one of its
    /// ancestors, which that container holds (`parent` is a `let`), and the
    /// caller holds the container asked for as long as the resolve runs.
    /// Retained, it cost every level of an async chain a retain and a
    /// release that the common case, a `.new` registration, never needs.
    @usableFromInline
    enum AsyncStart<T> {
        case instance(T)
        case definition(Unmanaged<Definition<T>>, holder: Unmanaged<Container>)
    }

    /// Finds the key, inside a read-side section; nil when it is registered
    /// nowhere in the chain.
    @inlinable
    @inline(__always)
    func startAsync<T>(_ type: T.Type, name: String?, signature: UnsafeRawPointer) -> AsyncStart<T>? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let located = locate(type: typeIdentity(T.self), signature: signature, name: name) else {
            return nil
        }
        // The key's type identity is `T`'s, so the definition is a `Definition<T>`.
        let definition = Unmanaged<Definition<T>>.fromOpaque(located.definition)
        // An existing instance is returned here unless something observes
        // resolves: then `produceAsync` reports it.
        if let instance = definition._withUnsafeGuaranteedRef({ $0.sharedInstance() }), !syr_observed() {
            return .instance(instance)
        }
        return .definition(definition.retain(), holder: located.holder)
    }

    /// Produces an instance of `definition`, held by `holder`, for an async
    /// resolve; `parent` is the frame whose factory asked (nil: outermost).
    ///
    /// Inlined, like the synchronous `produce`, for its one fast path: an
    /// async `.new` registration asked for by another async factory, the
    /// common edge of an async graph, built with the fewest calls (each call
    /// of an async function costs a frame from the task's allocator).
    /// `holder` is `self` or one of its ancestors (see `AsyncStart`).
    ///
    /// Static, the container asked (`container`) unretained: see the
    /// comment on this extension.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func produceAsync<T>(_ definition: consuming Definition<T>, in container: Unmanaged<Container>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        if syr_observed() {
            return try await container.takeUnretainedValue().produceAsyncObserved(definition, holder: holder.takeUnretainedValue(), arguments: arguments, parent: parent)
        }
        return try await produceAsyncUnobserved(definition, in: container, holder: holder, arguments: arguments, parent: parent)
    }

    /// `produceAsync`, specialised but called rather than inlined: for the
    /// lookups inlined into their callers (`resolveIfRegisteredAsync`).
    @inlinable
    @inline(never)
    nonisolated(nonsending) static func produceAsyncOutOfLine<T>(_ definition: consuming Definition<T>, in container: Unmanaged<Container>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        try await produceAsync(definition, in: container, holder: holder, arguments: arguments, parent: parent)
    }

    /// `produceAsyncOutOfLine` for a resolve that no factory asked for
    /// (`resolveAsync`): an async `.new` registration is built here, in the
    /// outermost frame, rather than through `constructOutermostAsync`: an
    /// async call, and a frame from the task's allocator, less per resolve.
    @inlinable
    @inline(never)
    nonisolated(nonsending) func produceAsyncOutermost<T>(_ definition: consuming Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) async throws(ResolutionError) -> T {
        guard !syr_observed(), !isClosedOnChainNow, definition.isAsync, definition.kind == .new else {
            return try await Self.produceAsync(definition, in: .passUnretained(self), holder: holder, arguments: arguments, parent: nil)
        }
        // As in `produceAsyncUnobserved`: the lookup's reference to the
        // definition and the caller's to `self` are lent to the frame, which
        // moves into the resolver. The resolve ends when the frame is left,
        // after the resolver is gone: a frame nothing else holds then, and
        // without callbacks or `.graph` instances, needs no end of its own
        // (see `AsyncFrame.leave`).
        let container = Unmanaged.passUnretained(self)
        let resolver = Resolver(lentBy: try definition.enterAsyncFrame(below: nil, lending: container), container: container)
        let instance: T
        do throws(ResolutionError) {
            instance = try await Self.constructAsync(definition, resolver: resolver, arguments: arguments)
        } catch {
            (consume resolver).leaveFrameFailed(lentBy: definition)
            throw error
        }
        try (consume resolver).leaveFrame(lentBy: definition)
        return instance
    }

    /// `produceAsync` when nothing observes the resolve.
    ///
    /// Dispatches from here, specialised, rather than from the unspecialised
    /// `produceAsyncSlowly`: there each call, and each value of type `T`
    /// it kept, took memory from the task's allocator.
    ///
    /// Takes `definition` owned: the reference the lookup took (`startAsync`)
    /// is the one a new frame borrows, held here until the frame's
    /// `recycle`, rather than the frame retaining it again.
    ///
    /// `forAlias`: asked by an alias's forwarding factory (see
    /// `Container.scopeLocal(of:heldBy:forAlias:)`).
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func produceAsyncUnobserved<T>(_ definition: consuming Definition<T>, in container: Unmanaged<Container>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?,
                                                                   forAlias: Bool = false) async throws(ResolutionError) -> T {
        guard definition.isAsync else {
            return try container.withBorrowed { (container) throws(ResolutionError) in
                try container.produceBridged(definition, holder: holder.takeUnretainedValue(), arguments: arguments, parent: parent)
            }
        }
        switch definition.kind {
        case .new where !container.withBorrowed({ $0.isClosedOnChainNow }):
            return try await produceNewAsync(definition, in: container, arguments: arguments, parent: parent)
        case .shared, .scoped, .scopeLocal:
            return try await produceSharedAsync(definition, in: container, holder: holder.takeUnretainedValue(), arguments: arguments, parent: parent,
                                                forAlias: forAlias).value(as: T.self)
        case .graph where !container.withBorrowed({ $0.isClosedOnChainNow }):
            return unsafeDowncast(try await reuseOrConstructInGraphAsync(definition, in: container, arguments: arguments, parent: parent),
                                  to: InstanceBox.self).value(as: T.self)
        default:
            return try await container.takeUnretainedValue().produceAsyncSlowly(definition, holder: holder.takeUnretainedValue(), arguments: arguments, parent: parent)
        }
    }

    /// An async `.new` registration's instance, which nothing observes, from
    /// a container that was not closed: `produceAsyncUnobserved`'s fast
    /// path. A factory's `try await r.resolve()` inlines its two halves
    /// with its checks out of line (`resolveAsyncFromFactory`:
    /// `AnyDefinition.enterFrameIfNewAsync`, then `constructNewAsync`).
    ///
    /// The new frame borrows the definition, `parent` and the container
    /// (which the caller holds) and moves into its factory's resolver;
    /// `recycle` takes it back for its pool, or makes it hold all three if
    /// the factory kept its resolver. Three retains and releases less per
    /// level than a frame and a resolver that held them all along.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func produceNewAsync<T>(_ definition: Definition<T>, in container: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        try await constructNewAsync(definition, resolver: Resolver(lentBy: try definition.enterAsyncFrame(below: parent, lending: container), container: container),
                                    arguments: arguments)
    }

    /// `produceNewAsync` once its frame is entered, into `resolver`: the
    /// factory's call, then the frame's `recycle`, on every path.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func constructNewAsync<T>(_ definition: Definition<T>, resolver: consuming Resolver, arguments: UnsafeRawPointer) async throws(ResolutionError) -> T {
        let instance: T
        do throws(ResolutionError) {
            instance = resolver.frame.unsafelyUnwrapped.isNested
                ? try await constructAsync(definition, resolver: resolver, arguments: arguments)
                // The outermost frame: no parent, or the resolve `parent`
                // was part of has ended.
                : try await constructOutermostAsync(definition, arguments: arguments, resolver: resolver)
        } catch {
            resolver.recycleFrame(lentBy: definition)
            throw error
        }
        resolver.recycleFrame(lentBy: definition)
        return instance
    }

    /// A `.shared` or `.scoped` async registration's instance, in its box.
    /// Static, `container` (the container asked) unretained, as in
    /// `produceAsync`.
    @usableFromInline
    nonisolated(nonsending) static func produceSharedAsync<T>(_ definition: Definition<T>, in container: Unmanaged<Container>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?,
                                                              forAlias: Bool = false) async throws(ResolutionError) -> InstanceBox {
        if container.withBorrowed({ $0.isClosedOnChainNow }) {
            // What an open scope already has, it still returns (see `openScopesInstance`).
            if let box = container.withBorrowed({ $0.openScopesInstance(of: definition, holder: holder) }) {
                return box
            }
            throw definition.error(.closed, path: path(to: definition, below: parent))
        }
        if definition.isolatedToMainActor {
            return InstanceBox.make(try await produceOnMainActor(definition, in: container, holder: holder, arguments: arguments, parent: parent))
        }
        // One call of `createSharedAsync`, so that it is inlined here.
        var target: AnyDefinition = definition
        // Unretained: `holder`, or the scope, an ancestor of `container`.
        var targetHolder = Unmanaged.passUnretained(holder)
        if definition.kind != .shared {
            let (existing, local, scope) = try scopedTarget(of: definition, in: container, holder: holder, parent: parent, forAlias: forAlias)
            if let existing {
                return existing
            }
            target = local
            targetHolder = scope
        }
        // `definition` or the scope's copy of it: a `Definition<T>` either way.
        // Built in its holder's graph of this resolve when the holder is
        // not the container asked (see `ResolutionContext.enterGraph(of:)`).
        return try await createSharedAsync(unsafeDowncast(target, to: Definition<T>.self), holder: targetHolder, arguments: arguments, parent: parent,
                                           ownGraph: targetHolder.toOpaque() != container.toOpaque())
    }

    /// A main-actor registration's `.shared`, `.scoped` or `.weak` instance
    /// for an async resolve: found or made by the synchronous engine, on the
    /// main actor, as a synchronous resolve there would, joining this
    /// resolve (`produceJoining`). So both kinds of resolve go through one
    /// claim, the synchronous one, and the factory runs once: through the
    /// async claim, an async resolve waiting for the main actor and a
    /// synchronous one on it each ran the factory, and one instance was
    /// dropped. An instance created this way is handed out in a box of its
    /// own (the creation path only: an existing instance is returned before).
    ///
    /// Safe with the main thread's context: a job on the main actor starts
    /// between two synchronous resolves there, never inside one.
    @inline(never)
    nonisolated(nonsending) static func produceOnMainActor<T>(_ definition: Definition<T>, in container: Unmanaged<Container>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        // Unchecked: the main actor's job runs while this resolve waits for
        // it, and reads nothing it does not; the caller holds `container`,
        // `holder` and `definition`, and `arguments` stays valid until it returns.
        let job = UncheckedSendable((definition, container, holder, arguments, parent))
        let outcome: UncheckedSendable<Result<T, ResolutionError>> = await MainActor.run {
            let (definition, container, holder, arguments, parent) = job.value
            return UncheckedSendable(Result { () throws(ResolutionError) -> T in
                try container.withBorrowed { (container) throws(ResolutionError) -> T in
                    try container.produceJoining(definition, holder: holder, arguments: arguments, parent: parent)
                }
            })
        }
        return try outcome.value.get()
    }

    /// `produceBridged` for `produceOnMainActor`, unobserved: the async
    /// resolve reports this registration's resolve itself (an alias's, its
    /// alias's), once, as for every async registration, and is told here
    /// whether it created the instance. What the factory resolves is
    /// reported by the synchronous engine, as in any bridged resolve.
    private func produceJoining<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) throws(ResolutionError) -> T {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        let context = ResolutionContext.current
        let creations = context.creations
        defer {
            if context.creations != creations {
                ObservedCreation.markIfObserved()
            }
        }
        return try context.joining(parent) { () throws(ResolutionError) -> T in
            try produceUnobserved(.passUnretained(definition), holder: .passUnretained(holder), arguments: arguments)
        }
    }

    /// `constructAsync` for the outermost frame of a resolve, which then
    /// ends it, as `inFrame` does for the other scopes.
    ///
    /// Specialised, rather than through the unspecialised
    /// `produceAsyncSlowly`, where every value of type `T` and every call
    /// took a frame from the task's allocator: three more per outermost
    /// resolve. Not inlined into `produceAsyncUnobserved`: that would no
    /// longer be inlined itself, a frame more at every nested level.
    @inlinable
    @inline(never)
    nonisolated(nonsending) static func constructOutermostAsync<T>(_ definition: Definition<T>, arguments: UnsafeRawPointer, resolver: Resolver) async throws(ResolutionError) -> T {
        let instance: T
        do throws(ResolutionError) {
            instance = try await constructAsync(definition, resolver: resolver, arguments: arguments)
        } catch {
            resolver.frame.unsafelyUnwrapped.abandonOutermost()
            throw error
        }
        try resolver.frame.unsafelyUnwrapped.finishOutermost()
        return instance
    }

    /// Everything but `produceAsync`'s fast path. Not inlined: one copy for all types.
    @usableFromInline
    nonisolated(nonsending) func produceAsyncSlowly<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        guard definition.isAsync else {
            return try produceBridged(definition, holder: holder, arguments: arguments, parent: parent)
        }
        if isClosedOnChainNow {
            // What an open scope already has, it still returns (see `openScopesInstance`).
            if let box = openScopesInstance(of: definition, holder: holder) {
                return box.value(as: T.self)
            }
            throw definition.error(.closed, path: Self.path(to: definition, below: parent))
        }
        switch definition.kind {
        case .new:
            return try await Self.inFrame(definition, parent: parent) { (frame) throws(ResolutionError) -> T in
                try await Self.constructAsync(definition, resolver: Resolver(container: self, frame: frame), arguments: arguments)
            }
        case .shared, .scoped, .scopeLocal:
            return try await Self.produceSharedAsync(definition, in: .passUnretained(self), holder: holder, arguments: arguments, parent: parent).value(as: T.self)
        case .graph:
            return unsafeDowncast(try await Self.reuseOrConstructInGraphAsync(definition, in: .passUnretained(self), arguments: arguments, parent: parent),
                                  to: InstanceBox.self).value(as: T.self)
        case .weak:
            return try await reuseOrCreateWeakAsync(definition, holder: holder, arguments: arguments, parent: parent)
        case .forward, .forwardToScoped:
            // An alias has no frame of its own, as on the synchronous path.
            return try await Self.callAsyncFactory(definition, resolver: Resolver(container: self, frame: parent), arguments: arguments, frame: parent)
        }
    }

    /// A synchronous registration inside an async resolve: the synchronous
    /// engine on this thread, told which async resolve it runs inside.
    ///
    /// Safe with the thread's context because nothing here can suspend: the
    /// context is idle when an async resolve runs on its thread (a
    /// synchronous factory cannot await), and it is idle again, with its
    /// `asyncParent` cleared, before this returns.
    @usableFromInline
    func produceBridged<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) throws(ResolutionError) -> T {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let parent else {
            return try produce(Located(definition, in: holder), as: T.self, arguments: arguments)
        }
        return try ResolutionContext.current.joining(parent) { () throws(ResolutionError) -> T in
            try produce(Located(definition, in: holder), as: T.self, arguments: arguments)
        }
    }

    /// Runs `body` in a new frame for `definition`; when that frame is the
    /// outermost, then runs the resolve's deferred `onResolved` callbacks,
    /// or takes back what it published if it failed.
    ///
    /// Inlined, as are `makeShared`, `makeWeak` and
    /// `AsyncClaims.existingOrCreated`: each call of an async function that
    /// is not inlined allocates its frame from the task's allocator, and a
    /// `.scoped` or `.shared` creation went through six of them.
    @inline(__always)
    nonisolated(nonsending) static func inFrame<T>(_ definition: AnyDefinition, parent: AsyncFrame?,
                    _ body: nonisolated(nonsending) (AsyncFrame) async throws(ResolutionError) -> T) async throws(ResolutionError) -> T {
        let frame = try AsyncFrame.enter(definition, parent: parent)
        let instance: T
        do throws(ResolutionError) {
            instance = try await body(frame)
        } catch {
            AsyncFrame.leaveFailed(consume frame)
            throw error
        }
        try AsyncFrame.leave(consume frame)
        return instance
    }

    /// The factory of `definition`, the registration `resolver`'s frame
    /// builds, and its hooks: `onResolved` callbacks queued for the end of
    /// the resolve, and a `.new` or `.graph` instance with disposers handed
    /// to the nearest scope.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func constructAsync<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer) async throws(ResolutionError) -> T {
        let instance = try await callAsyncFactory(definition, resolver: resolver, arguments: arguments, frame: resolver.frame)
        ObservedCreation.markIfObserved()
        if let hooks = definition.hooksInSection() {
            try resolver.applyHooks(hooks, to: instance, of: definition)
        }
        return instance
    }

    /// Calls the async factory, turning what it throws into a `ResolutionError`.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func callAsyncFactory<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, frame: AsyncFrame?) async throws(ResolutionError) -> T {
        do {
            // Only async definitions get here, and every one has an async factory.
            return try await definition.extras.unsafelyUnwrapped.callAsyncFactory(resolver, arguments: arguments)
        } catch {
            throw asyncFailure(error, in: definition, frame: frame)
        }
    }

    /// What an async factory threw, as a `ResolutionError`.
    @usableFromInline
    static func asyncFailure(_ error: any Error, in definition: AnyDefinition, frame: AsyncFrame?) -> ResolutionError {
        if let frame {
            return frame.failure(error)
        }
        return error as? ResolutionError ?? definition.error(.factoryFailed(error), path: [definition.stepText])
    }

    /// `.shared` (and a scope's own instance of a `.scoped` registration):
    /// created once, by one task, while the others suspend (`AsyncClaims`).
    ///
    /// Returns the instance's box, not the instance: in this unspecialised
    /// code every value of type `T` returned or kept across a call takes
    /// memory from the task's allocator, a class reference none. The
    /// caller takes the instance out at the end.
    ///
    /// `inFrame` written out, and `AsyncClaims.existingOrClaimed` rather
    /// than `existingOrCreated`: the async closures those two take stay
    /// functions of their own even where they are inlined, and each call of
    /// one took a frame from the task's allocator, three per creation (a
    /// request's scope makes one or two).
    ///
    /// The frame borrows `definition`, `parent` and `holder`, which the
    /// caller holds until the frame is recycled, and moves into the
    /// resolver the factory gets, as an async `.new` registration's does
    /// (see `produceAsyncUnobserved`): three retains and releases less per
    /// creation than a frame and a resolver that held them.
    @inline(__always)
    nonisolated(nonsending) static func createSharedAsync<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?,
                                                             ownGraph: Bool) async throws(ResolutionError) -> InstanceBox {
        let resolver = Resolver(lentBy: try definition.enterAsyncFrame(below: parent, lending: holder), container: holder)
        let box: InstanceBox
        do throws(ResolutionError) {
            box = try await existingOrMadeShared(definition, holder: holder, arguments: arguments, resolver: resolver, ownGraph: ownGraph)
        } catch {
            (consume resolver).leaveFrameFailed(lentBy: definition)
            throw error
        }
        try (consume resolver).leaveFrame(lentBy: definition)
        return box
    }

    /// The box of the instance published already, or of the one
    /// `makeShared` makes while the task of `resolver`'s frame holds the
    /// claim: what `AsyncClaims.existingOrCreated` does, with `makeShared`
    /// called directly rather than as its async closure. With `ownGraph`
    /// (`holder` is not the container asked), in `holder`'s graph.
    @inline(__always)
    nonisolated(nonsending) private static func existingOrMadeShared<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, resolver: Resolver,
                                                                        ownGraph: Bool) async throws(ResolutionError) -> InstanceBox {
        let key = AsyncClaims.Key.definition(definition)
        if let found = try await AsyncClaims.existingOrClaimed(key, for: resolver.frame.unsafelyUnwrapped, existing: { definition.sharedBoxInSection() }) {
            return found
        }
        defer { AsyncClaims.release(key) }
        // Closed while this task waited for the claim: see `createShared`.
        if holder.withBorrowed({ $0.isClosed }) {
            throw definition.error(.closed, path: resolver.frame.unsafelyUnwrapped.pathText)
        }
        // `isRegistered` looks up in a read-side section of its own: this
        // async code holds none, and the tables may be growing meanwhile.
        // In `holder`'s graph (see `AsyncFrame.buildInGraph`): the factory,
        // or the resolve of the registration that replaced this one.
        if ownGraph {
            resolver.frame.unsafelyUnwrapped.buildInGraph(of: holder.takeUnretainedValue())
        }
        if definition.isRetired, holder.withBorrowed({ $0.isRegistered(type: T.self, name: definition.key.name) }) {
            return try await resolveAnewBoxed(definition, holder: holder, parent: resolver.frame)
        }
        return try await makeShared(definition, holder: holder, arguments: arguments, resolver: resolver)
    }

    /// The key of a `.shared` registration replaced after this resolve found
    /// it (it holds the definition across suspensions, outside any read-side
    /// section) and whose instance was taken since, resolved anew below
    /// `parent`: the new registration's instance, never a second one of the
    /// registration that is gone (see `Container.replacement(of:)`). In a box of
    /// its own, and out of line: in the unspecialised caller a value of type
    /// `T` held across a call took memory from the task's allocator on
    /// every path.
    @inline(never)
    nonisolated(nonsending) private static func resolveAnewBoxed<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, parent: AsyncFrame?) async throws(ResolutionError) -> InstanceBox {
        InstanceBox.make(try await resolveAsyncFromFactoryOutOfLine(holder, type: T.self, name: definition.key.name, parent: parent))
    }

    /// Makes and publishes a `.shared` instance; call holding its claim.
    @inline(__always)
    nonisolated(nonsending) private static func makeShared<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, resolver: Resolver) async throws(ResolutionError) -> InstanceBox {
        let queuedBefore = resolver.frame.unsafelyUnwrapped.queuedCallbackCount
        let instance = try await Self.callAsyncFactory(definition, resolver: resolver, arguments: arguments, frame: resolver.frame)
        return try publishMadeShared(instance, of: definition, holder: holder, resolver: resolver, frame: resolver.frame.unsafelyUnwrapped,
                                     queuedBefore: queuedBefore)
    }

    /// `makeShared` once the factory has returned: publishes `instance`.
    /// Synchronous and apart: in this unspecialised code, an async
    /// function takes memory from the task's allocator for every value of
    /// type `T` it may hold, on every path, and this part held two more
    /// than the factory's result.
    @inline(never)
    private static func publishMadeShared<T>(_ instance: T, of definition: Definition<T>, holder: Unmanaged<Container>, resolver: Resolver, frame: AsyncFrame,
                                             queuedBefore: Int) throws(ResolutionError) -> InstanceBox {
        ObservedCreation.markIfObserved()
        guard let made = definition.publishSharedBox(instance) else {
            // A synchronous creator published first.
            if let published = definition.sharedBoxInSection() {
                return published
            }
            // And the instance has been dropped since: this one is handed
            // out, as before, in a box of its own that nothing shares.
            return InstanceBox.make(instance)
        }
        let box = UnsafeRawPointer(Unmanaged.passUnretained(made).toOpaque())
        try holder.withBorrowed { (holder) throws(ResolutionError) in
            try holder.publishOrAbandon(box: box, of: definition, path: frame.pathText)
        }
        // With callbacks only: the resolution is made on first use, and the
        // undo closure is a context to allocate, both for nothing when the
        // hooks hold only disposers (a request's transaction).
        // Taken back, the instance is disposed: see `Definition.abandonRetracted`.
        if let hooks = definition.hooksInSection(), hooks.hasCallbacks {
            try frame.resolution.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance) {
                if let retracted = definition.retractShared(box) {
                    definition.abandonRetracted(retracted)
                }
            }
        } else if frame.queuedCallbackCount > queuedBefore {
            // What its factory built has callbacks still to run: see
            // `Container.createShared`.
            frame.resolution.deferUndo(of: definition) {
                if let retracted = definition.retractShared(box) {
                    definition.abandonRetracted(retracted)
                }
            }
        }
        return made
    }

    /// `.graph`: the instance this async graph already has, or one built by
    /// one task of the graph while the others (child tasks of its factories)
    /// suspend. Returns the instance's box (an `InstanceBox` of a `T`), as
    /// `createSharedAsync` does, for the specialised caller to open.
    ///
    /// O(1) per edge: the slot is found by the registration's graph index
    /// and claimed under the graph's own lock (`AsyncResolution.claim`), and
    /// the frame's cycle check is a filter test (`AsyncFrame.enter`).
    ///
    /// Static, `container` (the container asked) unretained, as in
    /// `produceAsync`: a strong `self` here was a retain and a release per
    /// edge, taken by the specialised caller from its unretained container.
    @usableFromInline
    nonisolated(nonsending) static func reuseOrConstructInGraphAsync<T>(_ definition: Definition<T>, in container: Unmanaged<Container>, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> AnyObject {
        if let parent = parent?.unlessEnded, let box = parent.graphResolution.box(of: definition) {
            return box
        }
        return try await inFrame(definition, parent: parent) { (frame) throws(ResolutionError) -> AnyObject in
            let resolution = frame.graphResolution
            let (slot, claim) = resolution.claim(definition, for: frame, task: AsyncClaims.currentTask())
            switch claim {
            case .built(let box):
                return box
            case .claimed:
                let made: AnyObject
                do throws(ResolutionError) {
                    made = try await makeGraphBox(definition, in: container, arguments: arguments, frame: frame)
                } catch {
                    resolution.storeAndRelease(nil, in: slot)
                    throw error
                }
                return resolution.storeAndRelease(made, in: slot).unsafelyUnwrapped
            case .contended:
                return try await AsyncClaims.existingOrCreated(.slot(slot), for: frame) { () throws(ResolutionError) in
                    resolution.box(in: slot)
                } create: { () throws(ResolutionError) -> AnyObject in
                    resolution.store(try await makeGraphBox(definition, in: container, arguments: arguments, frame: frame), in: slot)
                }
            }
        }
    }

    /// Builds a `.graph` instance in its box; call holding its claim.
    @inline(__always)
    nonisolated(nonsending) private static func makeGraphBox<T>(_ definition: Definition<T>, in container: Unmanaged<Container>, arguments: UnsafeRawPointer, frame: AsyncFrame) async throws(ResolutionError) -> AnyObject {
        let instance = try await constructAsync(definition, resolver: Resolver(container: container.takeUnretainedValue(), frame: frame), arguments: arguments)
        return InstanceBox.make(instance)
    }

    /// `.weak`: the live instance, or a new one made by one task at a time.
    nonisolated(nonsending) func reuseOrCreateWeakAsync<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        if let hooks = definition.hooksInSection(), hooks.hasDisposers {
            throw definition.error(.disposerWithoutOwner(scope: .weak), path: Self.path(to: definition, below: parent))
        }
        if definition.isolatedToMainActor {
            // A live instance without the hop, as on every other path.
            if let live = try definition.liveWeakInstance() {
                return live
            }
            return try await Self.produceOnMainActor(definition, in: .passUnretained(self), holder: holder, arguments: arguments, parent: parent)
        }
        return try await Self.inFrame(definition, parent: parent) { (frame) throws(ResolutionError) -> T in
            try await AsyncClaims.existingOrCreated(.definition(definition), for: frame) { () throws(ResolutionError) in
                try definition.liveWeakInstance()
            } create: { () throws(ResolutionError) -> T in
                try await makeWeak(definition, holder: holder, arguments: arguments, frame: frame)
            }
        }
    }

    /// Makes and keeps a `.weak` instance; call holding its claim.
    @inline(__always)
    nonisolated(nonsending) private func makeWeak<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, frame: AsyncFrame) async throws(ResolutionError) -> T {
        let resolver = Resolver(container: holder, frame: frame)
        let queuedBefore = frame.queuedCallbackCount
        if holder !== self {
            frame.buildInGraph(of: holder)   // see `makeShared`
        }
        let instance = try await Self.callAsyncFactory(definition, resolver: resolver, arguments: arguments, frame: frame)
        ObservedCreation.markIfObserved()
        let (kept, created) = try definition.storeWeakInstance(instance)
        guard let created else {
            return kept   // a synchronous creator stored one first, or it is not a reference
        }
        if let hooks = definition.hooksInSection(), hooks.hasCallbacks {   // see `makeShared`
            try frame.resolution.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance) {
                try? definition.withWeakBox { $0.forget(ifHolding: created) }
            }
        } else if frame.queuedCallbackCount > queuedBefore {
            frame.resolution.deferUndo(of: definition) {
                try? definition.withWeakBox { $0.forget(ifHolding: created) }
            }
        }
        return instance
    }

    /// `.scoped`: the nearest scope's instance if it exists, else the
    /// registration to create it from (the scope's copy of `definition`,
    /// or `definition` itself when the scope registered it) and the scope.
    ///
    /// Synchronous, and the creation left to the caller: each call of an
    /// async function here, unspecialised, took frames from the task's
    /// allocator, and a request's first resolve of each async `.scoped`
    /// registration paid for two more of them.
    static func scopedTarget(of definition: AnyDefinition, in container: Unmanaged<Container>, holder: Container,
                             parent: AsyncFrame?, forAlias: Bool) throws(ResolutionError) -> (existing: InstanceBox?, definition: AnyDefinition, scope: Unmanaged<Container>) {
        // Unretained: an ancestor of `container`, which the caller holds.
        guard let unretainedScope = container.withBorrowed({ $0.nearestScope }) else {
            throw container.withBorrowed { $0.noScope(for: definition, path: path(to: definition, below: parent), captor: parent?.innermostSingleton) }
        }
        return try unretainedScope.withBorrowed { (scope) throws(ResolutionError) in
            if scope.isClosed {
                throw definition.error(.closed, path: path(to: definition, below: parent))
            }
            if definition.kind == .scopeLocal && holder === scope {
                return (nil, definition, unretainedScope)
            }
            let local = scope.scopeLocalInSection(of: definition, heldBy: holder, forAlias: forAlias)
            return (local.sharedBoxInSection(), local, unretainedScope)
        }
    }

    /// The path of an error about `definition`, asked for by `parent`'s factory.
    static func path(to definition: AnyDefinition, below parent: AsyncFrame?) -> [String] {
        (parent?.pathText ?? []) + [definition.stepText]
    }
}

extension AnyDefinition {
    /// The box of the `.shared` instance, if it exists, for the async
    /// engine, which holds no read-side section of its own: the box is
    /// retained inside one, so it cannot be freed meanwhile. A box, not the
    /// `T?` of `sharedInstance()`: in this unspecialised code each `T?`
    /// costs a runtime metadata lookup, a class reference's optional none.
    func sharedBoxInSection() -> InstanceBox? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let box = sharedBox.load(ordering: .acquiring) else {
            return nil
        }
        return Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue()
    }
}

extension Definition {
    /// Runs `body` with the `.weak` box, holding the definition's claim for
    /// this thread (see `InstanceCreation`), which nothing keeps across a
    /// suspension: only a thread creating the instance synchronously holds it
    /// longer, and for an async registration that thread only fails.
    func withWeakBox<R>(_ body: (WeakInstanceBox<T>) -> R) throws(ResolutionError) -> R {
        try InstanceCreation.acquire(self, context: ResolutionContext.current)
        defer { InstanceCreation.release(self) }
        return body(weakBox.unsafelyUnwrapped)
    }

    /// The `.weak` instance if it is alive.
    func liveWeakInstance() throws(ResolutionError) -> T? {
        try withWeakBox { $0.load() }
    }

    /// Keeps `instance` weakly, unless a live one was stored meanwhile (by a
    /// synchronous creator of a registration with both factories): returns
    /// the instance to hand out, and the object kept for it, if `instance`
    /// was kept.
    func storeWeakInstance(_ instance: T) throws(ResolutionError) -> (instance: T, created: ObjectIdentifier?) {
        try withWeakBox { box in
            if let live = box.load() {
                return (live, nil)
            }
            box.store(instance)
            return (instance, box.storedObject)
        }
    }
}

extension Resolver {
    /// A new `.new` or `.graph` instance's hooks, out of line; this is the
    /// resolver its factory was given, of the container asked. A method of
    /// the resolver, not a static one of `Container`: the factories' code,
    /// inlined into the caller's module, then needs no class metadata
    /// after its await.
    @usableFromInline
    func applyHooks<T>(_ hooks: Hooks<T>, to instance: T, of definition: Definition<T>) throws(ResolutionError) {
        let frame = self.frame.unsafelyUnwrapped
        // Before the callbacks are queued: a refused instance gets none, so
        // that a factory that catches the failure and goes on leaves no
        // callback to run on it. It is disposed at once: it is thrown away
        // here, never returned (see `Container.trackForDisposal`).
        if hooks.hasDisposers,
           let refused = container.trackForDisposal(instance, of: definition, path: frame.pathText,
                                                     captor: frame.innermostSingleton) {
            refused.disposal.abandon()
            throw refused.failure
        }
        // Asked here, not only in `deferCallbacks`: the resolution is made
        // on first use, an allocation hooks with only disposers never need.
        if hooks.hasCallbacks {
            try frame.resolution.deferCallbacks(hooks, of: definition, resolver: self, instance: instance, undo: nil)
        }
    }
}

extension AnyDefinition {
    /// `AsyncFrame.enter(self, parent: parent, lending: container)`, for
    /// the engine's paths inlined into the caller's module. A method of
    /// the registration rather than the frame's static method, which code
    /// there called through a thunk, with the class's metadata fetched for
    /// it, about 14 instructions per level of an async chain (an
    /// initialiser of `Resolver` has a thunk too, for its metatype). The
    /// caller makes the resolver (`Resolver(lentBy:container:)`), so that
    /// its code knows the resolver holds no container of its own.
    @usableFromInline
    func enterAsyncFrame(below parent: AsyncFrame?, lending container: Unmanaged<Container>) throws(ResolutionError) -> AsyncFrame {
        try AsyncFrame.enter(self, parent: parent, lending: container)
    }

    /// `enterAsyncFrame`, for the resolve of an async factory
    /// (`Container.resolveAsyncFromFactory`), if this registration can be
    /// built on its fast path: an async `.new` one, unobserved, asked of a
    /// container that is not closed; nil otherwise, with no frame entered.
    /// Throws what `AsyncFrame.enter` throws: a cycle, or a path deeper
    /// than the synchronous engine allows. The checks are made here, out
    /// of line, rather than in the code each `try await r.resolve()`
    /// inlines: Swift inlines an `@inline(__always)` function into one that
    /// is already large only if it has at most 64 basic blocks, and a
    /// factory's second resolve was otherwise left as a call, with a task
    /// frame of its own.
    @usableFromInline
    func enterFrameIfNewAsync(below parent: AsyncFrame?, lending container: Unmanaged<Container>) throws(ResolutionError) -> AsyncFrame? {
        guard !syr_observed(), isAsync, kind == .new, !container.withBorrowed({ $0.isClosedOnChainNow }) else {
            return nil
        }
        return try AsyncFrame.enter(self, parent: parent, lending: container)
    }
}
