public import CSyringeTable

/// What a factory uses to resolve its dependencies.
///
/// Every resolve made through it joins the resolve in progress: `.graph`
/// instances are shared within it, a cycle is reported with its whole path,
/// and a failure deep in the graph surfaces at the top-level `tryResolve`.
///
/// A resolver holds its container. An instance that keeps the resolver its
/// factory got keeps that container alive; one a request's scope holds
/// (`.scoped`) then keeps the scope, which keeps the instance, and neither
/// is freed. Keep what the factory resolves instead.
///
/// ```swift
/// container.register(type: ViewModel.self, in: .new) { r in
///     ViewModel(service: try r.resolve(), clock: try r.resolve(type: Clock.self, name: "utc"))
/// }
/// ```
public struct Resolver: Sendable {
    /// The container requests go to: the one that was asked, or for a
    /// `.shared`/`.weak` factory the one that holds the registration.
    ///
    /// Unretained: `owner` holds it, except in the resolver the async engine
    /// makes for an async `.new` factory (`init(lentBy:container:)`), where the
    /// engine call that made the resolver holds it while the factory runs,
    /// and the frame once the factory has kept the resolver past that call
    /// (`AsyncFrame.containerReference`). Held by each resolver, an async
    /// chain paid an atomic retain and release of its container per level.
    @usableFromInline
    let containerReference: Unmanaged<Container>
    /// Holds the container, unless the frame's engine call lends it.
    @usableFromInline
    let owner: Container?
    /// For an async factory, the frame of the registration it builds: the
    /// async resolve its own resolves join (see `AsyncFrame`). Nil for a
    /// synchronous factory, whose resolves join its thread's.
    @usableFromInline
    let frame: AsyncFrame?

    @inlinable
    init(container: Container) {
        self.containerReference = .passUnretained(container)
        self.owner = container
        self.frame = nil
    }

    @usableFromInline
    init(container: Container, frame: AsyncFrame?) {
        self.containerReference = .passUnretained(container)
        self.owner = container
        self.frame = frame
    }

    /// A resolver for `frame`'s factory that does not hold its container:
    /// `frame` does, lent `container` when it was entered
    /// (`AsyncFrame.enter(_:parent:lending:)`). Passed rather than read
    /// back from the frame: a load, and an optional's check, less in the
    /// code each async resolve inlines.
    @inlinable
    init(lentBy frame: consuming AsyncFrame, container: Unmanaged<Container>) {
        // What a kept resolver resolves through once the frame holds it.
        assert(frame.containerReference?.toOpaque() == container.toOpaque(), "Syringe: a resolver lent another container than its frame")
        self.containerReference = container
        self.owner = nil
        self.frame = frame
    }

    /// The container, retained: for the paths that keep it across calls.
    @usableFromInline
    var container: Container {
        containerReference.takeUnretainedValue()
    }

    /// Resolves a dependency; see `Container.tryResolve(type:name:)`.
    ///
    /// ```swift
    /// container.register(type: Repo.self, in: .new) { r in Repo(db: try r.resolve(), log: try r.resolve(type: Logger.self, name: "audit")) }
    /// ```
    @inlinable
    public func resolve<T>(type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T {
        // `owner`, when there is one (always, in a synchronous factory):
        // borrowed, where `container` is a copy, a retain and a release.
        if owner != nil {
            return try owner.unsafelyUnwrapped.tryResolve(type: type, name: name)
        }
        return try container.tryResolve(type: type, name: name)
    }

    /// Resolves a dependency registered with runtime arguments; see
    /// `Container.tryResolve(type:name:arguments:)`.
    ///
    /// ```swift
    /// let endpoint = try r.resolve(type: Endpoint.self, arguments: "inner", 1)
    /// ```
    @inlinable
    public func resolve<T, each Argument>(type: T.Type = T.self, name: String? = nil, arguments: repeat each Argument) throws(ResolutionError) -> T {
        if owner != nil {
            return try owner.unsafelyUnwrapped.tryResolve(type: type, name: name, arguments: repeat each arguments)
        }
        return try container.tryResolve(type: type, name: name, arguments: repeat each arguments)
    }

    /// Resolves a dependency if it is registered without runtime arguments;
    /// nil only when it is not. Other failures throw.
    ///
    /// ```swift
    /// let analytics: Analytics? = try r.resolveIfRegistered()
    /// ```
    @inlinable
    public func resolveIfRegistered<T>(type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return try containerReference.withBorrowed { (container) throws(ResolutionError) -> T? in
            guard let located = container.locate(type: typeIdentity(T.self), signature: NoArguments.identity, name: name) else {
                if container.isClosedOnChainNow {
                    throw container.notRegistered(T.self, name: name, signature: NoArguments.identity, argumentTypes: [])
                }
                return nil
            }
            return try container.produce(located, as: T.self, arguments: Container.noArguments)
        }
    }

    /// Resolves every registration of `type`; see `Container.resolveAll(type:)`.
    ///
    /// ```swift
    /// container.register(type: Pipeline.self) { r in Pipeline(stages: try r.resolveAll(type: Stage.self)) }
    /// ```
    public func resolveAll<T>(type: T.Type = T.self) throws(ResolutionError) -> [T] {
        try container.tryResolveAll(type: type)
    }

    // MARK: Async

    /// Resolves a dependency from an async factory, joining its resolve:
    /// `.graph` instances are shared and cycles are reported with the whole
    /// path, across suspensions and child tasks. See `Container.resolveAsync`.
    ///
    /// ```swift
    /// container.register(type: Repo.self, in: .new) { (r: Resolver) async throws in
    ///     Repo(db: try await r.resolve())
    /// }
    /// ```
    @inlinable
    @inline(__always)
    nonisolated(nonsending) public func resolve<T>(type: T.Type = T.self, name: String? = nil) async throws(ResolutionError) -> T {
        try await Container.resolveAsyncFromFactory(containerReference, type: type, name: name, parent: frame)
    }

    /// Resolves a dependency registered with runtime arguments from an async
    /// factory; see `Container.resolveAsync(type:name:arguments:)`.
    ///
    /// ```swift
    /// let report = try await r.resolve(type: Report.self, arguments: 11)
    /// ```
    nonisolated(nonsending) public func resolve<T, each Argument>(type: T.Type = T.self, name: String? = nil, arguments: repeat each Argument) async throws(ResolutionError) -> T {
        try await container.resolveAsync(type: type, name: name, arguments: repeat each arguments, parent: frame)
    }

    /// Resolves a dependency from an async factory if it is registered; nil
    /// only when it is not.
    ///
    /// ```swift
    /// let analytics: Analytics? = try await r.resolveIfRegistered()
    /// ```
    nonisolated(nonsending) public func resolveIfRegistered<T>(type: T.Type = T.self, name: String? = nil) async throws(ResolutionError) -> T? {
        try await container.resolveIfRegisteredAsync(type: type, name: name, parent: frame)
    }

    /// Resolves every registration of `type` from an async factory; see
    /// `Container.resolveAllAsync(type:)`.
    ///
    /// ```swift
    /// let plugins: [Plugin] = try await r.resolveAll()
    /// ```
    nonisolated(nonsending) public func resolveAll<T>(type: T.Type = T.self) async throws(ResolutionError) -> [T] {
        try await container.resolveAllAsync(type: type, parent: frame)
    }
}
