import Synchronization

/// A property resolved on first access, once, even if several threads access
/// it first at the same time.
///
/// The container is chosen when the owner is initialised (`Container.shared`
/// unless one is given); the resolve happens on first access. A failing
/// resolve stops the program with the full diagnostic, the type that owns
/// the property and where the property is declared. So does a dependency cycle through the property
/// (its own resolve reading it again, on its thread or on another thread that it waits for),
/// instead of hanging. First read inside a resolve (by a factory or an
/// `onResolved` callback), the property keeps its instance once that resolve
/// has succeeded; if it fails, the next access resolves again.
///
/// ```swift
/// final class Screen {
///     @LazyInjected(from: container) var manager: Manager
/// }
/// ```
@propertyWrapper
public struct LazyInjected<T> {
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

// Sendable only when `T` is: every thread that reads the property gets the
// same instance, which a `T` that is not `Sendable` must not be shared as.
// (The resolve itself is synchronised by `LazyInjection`.)
extension LazyInjected: Sendable where T: Sendable {}

/// The shared state behind one `@LazyInjected` property (the wrapper itself
/// is a value that may be copied).
private final class LazyInjection<T>: @unchecked Sendable {
    private let name: String?
    private let container: Container
    private let site: InjectionSite
    /// A retained `InstanceBox` of a `T` once resolved; published with release order
    /// so a reader that loads it sees the instance without taking the lock.
    private let instance = Atomic<UnsafeRawPointer?>(nil)
    /// The instance resolved inside a resolve still in progress, until that
    /// resolve ends (see `resolveOnce`). Read and written holding the claim.
    private var tentative: InstanceBox?

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
    ///
    /// Read inside a resolve (by a factory or a callback), the property's
    /// resolve joins it, and the instance is not final until the outermost
    /// resolve has succeeded: if that fails, a `.shared` instance whose
    /// callbacks had not all run is taken back, and the next resolve makes
    /// another. The instance is then kept as `tentative`, which reads of the
    /// property return meanwhile, and the outermost resolve publishes it
    /// when it succeeds, or forgets it when it fails: the next read then
    /// resolves again, rather than return the half-configured object for good.
    private func resolveOnce() -> T {
        let context = ResolutionContext.current
        return claimed(context) {
            // Resolved by the thread this one waited for.
            if let box = instance.load(ordering: .acquiring) {
                return Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue().value(as: T.self)
            }
            if let tentative {
                return tentative.value(as: T.self)
            }
            let joins = !context.isIdle
            // A failing resolve stops the program: the claim is never released.
            let value = InjectionFailure.resolve(T.self, name: name, from: container, at: site)
            let box = InstanceBox.make(value)
            guard joins else {
                publish(box)
                return value
            }
            tentative = box
            context.deferLazyStore(keep: {
                self.claimed(context) {
                    if let box = self.tentative.take() {
                        self.publish(box)
                    }
                }
            }, forget: {
                self.claimed(context) { self.tentative.take() }
            })
            return value
        }
    }

    /// Runs `body` holding the claim on the property: the one resolve of it
    /// in progress, or what the resolve it joined does when it ends, which
    /// runs on the resolve's thread holding no claim another can wait for.
    private func claimed<R>(_ context: ResolutionContext, _ body: () -> R) -> R {
        guard InstanceCreation.claim(ObjectIdentifier(self), context: context) else {
            InjectionFailure.stop(cycleError(), type: T.self, from: container, at: site)
        }
        defer { InstanceCreation.release(ObjectIdentifier(self)) }
        return body()
    }

    /// Makes `box` the instance every later read returns.
    private func publish(_ box: InstanceBox) {
        instance.store(UnsafeRawPointer(Unmanaged.passRetained(box).toOpaque()), ordering: .releasing)
    }

    /// The error for a resolve that reads the property it is resolving: its
    /// path is the resolve in progress on this thread.
    private func cycleError() -> ResolutionError {
        let step = TypeName.step(T.self, name: name, argumentTypes: [])
        return ResolutionError(reason: .cycle, type: T.self, name: name, argumentTypes: [],
                               path: ResolutionContext.current.pathText(appending: step))
    }
}
