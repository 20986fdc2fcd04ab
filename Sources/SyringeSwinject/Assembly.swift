/// One module's registrations, applied to a container by an `Assembler`.
///
/// ```swift
/// struct PetAssembly: Assembly {
///     func assemble(container: Container) {
///         container.register(Animal.self) { _ in Cat(name: "Whiskers") }
///     }
/// }
/// ```
public protocol Assembly {
    /// Registers the module's services.
    func assemble(container: Container)
    /// Called after every assembly applied together has registered; may
    /// resolve. Does nothing by default.
    func loaded(resolver: Resolver)
}

extension Assembly {
    /// Does nothing.
    public func loaded(resolver _: Resolver) {}
}

/// An assembly that is told when it is loaded: the same as `Assembly`,
/// under the name Swinject gave it before `loaded(resolver:)` moved into
/// `Assembly`.
///
/// ```swift
/// struct Warmup: LoadAwareAssembly {
///     func assemble(container: Container) {}
///     func loaded(resolver: Resolver) { _ = resolver.resolve(Cache.self) }
/// }
/// ```
public typealias LoadAwareAssembly = Assembly

@available(*, unavailable, renamed: "Assembly")
public protocol AssemblyType {}
