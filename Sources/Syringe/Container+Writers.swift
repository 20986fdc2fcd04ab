/// Writers: registration, removal, release. Serialised by the container's
/// writer lock; resolves never take it.
///
/// What a writer unpublishes (a replaced or removed definition, a released
/// `.shared` instance's box, a replaced hook list) may still be in use by a
/// resolve on another thread, so it is retired (`Reclamation.retire`), not
/// released, and freed when those resolves have returned. Every writer polls
/// the reclaimer after releasing its lock: with no resolve in flight, what it
/// retired is freed before it returns.
extension Container {
    /// Publishes `definition`, replacing any registration of the same key.
    @usableFromInline
    func install(_ definition: AnyDefinition) {
        writerLock.withLock {
            if isClosedNow {
                installClosedLocked(definition)
            } else {
                insertLocked(definition)
            }
        }
        Reclamation.poll()
    }

    /// A registration made in a closed container: kept, but an instance it
    /// was given (`register(type:name:instance:)`) is taken out again, as
    /// `close()` took the others', so that its resolves reach the engine's
    /// closed check (`produceSlowly`) instead of reading the instance. Not
    /// disposed: it came after the close. Call with the writer lock held.
    ///
    /// The flag is read under the lock, and `close()` sets it before taking
    /// the lock to take the instances: if its section has run, this one
    /// sees the flag; if it has not, it takes this instance itself.
    private func installClosedLocked(_ definition: AnyDefinition) {
        insertLocked(definition)
        // Kept, not released: a resolve may have found the registration
        // since it was inserted, and be reading the box.
        if let pending = definition.takeSharedInstanceForClosing(keeping: &keptBoxes), let box = pending.retiring {
            keptBoxes.keep(box)
        }
    }

    /// Call with the writer lock held.
    /// Consuming: a definition made for the call moves into the registry
    /// without a retain of its own. Always inlined: a request's scope
    /// installs its values and copies through it, and out of line it took
    /// the key's name string with a retain and a release more.
    ///
    /// `aliasTarget`: the registration `definition` forwards to, if it is an
    /// alias; one that replaces its own target (a registration that
    /// `implements` its own type and name) leaves it reachable through the
    /// alias, so not retired for the resolves that found it (see
    /// `Definition.isRetired`).
    ///
    /// A scope's copy of a `.scoped` registration that a registration made
    /// in the scope replaces (a per-request value of the same type, say)
    /// stays in the registry, unreachable by key but not retired: the
    /// instance it holds is one the scope created, and the scope's `close()`
    /// disposes it with the others, however the key was written since.
    @inline(__always)
    func insertLocked(_ definition: consuming AnyDefinition, aliasTarget: AnyDefinition? = nil) {
        let raw = Unmanaged.passUnretained(definition).toOpaque()
        if let replaced = table.insert(definition.key, raw) {
            let old = Unmanaged<AnyDefinition>.fromOpaque(replaced).takeUnretainedValue()
            guard old.kind != .scopeLocal else {
                registry.hasHiddenCopies = true
                registry.append(consume definition)
                return
            }
            registry.replace(old, with: definition)
            dropAliases(of: old)
            retire(old, reachable: old === aliasTarget)
        } else {
            registry.append(consume definition)
        }
    }

    /// Whether `definition` is what its key leads to in this table now.
    /// Call with the writer lock held.
    func isLive(_ definition: AnyDefinition) -> Bool {
        lookup(definition.key) === definition
    }

    /// The definition this container's own table has for `key`. Inside a
    /// read-side section or under the writer lock.
    func lookup(_ key: DefinitionKey) -> AnyDefinition? {
        lookupUnretained(key)?.takeUnretainedValue()
    }

    /// `lookup`, unretained: valid while the registry holds the definition,
    /// or, once it is replaced or removed, until the caller's read-side
    /// section ends.
    func lookupUnretained(_ key: DefinitionKey) -> Unmanaged<AnyDefinition>? {
        let raw = key.name.map { table.lookup(type: key.type, signature: key.signature, named: $0) }
            ?? table.lookup(type: key.type, signature: key.signature)
        return raw.map { Unmanaged<AnyDefinition>.fromOpaque($0) }
    }

    /// Publishes an alias of `target` (see `Registration.implements`), in one
    /// writer step with the check that `target` is still registered: an alias
    /// of a registration that was already replaced or removed would outlive it
    /// and forward to a retired definition, so it is not installed at all.
    func install(alias: AnyDefinition, of target: AnyDefinition) {
        writerLock.withLock {
            guard isLive(target) else { return }
            insertLocked(alias, aliasTarget: target)
            // An alias replaced or removed on its own stays in the list until
            // here: drop those, so the list holds only what is live.
            var aliases = registry.aliases.removeValue(forKey: ObjectIdentifier(target)) ?? []
            aliases.removeAll { !isLive($0) }
            aliases.append(alias)
            registry.aliases[ObjectIdentifier(target)] = aliases
        }
        Reclamation.poll()
    }

    /// Removes every registration of `type` under `name`, whatever its
    /// runtime arguments. Instances already resolved are not affected; the
    /// container's own references go as `releaseSharedInstances()` describes.
    /// A scope's `.scoped` instances are not registrations of the scope: they
    /// stay until it closes.
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
            where definition.key.type == key.type && definition.key.name == key.name && definition.takesArguments {
                remove(definition.key)
            }
        }
        Reclamation.poll()
    }

    /// Removes every registration of this container (not its parent's). A
    /// scope's `.scoped` instances stay until it closes.
    ///
    /// ```swift
    /// container.removeAll()
    /// ```
    public func removeAll() {
        writerLock.withLock {
            let live = registry.live
            guard live.allSatisfy({ $0.kind != .scopeLocal }) else {
                // A scope with `.scoped` instances: its registrations go one
                // by one, and its copies of `.scoped` registrations stay.
                for definition in live where definition.kind != .scopeLocal && isLive(definition) {
                    remove(definition.key)
                }
                return
            }
            table.removeAll()
            for definition in live {
                retire(definition)
            }
            registry = Registry()
        }
        Reclamation.poll()
    }

    /// Drops this container's `.shared` instances; the next resolve of each
    /// creates a new one. `.weak` instances are unaffected: nothing holds them,
    /// and neither are a scope's `.scoped` instances: each is its scope's one
    /// instance until the scope closes.
    ///
    /// When it returns, an instance that nothing outside the container holds
    /// has been deinitialised, unless a resolve was running on another thread
    /// at that moment (that resolve may be returning it): then Syringe's
    /// reclaimer thread deinitialises it within about 16 ms of those resolves
    /// returning, with no further call needed. Called from inside a factory or
    /// an `onResolved` callback, it never waits and never deadlocks; the
    /// instances go once that outermost resolve has returned.
    ///
    /// ```swift
    /// container.releaseSharedInstances()   // e.g. on logout: the session's objects deinitialise
    /// ```
    public func releaseSharedInstances() {
        writerLock.withLock {
            for definition in registry.live where definition.kind != .scopeLocal {
                if let box = definition.takeSharedInstance(keepingGiven: true) {
                    Reclamation.retire(box)
                }
            }
        }
        Reclamation.poll()
    }

    /// Adds a disposer to `definition`, retiring the hook list it replaces.
    func addDisposer<T>(_ disposer: Disposer<T>, to definition: Definition<T>) {
        replaceHooks { definition.addDisposer(disposer) }
    }

    /// Adds an `onResolved` callback to `definition`, retiring the callback
    /// list it replaces (a resolve may be running the old one).
    func addHook<T>(_ callback: @escaping Hooks<T>.Callback, to definition: Definition<T>) {
        replaceHooks { definition.addHook(callback) }
    }

    /// Runs `replace` (which installs a definition's new hook list and
    /// returns the old one) under the writer lock, and retires the old list.
    private func replaceHooks(_ replace: () -> AnyObject?) {
        writerLock.withLock {
            if let replaced = replace() {
                Reclamation.retire(replaced)
            }
        }
        Reclamation.poll()
    }

    /// A snapshot of the live definitions in registration order, with holes
    /// (nil) where definitions were removed. Copy-on-write: O(1) under the lock.
    var definitionsSnapshot: [AnyDefinition?] {
        writerLock.withLock { registry.ordered }
    }

    /// Call with the writer lock held. A scope's copy of a `.scoped`
    /// registration under `key` stays: it is not a registration of the
    /// scope, and its instance is disposed when the scope closes.
    private func remove(_ key: DefinitionKey) {
        if let found = lookupUnretained(key), found._withUnsafeGuaranteedRef({ $0.kind == .scopeLocal }) {
            return
        }
        guard let removed = table.remove(key) else { return }
        let old = Unmanaged<AnyDefinition>.fromOpaque(removed).takeUnretainedValue()
        registry.drop(old)
        dropAliases(of: old)
        retire(old)
        // A registration made in a scope over its copy of a `.scoped`
        // registration (a per-request value of the same key) hid the copy,
        // which the registry kept (see `insertLocked`): the key leads to it
        // again, the scope's one instance, rather than to a second copy.
        if isScope, let hidden = registry.live.first(where: { $0.kind == .scopeLocal && $0.key == key }) {
            _ = table.insert(key, Unmanaged.passUnretained(hidden).toOpaque())
        }
    }

    /// Retires a definition that was replaced or removed, and its `.shared`
    /// instance apart from it: a `Registration` the caller kept holds the
    /// definition, and must not keep the instance alive too.
    ///
    /// The `.shared` instance is taken only once every resolve that may have
    /// found the definition before it was unpublished has ended (its
    /// read-side section, through the reclaimer, `ReleaseSharedInstance`):
    /// taken at once, a resolve that had just found the definition saw no
    /// instance and built a second one. `reachable`: still resolved through
    /// an alias that replaced it (see `insertLocked`), so neither retired
    /// for resolves nor emptied.
    private func retire(_ definition: AnyDefinition, reachable: Bool = false) {
        forgetObservedEdges(from: definition)
        if !reachable {
            // Before the instance goes: a resolve holding the definition
            // past its section that then finds no instance sees it (see
            // `Definition.isRetired`).
            definition.retiredFlag.store(true, ordering: .releasing)
            Reclamation.retire(ReleaseSharedInstance(definition))
        }
        Reclamation.retire(definition)
    }

    /// Aliases belong to the registration they forward to: they go with it.
    /// Call with the writer lock held.
    private func dropAliases(of definition: AnyDefinition) {
        guard let aliases = registry.aliases.removeValue(forKey: ObjectIdentifier(definition)) else { return }
        for alias in aliases where isLive(alias) {
            // Not when the alias key was since taken by a newer registration.
            remove(alias.key)
        }
    }
}

/// Takes a retired definition's `.shared` instance when the reclaimer frees
/// it, after the read-side sections that could have found the definition
/// in a table have ended (see `Container.retire`), and hands the instance's
/// box to the reclaimer in turn: a resolve that holds the definition past
/// its section (an async one) may be reading the box in a section of its
/// own. `Reclamation.poll` frees that box in the same call when nothing
/// reads it. Holds the definition until then.
final class ReleaseSharedInstance {
    let definition: AnyDefinition

    init(_ definition: AnyDefinition) {
        self.definition = definition
    }

    deinit {
        // A given instance too (see `retire`).
        if let box = definition.takeSharedInstance(keepingGiven: false) {
            Reclamation.retire(box)
        }
    }
}
