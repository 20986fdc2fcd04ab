public import CSyringeTable

/// What a factory uses to resolve its dependencies.
///
/// Every resolve made through it joins the resolve in progress: `.graph`
/// instances are shared within it, a cycle is reported with its whole path,
/// and a failure deep in the graph surfaces at the top-level `tryResolve`.
///
/// ```swift
/// container.register(type: ViewModel.self, in: .new) { r in
///     ViewModel(service: try r.resolve(), clock: try r.resolve(type: Clock.self, name: "utc"))
/// }
/// ```
public struct Resolver: Sendable {
    /// The container requests go to: the one that was asked, or for a
    /// `.shared`/`.weak` factory the one that holds the registration.
    @usableFromInline
    let container: Container

    @inlinable
    init(container: Container) {
        self.container = container
    }

    /// Resolves a dependency; see `Container.tryResolve(type:name:)`.
    @inlinable
    public func resolve<T>(type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T {
        try container.tryResolve(type: type, name: name)
    }

    /// Resolves a dependency registered with runtime arguments; see
    /// `Container.tryResolve(type:name:arguments:)`.
    ///
    /// ```swift
    /// let endpoint = try r.resolve(type: Endpoint.self, arguments: "inner", 1)
    /// ```
    @inlinable
    public func resolve<T, each Argument>(type: T.Type = T.self, name: String? = nil, arguments: repeat each Argument) throws(ResolutionError) -> T {
        try container.tryResolve(type: type, name: name, arguments: repeat each arguments)
    }

    /// Resolves a dependency if it is registered; nil only when it is not.
    /// Other failures throw.
    ///
    /// ```swift
    /// let analytics: Analytics? = try r.resolveIfRegistered()
    /// ```
    @inlinable
    public func resolveIfRegistered<T>(type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let located = container.locate(type: typeIdentity(T.self), signature: NoArguments.identity, name: name) else {
            return nil
        }
        return try container.produce(located, as: T.self, arguments: Container.noArguments)
    }

    /// Resolves every registration of `type`; see `Container.resolveAll(type:)`.
    public func resolveAll<T>(type: T.Type = T.self) throws(ResolutionError) -> [T] {
        try container.tryResolveAll(type: type)
    }
}
