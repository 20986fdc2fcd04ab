/// A property resolved when its owner is initialised.
///
/// Resolves from `Container.shared` unless a container is given. If the
/// resolve fails, the program stops with the full `ResolutionError` text, the
/// type that owns the property and where the property is declared.
///
/// The resolve happens as the owner's initialisation begins, before its
/// initialiser's body runs: a property declared without arguments has been
/// resolved from `Container.shared` by then, even if the initialiser sets it
/// up again. To pick the container in an initialiser, declare the property
/// ``LazyInjected`` and set it up there (`_service = LazyInjected(from: container)`).
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
    ///   - name: The name of the registration to resolve; nil for the unnamed one.
    ///   - container: The container to resolve from; nil for `Container.shared`, as
    ///     bound for the current task when the owner is initialised.
    ///   - owner: Filled in by the compiler (`#function`) with what contains
    ///     the property: the owning type's name for a stored property, the
    ///     function's for a local one.
    ///   - file: Filled in by the compiler with the file that declares the property.
    ///   - line: Filled in by the compiler with the line that declares the property.
    public init(name: String? = nil, from container: Container? = nil,
                owner: String = #function, file: StaticString = #fileID, line: UInt = #line) {
        wrappedValue = InjectionFailure.resolve(T.self, name: name, from: container ?? Container.shared,
                                                at: InjectionSite(owner: owner, file: file, line: line, resolvesWhenMade: true))
    }
}

extension Injected: Sendable where T: Sendable {}
