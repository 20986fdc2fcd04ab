/// A registration just made, for configuring it further.
///
/// ```swift
/// container.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
///     .onResolved { r, server in server.client = try r.resolve(type: Client.self) }
/// container.register(type: Store.self) { _ in Store() }
///     .implements(Reader.self)
///     .implements(Writer.self)
/// ```
public struct Registration<T>: Sendable {
    @usableFromInline
    let container: Container
    @usableFromInline
    let definition: Definition<T>

    @usableFromInline
    init(container: Container, definition: Definition<T>) {
        self.container = container
        self.definition = definition
    }

    /// Adds a callback that runs on every new instance once the outermost
    /// resolve has built the whole object graph (Dip's `resolveDependencies`).
    /// Use it for property injection and circular references. For `.shared`
    /// and `.weak` it runs when an instance is created, not on every resolve;
    /// such an instance is published when its factory returns, so another
    /// thread resolving it at that moment may see it before the callback ran.
    /// On a `Registration` whose key was registered again since, it does
    /// nothing: add callbacks to the registration that is in use.
    ///
    /// ```swift
    /// container.register(type: Server.self, in: .graph) { _ in ServerImp() as Server }
    ///     .onResolved { r, server in server.client = try r.resolve(type: Client.self) }
    /// ```
    @discardableResult
    public func onResolved(_ callback: @escaping @Sendable (Resolver, T) throws -> Void) -> Registration<T> {
        container.addHook(callback, to: definition)
        return self
    }

    /// Adds a disposer: what to run on an instance when its owner closes.
    ///
    /// The owner is the container holding a `.shared` instance, the scope
    /// holding a `.scoped` one, and the nearest scope for a `.new` or `.graph`
    /// one (resolving such an instance where no scope is is a
    /// `ResolutionError`, as is a `.weak` registration with a disposer: nothing
    /// would ever run it; an instance the factory made before the refusal is
    /// disposed once the resolve has failed). `close()` runs disposers newest
    /// instance first. A `.shared` or `.scoped` instance that a failed resolve
    /// takes back, its `onResolved` callbacks not all run, is disposed then,
    /// on a task of its own, not by `close()`.
    /// Add disposers and callbacks when you register, before scopes use the
    /// registration: a scope takes a `.scoped` registration's disposers and
    /// callbacks when it first resolves it, so one added later reaches the
    /// scopes that resolve it from then on, not an instance a scope already has.
    ///
    /// ```swift
    /// app.register(type: Database.self) { _ in try Database.open(path: "app.sqlite") }
    ///     .onDispose { db in db.close() }
    /// ```
    @discardableResult
    public func onDispose(_ disposer: @escaping @Sendable (T) throws -> Void) -> Registration<T> {
        container.addDisposer(.sync(disposer), to: definition)
        return self
    }

    /// Adds a disposer that awaits, such as a rollback over the network.
    /// See `onDispose(_:)` for who runs it and when.
    ///
    /// ```swift
    /// app.register(type: Transaction.self, in: .scoped) { r in try Transaction(db: r.resolve()) }
    ///     .onDispose { tx async in await tx.rollbackIfOpen() }
    /// ```
    @discardableResult
    public func onDispose(_ disposer: @escaping @Sendable (T) async throws -> Void) -> Registration<T> {
        container.addDisposer(.async(disposer), to: definition)
        return self
    }

    /// Also registers this registration as `U` (with an optional name), so
    /// that resolving `U` yields this registration's instance: the same one
    /// under `.shared`, `.graph` and `.weak`.
    ///
    /// The instance must be a `U`; if it is not, resolving `U` throws
    /// `ResolutionError.Reason.incompatibleAlias`. The alias goes away with
    /// this registration when it is removed or replaced; called on a
    /// registration that was already replaced or removed, or with this
    /// registration's own type and name, it does nothing.
    ///
    /// ```swift
    /// container.register(type: Store.self) { _ in Store() }.implements(Reader.self)
    /// container.resolve(type: Reader.self) === container.resolve(type: Store.self)   // true
    /// ```
    @inlinable
    @discardableResult
    public func implements<U>(_ type: U.Type, name: String? = nil) -> Registration<T> {
        // The conversion is written here, compiled where `implements` is
        // called, for the concrete `T` and `U`: there the cast asks the
        // runtime only whether the instance's class conforms to `U`, where
        // the library's generic `as? U` went through the runtime's generic
        // cast, and it throws rather than returning a `U?`, whose metadata
        // the generic forwarding factory looked up on every resolve (about
        // 650 instructions of 1 600 in all; see "Aliases converted where
        // they are declared" in Benchmarks/README.md).
        implements(type, name: name) { (instance: T) throws(AliasMismatch) -> U in
            guard let converted = instance as? U else {
                throw AliasMismatch()
            }
            return converted
        }
    }

    /// `implements(_:name:)` with the alias's conversion, made by the caller.
    @usableFromInline
    func implements<U>(_ type: U.Type, name: String?, converting convert: @escaping AliasConversion<T, U>) -> Registration<T> {
        let target = definition
        let kind: AnyDefinition.Kind = target.kind == .scoped ? .forwardToScoped : .forward
        let key = DefinitionKey(type: typeIdentity(U.self), signature: target.key.signature, name: name)
        // Its own key: resolving that yields this instance already, and an
        // alias installed there replaced the registration it forwards to,
        // whose instance `releaseSharedInstances()` and `close()` then no
        // longer reached.
        guard key != target.key else {
            return self
        }
        // An async target's alias forwards synchronously too: a synchronous
        // resolve of it is one of the target (its existing `.shared`
        // instance, its main-actor factory on the main actor).
        // A `.shared` target's instance, converted, is kept by the alias
        // until it is released (see `AliasCache`).
        let cache = target.kind == .shared ? AliasCache() : nil
        let forwarding = Container.forwarding(to: target, in: container, as: U.self, name: name, converting: convert, cache: cache)
        let alias = target.isAsync
            ? Definition<U>(kind: kind, key: key, argumentTypes: target.argumentTypes, synchronousFactory: forwarding,
                            asyncFactory: .withArgumentsOnCallersExecutor(
                                Container.forwardingAsync(to: target, in: container, as: U.self, name: name, converting: convert, cache: cache)),
                            isolatedToMainActor: target.isolatedToMainActor, aliasCache: cache)
            : Definition<U>(kind: kind, key: key, argumentTypes: target.argumentTypes, factory: forwarding, aliasCache: cache)
        container.install(alias: alias, of: target)
        return self
    }
}
