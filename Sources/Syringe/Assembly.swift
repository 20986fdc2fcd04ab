/// Registers one module's services into a container, so that an app's wiring
/// can be split by feature and each part applied with `Container.apply(_:)`.
///
/// An assembly can be a struct that holds its module's configuration:
///
/// ```swift
/// struct NetworkAssembly: Assembly {
///     let baseURL: String
///
///     func assemble(into container: Container) {
///         container.register { _ in HTTPClient(baseURL: baseURL) as API }
///     }
/// }
///
/// struct ProfileAssembly: Assembly {
///     func assemble(into container: Container) {
///         container.register(type: ProfileStore.self) { r in ProfileStore(api: try r.resolve()) }
///     }
///
///     func loaded(_ container: Container) {
///         _ = container.resolve(type: ProfileStore.self)   // fail at launch, not on first use
///     }
/// }
///
/// let app = Container()
/// app.apply(NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly())
/// ```
public protocol Assembly {
    /// Registers this module's services. Called once per `apply`.
    ///
    /// ```swift
    /// func assemble(into container: Container) {
    ///     container.register { _ in HTTPClient(baseURL: baseURL) as API }
    /// }
    /// ```
    func assemble(into container: Container)

    /// Runs after every assembly of the same `apply` call has been assembled,
    /// in the same order: the place to resolve eagerly, validate, or wire what
    /// spans modules. Default: does nothing.
    ///
    /// ```swift
    /// func loaded(_ container: Container) {
    ///     _ = container.resolve(type: ProfileStore.self)
    /// }
    /// ```
    func loaded(_ container: Container)
}

extension Assembly {
    /// Does nothing: most assemblies only register.
    ///
    /// ```swift
    /// struct LoggingAssembly: Assembly {
    ///     func assemble(into container: Container) {
    ///         container.register { _ in ConsoleLogger() as Logger }
    ///     }
    /// }
    /// ```
    public func loaded(_ container: Container) {}
}

extension Container {
    /// Applies assemblies: `assemble(into:)` of each, in the order given, then
    /// `loaded(_:)` of each, in the same order (Swinject's `Assembler`).
    ///
    /// Registering works as it does outside an assembly, so an assembly applied
    /// later replaces an earlier one's registration of the same type and name.
    /// A later `apply` runs only its own assemblies' `loaded`.
    ///
    /// ```swift
    /// let app = Container()
    /// app.apply([NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly()])
    /// ```
    public func apply(_ assemblies: [any Assembly]) {
        // All registrations first, so that `loaded` can resolve what any
        // assembly of the batch registers, whatever its position.
        for assembly in assemblies {
            assembly.assemble(into: self)
        }
        for assembly in assemblies {
            assembly.loaded(self)
        }
    }

    /// Applies assemblies: `assemble(into:)` of each, in the order given, then
    /// `loaded(_:)` of each, in the same order. See `apply(_:)` taking an array.
    ///
    /// ```swift
    /// let app = Container()
    /// app.apply(NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly())
    /// ```
    public func apply(_ assemblies: any Assembly...) {
        apply(assemblies)
    }
}
