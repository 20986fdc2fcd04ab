/// What factories and `initCompleted` closures resolve their dependencies
/// from: the `Container` that was asked (or, from `synchronize()`, one that
/// runs the factories one at a time). Every method returns nil when nothing
/// is registered for the type, name and argument types.
///
/// ```swift
/// container.register(PetOwner.self) { (r: Resolver) in PetOwner(pet: r.resolve(Animal.self)!) }
/// let owner = container.resolve(PetOwner.self)
/// let named = container.resolve(Animal.self, name: "cat")
/// let mimi = container.resolve(Animal.self, argument: "Mimi")
/// let mew = container.resolve(Animal.self, arguments: "Mew", true)
/// ```
public protocol Resolver {
    /// The instance registered for `serviceType` without a name, or nil.
    func resolve<Service>(_ serviceType: Service.Type) -> Service?

    /// The instance registered for `serviceType` with `name`, or nil.
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service?

    /// The instance made by the factory registered for `serviceType` with argument of these types, or nil.
    func resolve<Service, Arg1>(_ serviceType: Service.Type, argument: Arg1) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with argument of these types, or nil.
    func resolve<Service, Arg1>(_ serviceType: Service.Type, name: String?, argument: Arg1) -> Service?

    /// The instance made by the factory registered for `serviceType` with 2 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 2 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2) -> Service?

    /// The instance made by the factory registered for `serviceType` with 3 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 3 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3) -> Service?

    /// The instance made by the factory registered for `serviceType` with 4 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 4 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4) -> Service?

    /// The instance made by the factory registered for `serviceType` with 5 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 5 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5) -> Service?

    /// The instance made by the factory registered for `serviceType` with 6 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 6 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6) -> Service?

    /// The instance made by the factory registered for `serviceType` with 7 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 7 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7) -> Service?

    /// The instance made by the factory registered for `serviceType` with 8 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 8 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8) -> Service?

    /// The instance made by the factory registered for `serviceType` with 9 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9) -> Service?

    /// The instance made by the factory registered for `serviceType` and `name` with 9 arguments of these types, or nil.
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9) -> Service?
}

/// The generic resolution entry point that extensions of the container
/// build on: `invoker` receives the registered factory, whose type is
/// `(Arguments) -> Any` (`Arguments` being `Resolver` or
/// `(Resolver, Arg1, …)`), and calls it.
///
/// ```swift
/// let cat: Animal? = container._resolve(name: nil, option: nil) { (factory: (Resolver) -> Any) in factory(container) }
/// ```
// swiftlint:disable:next type_name
public protocol _Resolver {
    /// Resolves through `invoker`; nil when nothing is registered for the key.
    // swiftlint:disable:next identifier_name
    func _resolve<Service, Arguments>(
        name: String?,
        option: ServiceKeyOption?,
        invoker: @escaping ((Arguments) -> Any) -> Any
    ) -> Service?
}

@available(*, unavailable, renamed: "Resolver")
public protocol ResolverType {}
