import Synchronization

/// A property resolved on first access, once, even if several threads access
/// it first at the same time.
///
/// The container is chosen when the owner is initialised (`Container.shared`
/// unless one is given); the resolve happens on first access. A failing
/// resolve stops the program with the full diagnostic, the type that owns
/// the property and where the property is declared. So does a dependency cycle through the property
/// (its own resolve reading it again, on its thread or on another thread that it waits for),
/// instead of hanging.
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
        storage = LazyInjection(name: name, container: container ?? Container.shared,
                                site: InjectionSite(owner: owner, file: file, line: line))
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
    private let site: InjectionSite
    /// A retained `InstanceBox` of a `T` once resolved; published with release order
    /// so a reader that loads it sees the instance without taking the lock.
    private let instance = Atomic<UnsafeRawPointer?>(nil)

    init(name: String?, container: Container, site: InjectionSite) {
        self.name = name
        self.container = container
        self.site = site
    }

    deinit {
        if let box = instance.load(ordering: .acquiring) {
            Unmanaged<InstanceBox>.fromOpaque(box).release()
        }
    }

    var value: T {
        if let box = instance.load(ordering: .acquiring) {
            return Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue().value(as: T.self)
        }
        return resolveOnce()
    }

    /// Resolves holding a claim on the property, as a `.shared` creation
    /// holds one on its registration (`InstanceCreation`): other threads
    /// wait for the one resolve in progress, and a wait that would close a
    /// cycle is reported instead, whether the cycle stays on this thread (a
    /// factory that reads this property again) or goes through another (this
    /// resolve waits for a creation whose factory reads the property).
    private func resolveOnce() -> T {
        guard InstanceCreation.claim(ObjectIdentifier(self), context: ResolutionContext.current) else {
            InjectionFailure.stop(cycleError(), type: T.self, from: container, at: site)
        }
        defer { InstanceCreation.release(ObjectIdentifier(self)) }
        // Resolved by the thread this one waited for.
        if let box = instance.load(ordering: .acquiring) {
            return Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue().value(as: T.self)
        }
        // A failing resolve stops the program: the claim is never released.
        let value = InjectionFailure.resolve(T.self, name: name, from: container, at: site)
        instance.store(UnsafeRawPointer(Unmanaged.passRetained(InstanceBox.make(value)).toOpaque()), ordering: .releasing)
        return value
    }

    /// The error for a resolve that reads the property it is resolving: its
    /// path is the resolve in progress on this thread.
    private func cycleError() -> ResolutionError {
        let step = TypeName.step(T.self, name: name, argumentTypes: [])
        return ResolutionError(reason: .cycle, type: T.self, name: name, argumentTypes: [],
                               path: ResolutionContext.current.pathText(appending: step))
    }
}
