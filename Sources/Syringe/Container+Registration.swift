extension Container {
    /// Registers a factory for `type` under an optional name and scope.
    ///
    /// The type can come from the factory with `as`, as in Dip:
    ///
    /// ```swift
    /// container.register { _ in ServiceImp() as Service }
    /// container.register(type: Repo.self, in: .new) { r in Repo(config: try r.resolve()) }
    /// container.register(type: Animal.self, name: "Cat") { _ in Cat() }
    /// ```
    ///
    /// A later registration of the same type and name replaces this one.
    /// - Parameters:
    ///   - type: The type resolves ask for; usually a protocol.
    ///   - name: Distinguishes several registrations of one type.
    ///   - scope: How instances are shared; `.shared` by default.
    ///   - factory: Builds an instance; resolve its dependencies from the
    ///     `Resolver` it receives.
    @inlinable
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        register(T.self, name: name, kind: AnyDefinition.Kind(scope)) { resolver, _ in
            try factory(resolver)
        }
    }

    /// Registers a `.shared` instance, built lazily on the first resolve.
    ///
    /// ```swift
    /// container.register(type: Dog.self, dependency: Dog())
    /// container.register(type: Animal.self, name: "Cat", dependency: Cat())
    /// ```
    // Disfavoured: a closure with typed parameters written as a trailing
    // closure also matches `dependency:` (the closure itself as the value),
    // and must mean the factory overloads instead.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        dependency: @autoclosure @escaping @Sendable () -> T
    ) -> Registration<T> {
        // Not through `register(type:name:in:factory:)`: its factory would
        // wrap a closure that wraps `dependency`, one context more to
        // allocate per registration (per request, for a scope's per-request
        // values) and one more call per creation.
        register(T.self, name: name, kind: .shared) { _, _ in
            dependency()
        }
    }

    /// Registers an instance that exists already, as `.shared`: every
    /// resolve returns it.
    ///
    /// The registration for a request's own values, made in its scope (the
    /// request's id, the authenticated user): it keeps no factory, and even
    /// its first resolve is a read of the instance, where `dependency:`
    /// keeps a closure and builds the instance on its first resolve.
    ///
    /// ```swift
    /// app.register(type: Clock.self, instance: SystemClock())
    ///
    /// let scope = app.makeScope()
    /// scope.register(type: RequestID.self, instance: RequestID(request.id))
    /// ```
    ///
    /// The container did not build the instance, so `onResolved` callbacks
    /// never run for it, and `releaseSharedInstances()` keeps it: nothing
    /// could build it again. `close()` disposes it as it does every
    /// `.shared` instance: with its `onDispose` disposers, or as a
    /// `Disposable`.
    // Disfavoured, as `dependency:` is: a trailing closure can also match
    // `instance:` (the closure itself as the instance), and must mean the
    // factory overloads instead. An autoclosure, evaluated here at once,
    // because as a plain `T` it ranked level with the disfavoured overload
    // for factories with runtime arguments: a typed trailing closure with
    // arguments was ambiguous. (Not escaping: it allocates nothing.)
    // `@Sendable`, as `dependency:`'s: the value it captures is resolved
    // from any thread.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func register<T>(type: T.Type = T.self, name: String? = nil, instance: @autoclosure @Sendable () -> T) -> Registration<T> {
        let definition = Definition<T>.holding(
            instance(),
            key: DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name)
        )
        install(definition)
        return Registration(container: self, definition: definition)
    }

    /// Installs a registration without runtime arguments whose factory is
    /// already in the form a definition keeps.
    @inlinable
    func register<T>(_: T.Type, name: String?, kind: AnyDefinition.Kind, factory: @escaping Definition<T>.Factory) -> Registration<T> {
        let definition = Definition<T>(
            kind: kind,
            key: DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name),
            argumentTypes: [],
            factory: factory
        )
        install(definition)
        return Registration(container: self, definition: definition)
    }

    /// Registers a factory that takes runtime arguments, any number of them.
    ///
    /// The argument types, in order, are part of the key: `(String, Int)` and
    /// `(Int, String)` are different registrations. Every resolve builds a new
    /// instance.
    ///
    /// ```swift
    /// container.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
    ///     Endpoint(url: url, port: port, secure: secure)
    /// }
    /// let endpoint = container.resolve(type: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
    /// ```
    //
    // At least one argument, so that it need not be disfavoured: with an
    // empty pack it matched `{ r in … }`, the argument-free registration
    // above, and disfavoured it would lose a synchronous closure with
    // arguments to the async overload with arguments (`onCallersExecutor:`),
    // which is not disfavoured.
    @inlinable
    @discardableResult
    public func register<T, FirstArgument, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, FirstArgument, repeat each Argument) throws -> T
    ) -> Registration<T> {
        registerWithArguments(type: type, name: name, factory: factory)
    }

    /// `register(type:name:factory:)` with runtime arguments, for generic
    /// code whose factory takes its arguments as a pack, which may be empty:
    /// then it is a `.new` registration without arguments, resolved as any other.
    ///
    /// ```swift
    /// func registerEndpoint<each A>(in c: Container, _ make: @escaping @Sendable (Resolver, repeat each A) throws -> Endpoint) {
    ///     c.register(type: Endpoint.self, factory: make)
    /// }
    /// ```
    // Disfavoured: with an empty pack it also matches `{ r in … }`. Without
    // it, such a factory matched no synchronous overload and was converted,
    // silently, to the async overload with arguments.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, repeat each Argument) throws -> T
    ) -> Registration<T> {
        registerWithArguments(type: type, name: name, factory: factory)
    }

    /// `register(type:name:factory:)` with runtime arguments, the arguments
    /// as one pack.
    @inlinable
    func registerWithArguments<T, each Argument>(
        type: T.Type,
        name: String?,
        factory: @escaping @Sendable (Resolver, repeat each Argument) throws -> T
    ) -> Registration<T> {
        let definition = Definition<T>(
            kind: .new,
            key: DefinitionKey(type: typeIdentity(T.self), signature: ArgumentSignature<repeat each Argument>.identity, name: name),
            argumentTypes: ArgumentSignature<repeat each Argument>.types
        ) { resolver, arguments in
            // The key's signature guarantees what `arguments` points to.
            let tuple = arguments.assumingMemoryBound(to: (repeat each Argument).self).pointee
            return try factory(resolver, repeat each tuple)
        }
        install(definition)
        return Registration(container: self, definition: definition)
    }
}

extension AnyDefinition.Kind {
    @inlinable
    init(_ scope: Scope) {
        switch scope {
        case .new: self = .new
        case .shared: self = .shared
        case .graph: self = .graph
        case .weak: self = .weak
        case .scoped: self = .scoped
        }
    }
}
