/// A property resolved when its owner is initialised.
///
/// Resolves from `Container.shared` unless a container is given. If the
/// resolve fails, the program stops with the full `ResolutionError` text, the
/// property's name and where it is declared.
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
    /// - Parameters:
    ///   - property: Filled in by the compiler with the property's name.
    ///   - file: Filled in by the compiler with the file that declares the property.
    ///   - line: Filled in by the compiler with the line that declares the property.
    public init(name: String? = nil, from container: Container? = nil,
                property: String = #function, file: StaticString = #fileID, line: UInt = #line) {
        wrappedValue = InjectionFailure.resolve(T.self, name: name, from: container ?? Container.shared,
                                                at: InjectionSite(property: property, file: file, line: line))
    }
}

extension Injected: Sendable where T: Sendable {}
