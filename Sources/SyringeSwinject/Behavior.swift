/// Told of every registration a container makes (and of every type an entry
/// is forwarded to), for example to add `initCompleted` closures to whole
/// groups of services.
///
/// ```swift
/// struct Counting: Behavior {
///     func container<Type, Service>(_ container: Container, didRegisterType type: Type.Type,
///                                   toService entry: ServiceEntry<Service>, withName name: String?) {
///         print("registered \(type)")
///     }
/// }
/// let container = Container(behaviors: [Counting()])
/// ```
public protocol Behavior {
    /// Called after `type` was registered (or forwarded) to `entry`, with `name`.
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    )
}
