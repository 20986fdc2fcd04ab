import Synchronization

/// A property resolved on first access, once, even if several threads access
/// it first at the same time.
///
/// The container is chosen when the owner is initialised (`Container.shared`
/// unless one is given); the resolve happens on first access. A failing
/// resolve stops the program with the full diagnostic and the owner type.
///
/// ```swift
/// final class Screen {
///     @LazyInjected(from: container) var manager: Manager
/// }
/// ```
@propertyWrapper
public struct LazyInjected<T>: @unchecked Sendable {
    private let storage: LazyInjection<T>

    /// Prepares to resolve `T` (named `name`) from `container`, or from
    /// `Container.shared`, on first access.
    /// - Parameter owner: Filled in by the compiler with the owning type's name.
    public init(name: String? = nil, from container: Container? = nil, owner: String = #function) {
        storage = LazyInjection(name: name, container: container ?? Container.shared, owner: owner)
    }

    /// The instance, resolved on first access.
    public var wrappedValue: T {
        storage.value
    }
}

/// The shared state behind one `@LazyInjected` property (the wrapper itself
/// is a value that may be copied).
private final class LazyInjection<T>: @unchecked Sendable {
    private let name: String?
    private let container: Container
    private let owner: String
    private let lock = Lock()
    /// A retained `InstanceBox<T>` once resolved; published with release order
    /// so a reader that loads it sees the instance without taking the lock.
    private let instance = Atomic<UnsafeRawPointer?>(nil)

    init(name: String?, container: Container, owner: String) {
        self.name = name
        self.container = container
        self.owner = owner
    }

    deinit {
        if let box = instance.load(ordering: .acquiring) {
            Unmanaged<InstanceBox<T>>.fromOpaque(box).release()
        }
    }

    var value: T {
        if let box = instance.load(ordering: .acquiring) {
            return Unmanaged<InstanceBox<T>>.fromOpaque(box).takeUnretainedValue().value
        }
        return lock.withLock {
            if let box = instance.load(ordering: .acquiring) {
                return Unmanaged<InstanceBox<T>>.fromOpaque(box).takeUnretainedValue().value
            }
            let value = InjectionFailure.resolve(T.self, name: name, from: container, owner: owner)
            instance.store(UnsafeRawPointer(Unmanaged.passRetained(InstanceBox(value)).toOpaque()), ordering: .releasing)
            return value
        }
    }
}
