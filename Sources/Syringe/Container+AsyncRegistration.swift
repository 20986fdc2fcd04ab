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
    /// ```swift
    /// container.register(type: Database.self) { (r: Resolver) async throws in
    ///     try await Database.connect(config: r.resolve())
    /// }
    /// container.register(type: Repo.self, in: .new) { (r: Resolver) async throws in
    ///     Repo(db: try await r.resolve())
    /// }
    /// ```
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        factory: @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        installArgumentFree(T.self, name: name, in: scope) { kind, key in
            Definition(kind: kind, key: key, argumentTypes: [], asyncFactory: .plain(factory))
        }
    }

    /// Registers an async factory that takes runtime arguments; each resolve
    /// passes them (`resolveAsync(type:arguments:)`) and gets a new instance.
    ///
    /// ```swift
    /// container.register(type: Report.self) { (r: Resolver, month: Int) async throws in
    ///     try await Report(month: month, repo: r.resolve())
    /// }
    /// let report = try await container.resolveAsync(type: Report.self, arguments: 11)
    /// ```
    // Disfavoured, like the synchronous overload with arguments: with an
    // empty pack it also matches `{ r async in … }`.
    @_disfavoredOverload
    @discardableResult
    public func register<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, repeat each Argument) async throws -> T
    ) -> Registration<T> {
        let definition = Definition<T>(
            kind: .new,
            key: DefinitionKey(type: typeIdentity(T.self), signature: ArgumentSignature<repeat each Argument>.identity, name: name),
            argumentTypes: ArgumentSignature<repeat each Argument>.types,
            asyncFactory: .withArguments { resolver, arguments in
                // The key's signature guarantees what `arguments` points to.
                let tuple = arguments.pointer.assumingMemoryBound(to: (repeat each Argument).self).pointee
                return try await factory(resolver, repeat each tuple)
            }
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
