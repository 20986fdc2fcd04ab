/// Where a scope keeps a registration's instance.
///
/// The container reads `instance(inGraph:)` before running a factory and
/// calls `setInstance(_:inGraph:)` with what the factory made; at the end of
/// every graph that stored an instance it calls `graphResolutionCompleted()`.
/// It never calls a storage from two threads at once (each registration's
/// storage is used under that registration's lock), so a storage needs no
/// locking of its own.
///
/// The `deinit` of an instance the storage drops may resolve, even the
/// registration it was stored for: before each call that may drop one
/// (`setInstance(_:inGraph:)`, `graphResolutionCompleted()`, and setting
/// `instance` to nil in `resetObjectScope`) the container reads `instance`,
/// and it keeps what it read until it has let go of the lock (at a graph's
/// end, until the graph is torn down), so that the last release comes
/// after. Keep in `instance` what the storage holds strongly, as the
/// storages here do: an instance dropped that `instance` did not return
/// is released under the lock, where a `deinit` that resolves the same
/// registration waits for the lock forever.
///
/// ```swift
/// final class CountingStorage: InstanceStorage {
///     var instance: Any?
///     var stores = 0
///     func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) { self.instance = instance; stores += 1 }
/// }
/// ```
public protocol InstanceStorage: AnyObject {
    /// The stored instance. The container reads it before each call that
    /// may drop it; `resetObjectScope` sets it to nil.
    var instance: Any? { get set }
    /// Called when a graph that stored an instance here is complete.
    func graphResolutionCompleted()
    /// The instance for `graph`, if there is one.
    func instance(inGraph graph: GraphIdentifier) -> Any?
    /// Stores the instance a factory made in `graph`.
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier)
}

extension InstanceStorage {
    /// Does nothing.
    public func graphResolutionCompleted() {}

    /// `instance`, whatever the graph.
    public func instance(inGraph _: GraphIdentifier) -> Any? {
        instance
    }

    /// Sets `instance`, whatever the graph.
    public func setInstance(_ instance: Any?, inGraph _: GraphIdentifier) {
        self.instance = instance
    }
}

/// Keeps an instance for the rest of the graph that made it, and afterwards
/// as long as something else holds it (so that a restored graph finds it).
///
/// ```swift
/// let scope = ObjectScope(storageFactory: GraphStorage.init, description: "my graph")
/// ```
public final class GraphStorage: InstanceStorage {
    private var graphs: [GraphIdentifier: WeakReference] = [:]
    private var pruneAt = 64
    /// The instance of the graph in progress; dropped when it completes.
    public var instance: Any?

    /// An empty storage.
    public init() {}

    /// Drops the strong reference to the completed graph's instance.
    public func graphResolutionCompleted() {
        instance = nil
    }

    /// The instance made in `graph`, if it is still alive.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        graphs[graph]?.value
    }

    /// Keeps `instance` strongly until the graph completes, weakly after.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        self.instance = instance
        // Swinject keeps an entry per graph forever; dropping the dead ones
        // here keeps a long-running process's storage bounded. Only once
        // the entries have doubled since the last time: dropping them at
        // every store cost each store the number of live ones, and n
        // graphs whose instances stay alive n² in all.
        if graphs.count >= pruneAt {
            graphs = graphs.filter { $0.value.value != nil }
            pruneAt = max(64, graphs.count * 2)
        }
        graphs[graph] = WeakReference(instance)
    }
}

/// Keeps an instance until it is reset.
///
/// ```swift
/// let scope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
/// ```
public final class PermanentStorage: InstanceStorage {
    /// The stored instance.
    public var instance: Any?

    /// An empty storage.
    public init() {}
}

/// Keeps nothing: every resolve makes a new instance.
///
/// ```swift
/// let scope = ObjectScope(storageFactory: TransientStorage.init, description: "fresh")
/// ```
public final class TransientStorage: InstanceStorage {
    /// Always nil; setting it does nothing.
    public var instance: Any? {
        get { nil }
        set {}  // swiftlint:disable:this unused_setter_value
    }

    /// A storage.
    public init() {}
}

/// Keeps a class instance weakly; a value type is not kept.
///
/// ```swift
/// let storage = WeakStorage()
/// storage.instance = object    // nil again once `object` is released
/// ```
public final class WeakStorage: InstanceStorage {
    private var reference = WeakReference(nil)

    /// The instance, while something else holds it.
    public var instance: Any? {
        get { reference.value }
        set { reference = WeakReference(newValue) }
    }

    /// An empty storage.
    public init() {}
}

/// Several storages as one: reads return the first component's non-nil
/// instance, writes go to every component.
///
/// ```swift
/// let scope = ObjectScope(storageFactory: { CompositeStorage([WeakStorage(), GraphStorage()]) })
/// ```
public final class CompositeStorage: InstanceStorage {
    private let components: [InstanceStorage]

    /// The first component's instance that is not nil; setting sets all.
    public var instance: Any? {
        get { components.lazy.compactMap(\.instance).first }
        set { components.forEach { $0.instance = newValue } }
    }

    /// A storage made of `components`, read in this order.
    public init(_ components: [InstanceStorage]) {
        self.components = components
    }

    /// Tells every component.
    public func graphResolutionCompleted() {
        components.forEach { $0.graphResolutionCompleted() }
    }

    /// Stores in every component.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        components.forEach { $0.setInstance(instance, inGraph: graph) }
    }

    /// The first component's instance for `graph` that is not nil.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        components.lazy.compactMap { $0.instance(inGraph: graph) }.first
    }
}

/// A weak reference to a class instance held as `Any`; a value that is not a
/// class instance is not kept (it could only be kept by copying it, which
/// is not what "weak" promises).
struct WeakReference {
    private weak var object: AnyObject?

    init(_ value: Any?) {
        guard let value, type(of: value) is AnyClass else {
            object = nil
            return
        }
        object = value as AnyObject
    }

    var value: Any? {
        object
    }
}
