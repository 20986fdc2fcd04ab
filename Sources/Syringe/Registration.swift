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

    /// Also registers this registration as `U` (with an optional name), so
    /// that resolving `U` yields this registration's instance: the same one
    /// under `.shared`, `.graph` and `.weak`.
    ///
    /// The instance must be a `U`; if it is not, resolving `U` throws
    /// `ResolutionError.Reason.incompatibleAlias`. The alias goes away with
    /// this registration when it is removed or replaced; called on a
    /// registration that was already replaced or removed, it does nothing.
    ///
    /// ```swift
    /// container.register(type: Store.self) { _ in Store() }.implements(Reader.self)
    /// container.resolve(type: Reader.self) === container.resolve(type: Store.self)   // true
    /// ```
    @discardableResult
    public func implements<U>(_ type: U.Type, name: String? = nil) -> Registration<T> {
        let target = definition
        let alias = Definition<U>(
            kind: .forward,
            key: DefinitionKey(type: typeIdentity(U.self), signature: target.key.signature, name: name),
            argumentTypes: target.argumentTypes,
            factory: Container.forwarding(to: target, as: U.self, name: name)
        )
        container.install(alias: alias, of: target)
        return self
    }
}
