/// What makes the storage of each registration in a scope.
///
/// ```swift
/// final class SessionScope: ObjectScopeProtocol {
///     func makeStorage() -> InstanceStorage { PermanentStorage() }
/// }
/// ```
public protocol ObjectScopeProtocol: AnyObject {
    /// A new storage for one registration.
    func makeStorage() -> InstanceStorage
}

/// How long a resolved instance is kept and shared.
///
/// The four built-in scopes run on Syringe's engine (a lock-free typed box
/// for `.container`, the resolving thread's graph for `.graph`); a scope of
/// your own keeps instances in the `InstanceStorage` its factory makes.
///
/// ```swift
/// container.register(Database.self) { _ in Database() }.inObjectScope(.container)
/// let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
/// container.register(Cart.self) { _ in Cart() }.inObjectScope(session)
/// container.resetObjectScope(session)   // at log-out
/// ```
public final class ObjectScope: ObjectScopeProtocol, CustomStringConvertible, @unchecked Sendable {
    /// The scope's name in `Container.description`.
    public let description: String
    private let storageFactory: () -> InstanceStorage
    private let parent: ObjectScopeProtocol?

    /// A scope whose registrations each get a storage from `storageFactory`;
    /// with a `parent`, a `CompositeStorage` of that storage and the parent's.
    public init(storageFactory: @escaping () -> InstanceStorage, description: String = "", parent: ObjectScopeProtocol? = nil) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
    }

    /// A new storage for one registration.
    public func makeStorage() -> InstanceStorage {
        guard let parent else {
            return storageFactory()
        }
        return CompositeStorage([storageFactory(), parent.makeStorage()])
    }

    /// A new instance on every resolve.
    public static let transient = ObjectScope(storageFactory: TransientStorage.init, description: "transient")

    /// One instance per object graph (the default).
    public static let graph = ObjectScope(storageFactory: GraphStorage.init, description: "graph")

    /// One instance for the container and its children, until reset.
    public static let container = ObjectScope(storageFactory: PermanentStorage.init, description: "container")

    /// One instance while something else holds it strongly, and for the rest
    /// of the graph it was made in.
    public static let weak = ObjectScope(storageFactory: WeakStorage.init, description: "weak", parent: ObjectScope.graph)
}

extension ObjectScope {
    @available(*, unavailable, renamed: "transient")
    public static let none = transient

    @available(*, unavailable, renamed: "container")
    public static let hierarchy = container
}
