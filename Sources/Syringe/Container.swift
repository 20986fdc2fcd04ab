/// A dependency-injection container: register factories, resolve instances.
///
/// Resolution is lock-free: a resolve hashes its key with XXH3, probes a C
/// open-addressing table, and for a `.shared` instance that already exists
/// does one atomic load. Registering, removing and releasing are serialised
/// by a writer lock and may happen while other threads resolve.
///
/// ```swift
/// let container = Container()
/// container.register { _ in ConsoleLogger() as Logger }
/// container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }
/// let repo = container.resolve(type: Repo.self)
/// ```
///
/// A child container (`Container(parent:)`) resolves its own registrations
/// first, then its parent's. `.shared` instances live in the container that
/// holds the registration, and their factories resolve from that container,
/// so a parent's singleton never captures one child's override. `.new` and
/// `.graph` factories resolve from the container that was asked.
///
/// Registrations and instances that a lock-free reader may still be using
/// when they are replaced, removed or released are kept until the container
/// is destroyed; everything is freed then.
public final class Container: @unchecked Sendable {
    @usableFromInline
    let table: ResolutionTable
    /// The container consulted when a key is not registered here.
    public let parent: Container?
    private let writerLock = Lock()
    /// Guarded by `writerLock`.
    private var registry = Registry()

    /// Creates an empty container, optionally the child of `parent`.
    ///
    /// ```swift
    /// let app = Container()
    /// let test = Container(parent: app)   // overrides here, the rest from `app`
    /// ```
    public init(parent: Container? = nil) {
        self.table = ResolutionTable()
        self.parent = parent
    }

    deinit {
        // No reader can exist any more: nothing references this container.
        table.destroy()
    }
}

/// The writer-side bookkeeping of one container.
private struct Registry {
    /// Live definitions in registration order; removal leaves a hole (nil)
    /// until `compact()` closes them.
    var ordered: [AnyDefinition?] = []
    var holes = 0
    /// How many live definitions take runtime arguments.
    var withArguments = 0
    /// Replaced or removed definitions, released shared instances, replaced
    /// hooks: a lock-free reader may still hold them, so they live as long as
    /// the container.
    var retired: [AnyObject] = []

    var live: [AnyDefinition] { ordered.compactMap { $0 } }

    mutating func append(_ definition: AnyDefinition) {
        definition.order = ordered.count
        ordered.append(definition)
        if !definition.argumentTypes.isEmpty { withArguments += 1 }
    }

    mutating func replace(_ old: AnyDefinition, with new: AnyDefinition) {
        new.order = old.order
        ordered[old.order] = new
        if !old.argumentTypes.isEmpty { withArguments -= 1 }
        if !new.argumentTypes.isEmpty { withArguments += 1 }
        retired.append(old)
    }

    mutating func drop(_ old: AnyDefinition) {
        ordered[old.order] = nil
        holes += 1
        if !old.argumentTypes.isEmpty { withArguments -= 1 }
        retired.append(old)
        if holes > 32 && holes * 2 > ordered.count {
            compact()
        }
    }

    private mutating func compact() {
        ordered = ordered.compactMap { $0 }
        for (index, definition) in ordered.enumerated() {
            definition?.order = index
        }
        holes = 0
    }
}

// MARK: - Writers

extension Container {
    /// Publishes `definition`, replacing any registration of the same key.
    @usableFromInline
    func install(_ definition: AnyDefinition) {
        writerLock.withLock {
            insert(definition)
        }
    }

    /// Call with the writer lock held.
    private func insert(_ definition: AnyDefinition) {
        let raw = Unmanaged.passUnretained(definition).toOpaque()
        if let replaced = table.insert(definition.key, raw) {
            let old = Unmanaged<AnyDefinition>.fromOpaque(replaced).takeUnretainedValue()
            registry.replace(old, with: definition)
            dropAliases(of: old)
        } else {
            registry.append(definition)
        }
    }

    /// Whether `definition` is what its key leads to in this table now.
    /// Call with the writer lock held.
    private func isLive(_ definition: AnyDefinition) -> Bool {
        let key = definition.key
        let current = KeyName.withBytes(key.name) { name, length in
            table.lookup(type: key.type, signature: key.signature, name: name, length: length)
        }
        return current == Unmanaged.passUnretained(definition).toOpaque()
    }

    /// Publishes an alias of `target` (see `Registration.implements`), in one
    /// writer step with the check that `target` is still registered: an alias
    /// of a registration that was already replaced or removed would outlive it
    /// and forward to a retired definition, so it is not installed at all.
    func install(alias: AnyDefinition, of target: AnyDefinition) {
        writerLock.withLock {
            guard isLive(target) else { return }
            insert(alias)
            target.aliases.append(Unmanaged.passUnretained(alias))
        }
    }

    /// Removes every registration of `type` under `name`, whatever its
    /// runtime arguments. Instances already resolved are not affected.
    ///
    /// ```swift
    /// container.remove(type: Animal.self, name: "Cat")
    /// container.isRegistered(type: Animal.self, name: "Cat")   // false
    /// ```
    public func remove<T>(type: T.Type = T.self, name: String? = nil) {
        let key = DefinitionKey(type: typeIdentity(T.self), signature: NoArguments.identity, name: name)
        writerLock.withLock {
            remove(key)
            guard registry.withArguments > 0 else { return }
            for definition in registry.live
            where definition.key.type == key.type && definition.key.name == key.name && !definition.argumentTypes.isEmpty {
                remove(definition.key)
            }
        }
    }

    /// Removes every registration of this container (not its parent's).
    ///
    /// ```swift
    /// container.removeAll()
    /// ```
    public func removeAll() {
        writerLock.withLock {
            table.removeAll()
            let live = registry.live
            registry = Registry(retired: registry.retired + live)
        }
    }

    /// Drops this container's `.shared` instances; the next resolve of each
    /// creates a new one. `.weak` instances are unaffected: nothing holds them.
    ///
    /// Resolves running concurrently may still return the previous instance.
    /// The container keeps the previous instances until it is destroyed,
    /// because a lock-free reader may be returning one at this moment.
    ///
    /// ```swift
    /// container.releaseSharedInstances()   // e.g. on logout
    /// ```
    public func releaseSharedInstances() {
        writerLock.withLock {
            for definition in registry.live {
                if let box = definition.takeSharedInstance() {
                    registry.retired.append(box)
                }
            }
        }
    }

    /// Adds an `onResolved` callback to `definition`, retiring the callback
    /// list it replaces (a resolve may be running the old one).
    func addHook<T>(_ callback: @escaping Hooks<T>.Callback, to definition: Definition<T>) {
        writerLock.withLock {
            if let replaced = definition.addHook(callback) {
                registry.retired.append(replaced)
            }
        }
    }

    /// A snapshot of the live definitions in registration order, with holes
    /// (nil) where definitions were removed. Copy-on-write: O(1) under the lock.
    var definitionsSnapshot: [AnyDefinition?] {
        writerLock.withLock { registry.ordered }
    }

    /// Call with the writer lock held.
    private func remove(_ key: DefinitionKey) {
        guard let removed = table.remove(key) else { return }
        let old = Unmanaged<AnyDefinition>.fromOpaque(removed).takeUnretainedValue()
        registry.drop(old)
        dropAliases(of: old)
    }

    /// Aliases belong to the registration they forward to: they go with it.
    /// Call with the writer lock held.
    private func dropAliases(of definition: AnyDefinition) {
        for alias in definition.aliases.map({ $0.takeUnretainedValue() }) where isLive(alias) {
            // Not when the alias key was since taken by a newer registration.
            remove(alias.key)
        }
        definition.aliases.removeAll()
    }
}
