/// A property resolved when its owner is initialised and held weakly.
///
/// Use it for a reference the owner must not keep alive, such as a parent or
/// a `.weak`-scoped service. It reads nil once every strong holder is gone.
/// A failing resolve stops the program with the full diagnostic and the
/// owner type.
///
/// ```swift
/// final class Screen {
///     @WeakInjected(name: "store", from: container) var store: Store?
/// }
/// ```
@propertyWrapper
public struct WeakInjected<T: AnyObject> {
    private weak var instance: T?

    /// Resolves `T` (named `name`) from `container`, or from `Container.shared`.
    /// - Parameter owner: Filled in by the compiler with the owning type's name.
    public init(name: String? = nil, from container: Container? = nil, owner: String = #function) {
        instance = InjectionFailure.resolve(T.self, name: name, from: container ?? Container.shared, owner: owner)
    }

    /// The instance while something else holds it, then nil.
    public var wrappedValue: T? {
        instance
    }
}

extension WeakInjected: Sendable where T: Sendable {}
