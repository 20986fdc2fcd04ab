/// A type that a container resolves by resolving the type it wraps:
/// `Optional<Service>`, `Lazy<Service>` and `Provider<Service>`. `factory`
/// resolves the wrapped registration in a graph (the given one, or the one
/// in progress, or a new one); it is nil when nothing is registered.
protocol InstanceWrapper {
    static var wrappedType: Any.Type { get }
    init?(inContainer container: Container, withInstanceFactory factory: ((GraphIdentifier?) -> Any?)?)
}

/// Resolves its service the first time `instance` is read, in the object
/// graph it was resolved in, and keeps it. Holds its container, as
/// Swinject's does, so it works after the container's last other reference
/// is gone; a `.container` instance or a factory that holds one keeps the
/// container alive.
///
/// ```swift
/// container.register(Animal.self) { _ in Dog() }
/// let lazy = container.resolve(Lazy<Animal>.self)!
/// let dog = lazy.instance   // resolved now, the same one from now on
/// ```
public final class Lazy<Service>: InstanceWrapper {
    static var wrappedType: Any.Type { Service.self }

    private let factory: (GraphIdentifier?) -> Any?
    private let graphIdentifier: GraphIdentifier?
    private var resolved: Service?

    init?(inContainer container: Container, withInstanceFactory factory: ((GraphIdentifier?) -> Any?)?) {
        guard let factory else {
            return nil
        }
        self.factory = factory
        graphIdentifier = container.currentObjectGraph
    }

    /// The service, resolved on first use.
    public var instance: Service {
        if let resolved {
            return resolved
        }
        let made = Self.unwrap(factory(graphIdentifier))
        resolved = made
        return made
    }
}

/// Resolves its service each time `instance` is read. Holds its container,
/// as `Lazy` does.
///
/// ```swift
/// container.register(Animal.self) { _ in Dog() }
/// let provider = container.resolve(Provider<Animal>.self)!
/// let first = provider.instance, second = provider.instance   // two resolves
/// ```
public final class Provider<Service>: InstanceWrapper {
    static var wrappedType: Any.Type { Service.self }

    private let factory: (GraphIdentifier?) -> Any?

    init?(inContainer _: Container, withInstanceFactory factory: ((GraphIdentifier?) -> Any?)?) {
        guard let factory else {
            return nil
        }
        self.factory = factory
    }

    /// A newly resolved service.
    public var instance: Service {
        Lazy<Service>.unwrap(factory(nil))
    }
}

extension Lazy {
    /// The wrapped instance; it exists unless the registration's factory
    /// failed (a dependency it force-unwraps, or a cycle that never ends),
    /// which Swinject's non-optional `instance` can only report by stopping.
    static func unwrap(_ resolved: Any?) -> Service {
        guard let instance: Service = typed(resolved) else {
            fatalError("SyringeSwinject: the registration of \(Service.self) behind a Lazy or Provider resolved to nil; "
                + "set Container.loggingFunction to see why")
        }
        return instance
    }
}

extension Optional: InstanceWrapper {
    static var wrappedType: Any.Type { Wrapped.self }

    init?(inContainer _: Container, withInstanceFactory factory: ((GraphIdentifier?) -> Any?)?) {
        self = factory?(nil) as? Wrapped
    }
}
