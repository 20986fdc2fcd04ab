/// Known mistakes that Swift's own diagnostics explain badly or not at all,
/// caught by overloads that exist only to be rejected with a message that
/// says what to do. Each is disfavoured, so it is chosen only where every
/// real overload has failed (the two for a factory without its `Resolver`
/// need not be: no real overload takes such a closure): a correct call
/// never reaches one.
/// `Tests/Misuse` compiles each mistake and checks the message.

/// The result of a resolve whose type Swift cannot infer. Never produced: the
/// only functions returning it are unavailable, to say how to name the type.
///
/// ```swift
/// let service = container.resolve()                    // error: Syringe cannot tell which type to resolve…
/// let service: Service = container.resolve()           // fine
/// let service = container.resolve(type: Service.self)  // fine
/// ```
public struct UnspecifiedResolveType: Sendable {
    private init() {}
}

extension Container {
    /// Unavailable: without a type to resolve, Swift would fail with
    /// "failed to produce diagnostic for expression".
    ///
    /// ```swift
    /// let service: Service = container.resolve()
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `resolve(type: Service.self)`, or annotate the result, `let service: Service = container.resolve()`")
    public func resolve(name: String? = nil) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `resolve(name:)`.
    ///
    /// ```swift
    /// let endpoint: Endpoint = container.resolve(arguments: "example.org")
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `resolve(type: Endpoint.self, arguments: …)`, or annotate the result")
    public func resolve<each Argument>(name: String? = nil, arguments: repeat each Argument) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `resolve(name:)`.
    ///
    /// ```swift
    /// let service: Service = try container.tryResolve()
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `tryResolve(type: Service.self)`, or annotate the result, `let service: Service = try container.tryResolve()`")
    public func tryResolve(name: String? = nil) throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `resolve(name:)`.
    ///
    /// ```swift
    /// let endpoint: Endpoint = try container.tryResolve(arguments: "example.org")
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `tryResolve(type: Endpoint.self, arguments: …)`, or annotate the result")
    public func tryResolve<each Argument>(name: String? = nil, arguments: repeat each Argument) throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `resolve(name:)`.
    ///
    /// ```swift
    /// let service: Service = try await container.resolveAsync()
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `resolveAsync(type: Service.self)`, or annotate the result, `let service: Service = try await container.resolveAsync()`")
    public func resolveAsync(name: String? = nil) async throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `resolve(name:)`.
    ///
    /// ```swift
    /// let endpoint: Endpoint = try await container.resolveAsync(arguments: "example.org")
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `resolveAsync(type: Endpoint.self, arguments: …)`, or annotate the result")
    public func resolveAsync<each Argument>(name: String? = nil, arguments: repeat each Argument) async throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: a factory takes the `Resolver` it resolves its
    /// dependencies from, even when it has none. Without this, Swift
    /// pointed at `dependency:` and `instance:`, the overloads a closure
    /// with no parameter comes closest to.
    ///
    /// ```swift
    /// container.register { _ in ConsoleLogger() as Logger }
    /// ```
    // Not disfavoured, unlike the others: a closure without parameters
    // also passes, as a value, for `dependency:` and `instance:` (both
    // disfavoured), and this must be the one the compiler reports.
    @available(*, unavailable, message: "a factory takes the Resolver it resolves dependencies from: write `{ _ in Service() }`, or `{ r in Service(dependency: try r.resolve()) }`; to register a value made now, `register(type: Service.self, dependency: Service())`")
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        factory: @escaping @Sendable () throws -> T
    ) -> Registration<T> {
        fatalError("unavailable")
    }

    /// Unavailable: see `register(type:name:in:factory:)` above, for an
    /// async factory.
    ///
    /// ```swift
    /// container.register { (_: Resolver) async in await Database.open() }
    /// ```
    @available(*, unavailable, message: "a factory takes the Resolver it resolves dependencies from: write `{ (_: Resolver) async in await Service.make() }`, or `{ (r: Resolver) async throws in Service(dependency: try await r.resolve()) }`")
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        factory: @escaping @Sendable () async throws -> T
    ) -> Registration<T> {
        fatalError("unavailable")
    }

    /// Unavailable: a registration with runtime arguments has no scope.
    ///
    /// ```swift
    /// container.register(type: Endpoint.self) { (_: Resolver, url: String) in Endpoint(url: url) }   // no `in:`
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "a registration with runtime arguments takes no scope: each resolve passes its own arguments, so each builds a new instance. Remove `in:`; to share one instance, register it without arguments")
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope,
        factory: @escaping @Sendable (Resolver, repeat each Argument) throws -> T
    ) -> Registration<T> {
        fatalError("unavailable")
    }

    /// Unavailable: `register(type:name:in:factory:)` above, for an async
    /// factory. Without it, Swift said the closure should be synchronous.
    ///
    /// ```swift
    /// container.register(type: Report.self) { (r: Resolver, month: Int) async throws in try await Report(month: month, repo: r.resolve()) }
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "a registration with runtime arguments takes no scope: each resolve passes its own arguments, so each builds a new instance. Remove `in:`; to share one instance, register it without arguments")
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope,
        factory: @escaping @Sendable (Resolver, repeat each Argument) async throws -> T
    ) -> Registration<T> {
        fatalError("unavailable")
    }
}

extension Resolver {
    /// Unavailable: see `Container.resolve(name:)`.
    ///
    /// ```swift
    /// container.register(type: Repo.self) { r in Repo(service: try r.resolve()) }   // the parameter's type names it
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `r.resolve(type: Service.self)`, or annotate the result")
    public func resolve(name: String? = nil) throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }

    /// Unavailable: see `Container.resolve(name:)`.
    ///
    /// ```swift
    /// container.register(type: Client.self) { r in Client(endpoint: try r.resolve(arguments: "example.org")) }
    /// ```
    @_disfavoredOverload
    @available(*, unavailable, message: "Syringe cannot tell which type to resolve: name it, `r.resolve(type: Endpoint.self, arguments: …)`, or annotate the result")
    public func resolve<each Argument>(name: String? = nil, arguments: repeat each Argument) throws(ResolutionError) -> UnspecifiedResolveType {
        fatalError("unavailable")
    }
}

/// Where `Container.shared = …` is caught. `shared` is task-local: it is
/// bound for a piece of work, never assigned, and Swift's own message for the
/// assignment ("'shared' is a get-only property") does not say how to bind
/// it. A member of a protocol extension is shadowed by the type's own member
/// wherever that one fits, so reads of `Container.shared` (and `.shared` as a
/// default argument) still find the task-local; only an assignment, which the
/// task-local's getter cannot take, reaches the unavailable setter below and
/// its message. `Container` is the only type meant to conform.
public protocol _TaskLocalSharedContainer {}

extension _TaskLocalSharedContainer {
    /// Unavailable: `Container.shared` is bound, not assigned.
    ///
    /// ```swift
    /// Container.$shared.withValue(testContainer) { runTheCodeUnderTest() }
    /// ```
    @available(*, unavailable, message: "Container.shared is task-local and cannot be assigned: bind it for a piece of work with `Container.$shared.withValue(container) { … }`, or register into it")
    public static var shared: Container {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}

extension Container: _TaskLocalSharedContainer {}
