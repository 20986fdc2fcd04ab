/// A property resolved when its owner is initialised and held weakly.
///
/// Use it for a reference the owner must not keep alive, such as a parent or
/// a `.weak`-scoped service. It reads nil once every strong holder is gone.
/// The type may be a class or a protocol whose instances are classes; a value
/// that is not a class instance is not kept, and reads nil at once. A failing
/// resolve stops the program with the full diagnostic, the type that owns
/// the property and where the property is declared. Like ``Injected``, it
/// resolves as its owner's initialisation begins, before the initialiser's
/// body could set it up with another container.
///
/// ```swift
/// final class Screen {
///     @WeakInjected(name: "store", from: container) var store: Store?
///     @WeakInjected(from: container) var delegate: ScreenDelegate?   // a protocol
/// }
/// ```
@propertyWrapper
public struct WeakInjected<T> {
    /// Written once in `init` and only read after, so it needs no lock.
    private let box = WeakInstanceBox<T>()

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
        box.store(InjectionFailure.resolve(T.self, name: name, from: container ?? Container.shared,
                                           at: InjectionSite(owner: owner, file: file, line: line, resolvesWhenMade: true)))
    }

    /// The instance while something else holds it, then nil.
    public var wrappedValue: T? {
        box.load()
    }
}

// Sendable only when `T` is, as `LazyInjected`: every reader gets the same
// instance.
extension WeakInjected: Sendable where T: Sendable {}
