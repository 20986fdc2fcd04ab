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
        let current = key.name.map { table.lookup(type: key.type, signature: key.signature, named: $0) }
            ?? table.lookup(type: key.type, signature: key.signature)
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

    /// Keeps `object` (a retracted instance box) alive as long as the
    /// container: a lock-free reader may be reading it.
    func retire(_ object: AnyObject) {
        writerLock.withLock {
            registry.retired.append(object)
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
