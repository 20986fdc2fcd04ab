/// A property resolved when its owner is initialised.
///
/// Resolves from `Container.shared` unless a container is given. If the
/// resolve fails, the program stops with the full `ResolutionError` text and
/// the type that owns the property.
///
/// ```swift
/// final class Screen {
///     @Injected var manager: Manager                        // from Container.shared
///     @Injected(name: "store", from: container) var store: Store
/// }
/// ```
@propertyWrapper
public struct Injected<T> {
    /// The resolved instance.
    public let wrappedValue: T

    /// Resolves `T` (named `name`) from `container`, or from `Container.shared`.
    /// - Parameter owner: Filled in by the compiler with the owning type's name.
    public init(name: String? = nil, from container: Container? = nil, owner: String = #function) {
        wrappedValue = InjectionFailure.resolve(T.self, name: name, from: container ?? Container.shared, owner: owner)
    }
}

extension Injected: Sendable where T: Sendable {}

/// What the property wrappers do when a resolve fails.
enum InjectionFailure {
    static func resolve<T>(_ type: T.Type, name: String?, from container: Container, owner: String) -> T {
        do {
            return try container.tryResolve(type: type, name: name)
        } catch {
            fatalError("Syringe: cannot inject a \(TypeName.of(T.self)) property of \(owner).\n\(error.description)")
        }
    }
}
