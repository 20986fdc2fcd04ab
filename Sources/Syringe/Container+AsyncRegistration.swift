/// Registrations whose factories `await`: resolve them with `resolveAsync`,
/// or with `try await r.resolve()` from another async factory.
extension Container {
    /// Registers an async factory for `type` under an optional name and scope.
    ///
    /// Every scope works as it does for a synchronous factory. A `.shared`
    /// instance is created once: tasks that ask while it is being created
    /// suspend until it exists, and a creation that throws (cancellation
    /// included) keeps nothing, so the next resolve tries again. A
    /// synchronous resolve of this registration throws `.registeredAsync`
    /// (once a `.shared` instance exists, it returns that instance, as a
    /// synchronous resolve of any existing `.shared` instance does).
    ///
    /// The factory, written as a trailing closure, runs on the executor of
    /// the code that resolves it, as a `nonisolated(nonsending)` function
    /// does: resolved from an actor, its synchronous parts run on that
    /// actor (as a synchronous factory's do), and a resolve makes no
    /// executor switch to call it. To run it on the global executor
    /// instead, pass it with the `factory:` label (as a function reference
    /// is passed) or mark the closure `@concurrent`.
    ///
    /// ```swift
    /// container.register(type: Database.self) { (r: Resolver) async throws in
    ///     try await Database.connect(config: r.resolve())
    /// }
    /// container.register(type: Repo.self, in: .new) { (r: Resolver) async throws in
    ///     Repo(db: try await r.resolve())
    /// }
    /// ```
    ///
    /// The parameter has a label of its own, which a trailing closure need
    /// not spell: Swift cannot overload on a parameter's isolation alone,
    /// and its 6.3 type checker crashes when a reference to a type's static
    /// method or initialiser (`X.make`, `X.init`) is converted to a
    /// `nonisolated(nonsending)` type. Pass function references with
    /// `factory:`; spelled `onCallersExecutor: X.make`, one crashes that
    /// compiler.
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope,
        onCallersExecutor factory: nonisolated(nonsending) @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        installArgumentFree(T.self, name: name, in: scope) { kind, key in
            Definition(kind: kind, key: key, argumentTypes: [], asyncFactory: .onCallersExecutor(factory))
        }
    }

    /// `register(type:name:in:onCallersExecutor:)` in the default scope,
    /// `.shared`.
    ///
    /// ```swift
    /// container.register(type: Database.self) { (r: Resolver) async throws in
    ///     try await Database.connect(config: r.resolve())
    /// }
    /// ```
    // An overload of its own, not a default for `in:`: Swift prefers the
    // candidate that leaves fewer defaults unused, so with the default a
    // closure without arguments went to the overload with arguments (an
    // empty pack) below. The `factory:` overloads are split alike.
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        onCallersExecutor factory: nonisolated(nonsending) @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        register(type: type, name: name, in: .shared, onCallersExecutor: factory)
    }

    /// Registers an async factory for `type` that runs on the global
    /// executor: a function reference, or a closure passed with this label.
    /// Otherwise as `register(type:name:in:onCallersExecutor:)`.
    ///
    /// ```swift
    /// container.register(type: Database.self, in: .shared, factory: Database.open)
    /// ```
    // Disfavoured: a trailing async closure matches both this and the
    // `onCallersExecutor:` overload, which is to take it.
    @_disfavoredOverload
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope,
        factory: @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        installArgumentFree(T.self, name: name, in: scope) { kind, key in
            Definition(kind: kind, key: key, argumentTypes: [], asyncFactory: .plain(factory))
        }
    }

    /// `register(type:name:in:factory:)` in the default scope, `.shared`.
    ///
    /// ```swift
    /// container.register(type: Database.self, factory: Database.open)
    /// ```
    @_disfavoredOverload
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        register(type: type, name: name, in: .shared, factory: factory)
    }

    /// Registers an async factory that takes runtime arguments; each resolve
    /// passes them (`resolveAsync(type:arguments:)`) and gets a new instance.
    ///
    /// Written as a trailing closure, it runs on the executor of the code
    /// that resolves it, as `register(type:name:in:onCallersExecutor:)`'s
    /// factory does.
    ///
    /// ```swift
    /// container.register(type: Report.self) { (r: Resolver, month: Int) async throws in
    ///     try await Report(month: month, repo: r.resolve())
    /// }
    /// let report = try await container.resolveAsync(type: Report.self, arguments: 11)
    /// ```
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        onCallersExecutor factory: nonisolated(nonsending) @escaping @Sendable (Resolver, repeat each Argument) async throws -> T
    ) -> Registration<T> {
        installWithArguments(T.self, name: name, arguments: (repeat each Argument).self,
                             asyncFactory: .withArgumentsOnCallersExecutor { resolver, arguments in
            // The key's signature guarantees what `arguments` points to.
            let tuple = arguments.pointer.assumingMemoryBound(to: (repeat each Argument).self).pointee
            return try await factory(resolver, repeat each tuple)
        })
    }

    /// Registers an async factory that takes runtime arguments and runs on
    /// the global executor: a function reference, or a closure passed with
    /// this label. Otherwise as `register(type:name:onCallersExecutor:)`.
    ///
    /// ```swift
    /// container.register(type: Report.self, factory: Report.make(resolver:month:))
    /// ```
    // Disfavoured, like the `factory:` overloads without arguments.
    @_disfavoredOverload
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, repeat each Argument) async throws -> T
    ) -> Registration<T> {
        installWithArguments(T.self, name: name, arguments: (repeat each Argument).self,
                             asyncFactory: .withArguments { resolver, arguments in
            // The key's signature guarantees what `arguments` points to.
            let tuple = arguments.pointer.assumingMemoryBound(to: (repeat each Argument).self).pointee
            return try await factory(resolver, repeat each tuple)
        })
    }

    /// Installs a `.new` registration of `T` whose resolves pass arguments
    /// of the types in `arguments`, built by `asyncFactory`.
    private func installWithArguments<T, each Argument>(_: T.Type, name: String?, arguments _: (repeat each Argument).Type,
                                                        asyncFactory: consuming Definition<T>.AsyncFactory) -> Registration<T> {
        let definition = Definition<T>(
            kind: .new,
            key: DefinitionKey(type: typeIdentity(T.self), signature: ArgumentSignature<repeat each Argument>.identity, name: name),
            argumentTypes: ArgumentSignature<repeat each Argument>.types,
            asyncFactory: asyncFactory
        )
        install(definition)
        return Registration(container: self, definition: definition)
    }

    /// Registers an async initialiser (or any async function of the
    /// dependencies), each parameter resolved asynchronously by its type.
    ///
    /// ```swift
    /// actor Cache { init(store: Store) async { … } }
    /// container.autoregister(type: Cache.self, initializer: Cache.init(store:))
    /// ```
    @discardableResult
    public func autoregister<T, each Dependency>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        initializer: @escaping @Sendable (repeat each Dependency) async throws -> T
    ) -> Registration<T> {
        register(type: type, name: name, in: scope) { (resolver: Resolver) async throws -> T in
            try await initializer(repeat try await Container.resolveAsyncFromFactoryOutOfLine(resolver.containerReference, type: (each Dependency).self, parent: resolver.frame))
        }
        .declaring(parameters: repeat (each Dependency).self)
    }

    /// Installs the argument-free registration of `T` that `make` builds from
    /// its kind and key.
    func installArgumentFree<T>(_ type: T.Type, name: String?, in scope: Scope,
                                _ make: (AnyDefinition.Kind, DefinitionKey) -> Definition<T>) -> Registration<T> {
        let definition = make(AnyDefinition.Kind(scope), DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name))
        install(definition)
        return Registration(container: self, definition: definition)
    }
}
