import Synchronization
@_spi(SyringeSwinject) import Syringe

/// What the writer side, forwarding and the debug helper need of an entry,
/// whatever its service type.
protocol ServiceEntryProtocol: AnyObject {
    var serviceType: Any.Type { get }
    var argumentsType: Any.Type { get }
    var objectScope: ObjectScopeProtocol { get }
    /// The registered factory in Swinject's form, `(Arguments) -> Any`.
    var factory: Any { get }
    func describeWithKey(_ serviceKey: ServiceKey) -> String
    /// Drops the instance the scope keeps (`resetObjectScope`).
    func resetInstance()
    /// Resolves this entry as its own service type, in the resolve in
    /// progress on this thread (or a new one), for a request of another type
    /// (a forwarded type, a wrapper). `make` replaces the registered factory
    /// when given (the `_resolve` invoker); otherwise `arguments` points to
    /// the runtime arguments.
    func produceAny(in container: Container, arguments: UnsafeRawPointer, make: ((Resolver) -> Any)?) -> Any?
    /// At the end of a graph whose identifier was handed out: remembers the
    /// graph's instance weakly, so that the graph can be restored.
    func remember(_ box: AnyObject, inGraph graph: UInt)
    /// At the end of a graph that stored an instance in a custom storage;
    /// returns what the storage may have let go of, for the caller to
    /// release once it is done with the graph (see `changeStorage`).
    func completeGraph() -> Any?
}

/// One registration: its factory, its scope and the instance the scope
/// keeps, and the `initCompleted` closures. Returned by `register`, so that
/// the scope and the closures can be set in a chain.
///
/// ```swift
/// container.register(Animal.self) { _ in Cat() }
///     .inObjectScope(.container)
///     .initCompleted { r, animal in (animal as? Cat)?.owner = r.resolve(Person.self) }
///     .implements(Pet.self)
/// ```
public final class ServiceEntry<Service>: _ServiceEntryCore, ServiceEntryProtocol, @unchecked Sendable {
    /// The registered service type.
    public let serviceType: Any.Type
    /// The factory's arguments type: `Resolver` or `(Resolver, Arg1, …)`.
    public let argumentsType: Any.Type
    let factory: Any
    /// The factory, typed: `arguments` points to a tuple of the runtime
    /// arguments, which the key guarantees. Nil for an entry made by
    /// `_register` from a factory of Swinject's untyped form.
    @usableFromInline
    let make: ((Resolver, UnsafeRawPointer) -> Service?)?
    /// A `.container` instance: a retained `InstanceBox<Service>`, published
    /// with release order and read with acquire order, like Syringe's
    /// `.shared` instances. A reset retires the box to the reclaimer.
    @usableFromInline
    let box = Atomic<UnsafeRawPointer?>(nil)
    /// Whether any `initCompleted` closure is set, so that resolves of
    /// entries without one take no lock.
    @usableFromInline
    let hasCompletion = Atomic<Bool>(false)
    /// The container it was registered in, for `implements`.
    var link: ContainerLink?

    /// Guards everything below. Never held while user code runs, except a
    /// custom scope's storage, which the lock serialises; what the storage
    /// lets go of is released after it (see `changeStorage`).
    private let lock = Lock()
    private var scopeObject: ObjectScopeProtocol
    private var storageObject: InstanceStorage?
    private var completions: [(Resolver, Service) -> Void] = []
    private var weakInstance = WeakReference(nil)
    /// `.graph` and `.weak` instances of completed graphs whose identifier
    /// was handed out, by graph number, weakly.
    private var restorable: [UInt: WeakReference] = [:]
    /// `restorable`'s size at which dead references are next dropped:
    /// twice what survived the last time, so that a store costs constant
    /// time on average however many instances stay alive.
    private var restorablePruneAt = 64

    /// `producer` is `Self.producer(calling: make)`, made by an inlined
    /// `register` where the service's and the arguments' types are known;
    /// nil gives the unspecialised `Self.producer`.
    @usableFromInline
    init(
        serviceType: Service.Type,
        argumentsType: Any.Type,
        factory: Any,
        make: ((Resolver, UnsafeRawPointer) -> Service?)?,
        objectScope: ObjectScopeProtocol,
        producer: Producer? = nil
    ) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.factory = factory
        self.make = make
        self.scopeObject = objectScope
        let index = EntryIndices.take()
        let scope = ScopeKind(objectScope)
        let keepsItself = Service.self is AnyObject.Type
        // Not `producer ?? Self.producer`: a function passed through the
        // generic `??` comes back wrapped in reabstraction thunks, paid on
        // every resolve.
        if let producer {
            super.init(producer: producer, index: index, scope: scope, graphKeepsInstanceItself: keepsItself)
        } else {
            super.init(producer: Self.producer, index: index, scope: scope, graphKeepsInstanceItself: keepsItself)
        }
    }

    /// An entry with an untyped factory, in the default `.graph` scope.
    convenience init(serviceType: Service.Type, argumentsType: Any.Type, factory: Any) {
        self.init(serviceType: serviceType, argumentsType: argumentsType, factory: factory, make: nil, objectScope: ObjectScope.graph)
    }

    /// An entry with an untyped factory, in `objectScope`.
    convenience init(serviceType: Service.Type, argumentsType: Any.Type, factory: Any, objectScope: ObjectScope) {
        self.init(serviceType: serviceType, argumentsType: argumentsType, factory: factory, make: nil, objectScope: objectScope)
    }

    /// The entry's `_ServiceEntryCore.producer` when `make` is not known
    /// where it is made: the `.container` instance if there is one (unless
    /// the container asked is synchronized: see `lockFreeInstance`), else
    /// the scope run with the entry's factory.
    static var producer: Producer {
        { container, entry, arguments, out in
            ProducedInstance.deliver(Unmanaged<ServiceEntry<Service>>.fromOpaque(entry)._withUnsafeGuaranteedRef { entry in
                entry.lockFreeInstance(for: container) ?? container.produce(entry, arguments: arguments)
            }, to: out)
        }
    }

    /// The `.container` instance, read without a lock, for a resolve from
    /// `container`; nil through `synchronize()`, whose resolves take the
    /// lock first: the instance is published when its factory returns,
    /// and a synchronized resolve, as in Swinject, waits until the resolve
    /// in progress has run its `initCompleted` too.
    @inlinable
    @inline(__always)
    func lockFreeInstance(for container: Container) -> Service? {
        container.isSynchronized ? nil : containerInstance()
    }

    /// The producer of an entry whose typed factory is `make`, made by an
    /// inlined `register`, so specialised for `Service`. It keeps `make` in
    /// its own context: a resolve, which holds the producer while it runs,
    /// then calls `make` without the retain and release that a copy taken
    /// out of the entry would cost.
    @inlinable
    static func producer(calling make: @escaping (Resolver, UnsafeRawPointer) -> Service?) -> Producer {
        { container, entry, arguments, out in
            ProducedInstance.deliver(Unmanaged<ServiceEntry<Service>>.fromOpaque(entry)._withUnsafeGuaranteedRef { entry in
                entry.lockFreeInstance(for: container) ?? container.produce(entry, arguments: arguments, make: make)
            }, to: out)
        }
    }

    deinit {
        EntryIndices.give(index)
        if let raw = box.load(ordering: .relaxed) {
            Unmanaged<InstanceBox<Service>>.fromOpaque(raw).release()
        }
    }

    /// The scope: how long an instance is kept and shared.
    var objectScope: ObjectScopeProtocol {
        lock.withLock { scopeObject }
    }

    /// Sets the scope of this registration's instances.
    ///
    /// ```swift
    /// container.register(Database.self) { _ in Database() }.inObjectScope(.container)
    /// ```
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScopeProtocol) -> Self {
        let replaced = lock.withLock {
            scopeObject = objectScope
            scope.store(ScopeKind(objectScope).rawValue, ordering: .releasing)
            return storageObject.take()
        }
        // Released after the lock: the storage may hold the last reference
        // to an instance whose `deinit` resolves this entry.
        withExtendedLifetime(replaced) {}
        return self
    }

    /// Sets the scope of this registration's instances.
    ///
    /// ```swift
    /// container.register(Animal.self) { _ in Cat() }.inObjectScope(.weak)
    /// ```
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Adds a closure that runs after each new instance is made and stored
    /// in its scope: the place for property injection and for the other
    /// half of a circular dependency.
    ///
    /// ```swift
    /// container.register(Parent.self) { _ in Parent() }
    ///     .initCompleted { r, parent in parent.child = r.resolve(Child.self) }
    /// ```
    @discardableResult
    public func initCompleted(_ completed: @escaping (Resolver, Service) -> Void) -> Self {
        lock.withLock {
            completions.append(completed)
            hasCompletion.store(true, ordering: .releasing)
        }
        return self
    }

    /// Also registers this entry for `type`, with `name`: resolving `type`
    /// resolves this entry and casts its instance.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }.implements(Animal.self)
    /// ```
    @discardableResult
    public func implements<T>(_ type: T.Type, name: String? = nil) -> ServiceEntry<Service> {
        link?.container?.forward(type, name: name, to: self)
        return self
    }

    /// Also registers this entry for each of the types.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }.implements(Animal.self, Pet.self)
    /// ```
    @discardableResult
    public func implements<T1, T2, each T>(_ first: T1.Type, _ second: T2.Type, _ more: repeat (each T).Type) -> ServiceEntry<Service> {
        implements(first)
        implements(second)
        repeat _ = implements((each more), name: nil)
        return self
    }

    // MARK: The engine's side

    /// Runs the `initCompleted` closures on a new instance.
    @inlinable
    @inline(__always)
    func completeInitialisation(_ instance: Service, resolver: Resolver) {
        if hasCompletion.load(ordering: .acquiring) {
            runCompletions(instance, resolver: resolver)
        }
    }

    @usableFromInline
    func runCompletions(_ instance: Service, resolver: Resolver) {
        let closures = lock.withLock { completions }
        for completed in closures {
            completed(resolver, instance)
        }
    }

    /// The `.container` instance, if there is one. Lock-free.
    @inlinable
    @inline(__always)
    func containerInstance() -> Service? {
        guard let raw = box.load(ordering: .acquiring) else {
            return nil
        }
        return Unmanaged<InstanceBox<Service>>.fromOpaque(raw).takeUnretainedValue().value
    }

    /// The instance a `.container`, `.weak` or custom scope keeps for the
    /// resolve in progress, if any.
    func storedInstance(in state: ResolutionState, kind: ScopeKind) -> Service? {
        switch kind {
        case .container:
            return containerInstance()
        case .weak:
            if let alive: Service = typed(lock.withLock { weakInstance.value }) {
                return alive
            }
            return state.graphInstance(index, as: Service.self) ?? restoredInstance(in: state)
        default:
            let graph = state.graphIdentifier()
            return typed(lock.withLock { storage.instance(inGraph: graph) })
        }
    }

    /// Keeps `instance` as the scope says; returns the instance that is now
    /// kept (another one, should a creation that could not wait for this
    /// one's have published first).
    func store(_ instance: Service, in state: ResolutionState, kind: ScopeKind) -> Service {
        switch kind {
        case .container:
            let made = Unmanaged.passRetained(InstanceBox(instance))
            if box.compareExchange(expected: nil, desired: UnsafeRawPointer(made.toOpaque()), ordering: .acquiringAndReleasing).exchanged {
                return instance
            }
            made.release()
            return containerInstance() ?? instance
        case .weak:
            lock.withLock { weakInstance = WeakReference(instance) }
            state.setGraphInstance(instance, index, entry: self)
            return instance
        default:
            let graph = state.graphIdentifier()
            let replaced = changeStorage { $0.setInstance(instance, inGraph: graph) }
            state.noteCustomStorage(of: self)
            withExtendedLifetime(replaced) {}
            return instance
        }
    }

    /// A `.graph` or `.weak` instance of a restored graph that is still alive.
    @inlinable
    @inline(__always)
    func restoredInstance(in state: ResolutionState) -> Service? {
        guard state.isRestored else {
            return nil
        }
        return restoredInstanceSlowly(in: state)
    }

    @usableFromInline
    func restoredInstanceSlowly(in state: ResolutionState) -> Service? {
        let graph = state.graph
        return typed(lock.withLock { restorable[graph]?.value })
    }

    func remember(_ box: AnyObject, inGraph graph: UInt) {
        let instance = ResolutionState.instance(of: box, as: Service.self)
        lock.withLock {
            if restorable.count >= restorablePruneAt {
                restorable = restorable.filter { $0.value.value != nil }
                restorablePruneAt = max(64, restorable.count * 2)
            }
            restorable[graph] = WeakReference(instance)
        }
    }

    func completeGraph() -> Any? {
        changeStorage { $0.graphResolutionCompleted() }
    }

    /// Runs `change` on the custom scope's storage under the lock, and
    /// returns the storage's `instance` from before it: the instance that
    /// `change` may let go of, kept so that the caller releases it after the
    /// lock. Its `deinit` may resolve, this entry too, which under the lock
    /// would wait for it forever.
    private func changeStorage(_ change: (InstanceStorage) -> Void) -> Any? {
        lock.withLock {
            let storage = self.storage
            let previous = storage.instance
            change(storage)
            return previous
        }
    }

    /// The custom scope's storage, made on first use. Call under the lock.
    private var storage: InstanceStorage {
        if let storageObject {
            return storageObject
        }
        let made = scopeObject.makeStorage()
        storageObject = made
        return made
    }

    func resetInstance() {
        switch ScopeKind(rawValue: scope.load(ordering: .acquiring)) {
        case .container:
            if let raw = box.exchange(nil, ordering: .acquiringAndReleasing) {
                // A lock-free resolve may still be reading the box.
                Syringe.Reclamation.retire(Unmanaged<InstanceBox<Service>>.fromOpaque(raw).takeRetainedValue())
            }
        case .weak:
            lock.withLock { weakInstance = WeakReference(nil) }
        case .custom:
            let dropped = changeStorage { $0.instance = nil }
            withExtendedLifetime(dropped) {}
        default:
            break
        }
    }

    @usableFromInline
    func produceAny(in container: Container, arguments: UnsafeRawPointer, make replacement: ((Resolver) -> Any)?) -> Any? {
        if let replacement {
            return container.produce(self, arguments: arguments) { resolver, _ in replacement(resolver) as? Service }
        }
        if let make {
            return container.produce(self, arguments: arguments, make: make)
        }
        // Made by `_register` in Swinject's untyped form: a typed resolve
        // can call it only when it takes no arguments (extensions resolve
        // the others through `_resolve`, whose invoker calls them).
        guard let untyped = factory as? (Resolver) -> Any else {
            return nil
        }
        return container.produce(self, arguments: arguments) { resolver, _ in untyped(resolver) as? Service }
    }

    func describeWithKey(_ serviceKey: ServiceKey) -> String {
        let (scope, completionCount) = lock.withLock { (scopeObject, completions.count) }
        var text = "Service: \(serviceType)"
        if let name = serviceKey.name {
            text += ", Name: \"\(name)\""
        }
        if let option = serviceKey.option {
            text += ", \(option)"
        }
        text += ", Factory: \(serviceKey.argumentsType) -> \(serviceKey.serviceType)"
        text += ", ObjectScope: \(scope)"
        if completionCount > 0 {
            text += ", InitCompleted: Specified \(completionCount) closures"
        }
        return text
    }
}

/// What every entry has whatever its service type: the way a resolve that
/// found it in a table runs it. An implementation detail of
/// ``ServiceEntry``, public only because a public class's superclass must be.
///
/// A resolve through the `Resolver` protocol (a factory's `r.resolve(…)`) is
/// a call through a witness table, so the container's generic `resolve`
/// runs unspecialised there: every use of `Service?`, `ServiceEntry<Service>`
/// or a tuple of the arguments' types would ask the runtime for its type
/// metadata, a hash-table lookup each (two thirds of such a resolve, measured).
/// Through the producer, that unspecialised code touches only this
/// non-generic class and raw pointers; the producer was made where `Service`
/// was known (an inlined `register`), so all the typed work runs specialised.
public class _ServiceEntryCore {
    /// Resolves the entry (`entry`, unretained) for `container` with the
    /// runtime arguments `arguments` points to, and hands back the `Service`
    /// it made, if any: in the result's words, or initialised at `out`
    /// (see ``ProducedInstance``).
    @usableFromInline
    typealias Producer = (_ container: Container, _ entry: UnsafeMutableRawPointer, _ arguments: UnsafeRawPointer, _ out: UnsafeMutableRawPointer) -> ProducedInstance

    @usableFromInline
    let producer: Producer
    /// Dense, process-wide: the entry's slot in each thread's graph
    /// (`ResolutionState`).
    @usableFromInline
    let index: Int
    /// The built-in scope, or `custom`; read without the lock by resolves.
    @usableFromInline
    let scope: Atomic<UInt8>
    /// Whether a graph's slot keeps the instance itself (a class instance),
    /// not in a box (see `ResolutionState.graphObject`): then even
    /// unspecialised code can hand out a `.graph` instance the graph has.
    @usableFromInline
    let graphKeepsInstanceItself: Bool

    init(producer: @escaping Producer, index: Int, scope: ScopeKind, graphKeepsInstanceItself: Bool) {
        self.producer = producer
        self.index = index
        self.scope = Atomic(scope.rawValue)
        self.graphKeepsInstanceItself = graphKeepsInstanceItself
    }
}

/// The scopes the engine implements itself, and `custom` for the rest.
@usableFromInline
enum ScopeKind: UInt8 {
    case transient, graph, container, weak, custom

    init(_ scope: ObjectScopeProtocol) {
        switch scope {
        case ObjectScope.transient: self = .transient
        case ObjectScope.graph: self = .graph
        case ObjectScope.container: self = .container
        case ObjectScope.weak: self = .weak
        default: self = .custom
        }
    }
}

/// An immutable box for an instance: a `.container` instance or one that a
/// thread's graph keeps. The entry's service type guarantees `Service`, so
/// readers reach it with `Unmanaged`/`unsafeDowncast`, not a cast.
@usableFromInline
final class InstanceBox<Service> {
    @usableFromInline
    let value: Service

    @usableFromInline
    init(_ value: Service) {
        self.value = value
    }
}

/// Hands out entry indices, densely: a thread's graph slots are indexed by
/// them, so the slots stay as many as the entries alive at once, however
/// many a long-running process registers and drops.
///
/// An index is reused only after its entry is freed, which happens only
/// when no read-side section that could have reached the entry is running
/// (entries are retired to the reclaimer). Every graph ends inside such a
/// section and empties its slots when it ends, so no thread still has a
/// slot filled for a reused index.
enum EntryIndices {
    private static let lock = Lock()
    nonisolated(unsafe) private static var next = 0
    nonisolated(unsafe) private static var free: [Int] = []

    static func take() -> Int {
        lock.withLock {
            if let reused = free.popLast() {
                return reused
            }
            defer { next += 1 }
            return next
        }
    }

    static func give(_ index: Int) {
        lock.withLock { free.append(index) }
    }
}

private func ~= (pattern: ObjectScope, value: ObjectScopeProtocol) -> Bool {
    pattern === value
}

/// `value` as a `Service`, nil when there is none. A plain `value as?
/// Service` of an empty `Any?` succeeds when `Service` is `Any`, `AnyObject`
/// or an optional (Swift wraps the nil), which read as an instance stored
/// and skipped the factory.
@inline(__always)
func typed<Service>(_ value: Any?) -> Service? {
    guard let value else {
        return nil
    }
    return value as? Service
}
