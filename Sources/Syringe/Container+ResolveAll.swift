import CSyringeTable

extension Container {
    /// Resolves one instance per registration of `type` without runtime
    /// arguments, named and unnamed, here and in every ancestor.
    ///
    /// Order: registration order, the root ancestor's first. A registration
    /// in a child that overrides an ancestor's (same type and name) takes the
    /// ancestor's place. Empty when there are none. Stops the program with
    /// the diagnostic if one of them fails; use `tryResolveAll` to handle it.
    ///
    /// Each element is resolved as `resolve` would resolve it alone: called
    /// from outside any resolve, each builds an object graph of its own
    /// (their `.graph` dependencies are not shared between them); called from
    /// a factory, they all join that factory's resolve and share its graph.
    ///
    /// ```swift
    /// container.register(type: Plugin.self, name: "a") { _ in APlugin() }
    /// container.register(type: Plugin.self, name: "b") { _ in BPlugin() }
    /// let plugins = container.resolveAll(type: Plugin.self)   // [APlugin, BPlugin]
    /// ```
    public func resolveAll<T>(type: T.Type = T.self, file: StaticString = #fileID, line: UInt = #line) -> [T] {
        do {
            return try tryResolveAll(type: type)
        } catch {
            Container.fail(error, file: file, line: line)
        }
    }

    /// `resolveAll(type:)`, throwing the first failure.
    ///
    /// ```swift
    /// let plugins = try container.tryResolveAll(type: Plugin.self)
    /// ```
    public func tryResolveAll<T>(type: T.Type = T.self) throws(ResolutionError) -> [T] {
        // As a resolve of one of them would: a closed container resolves
        // nothing, not even its ancestors' existing `.shared` instances;
        // an open child of a closed one returns the instances that exist
        // and fails on one it would have to create (see `produce`).
        if isClosed {
            throw notRegistered(T.self, name: nil, signature: NoArguments.identity, argumentTypes: [])
        }
        let found = registrations(of: T.self)
        // The definitions are held; the section keeps what they point to (a
        // `.shared` instance's box) alive while it is read.
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        var instances: [T] = []
        instances.reserveCapacity(found.count)
        for (definition, holder) in found {
            instances.append(try produce(Located(definition, in: holder), as: T.self, arguments: Container.noArguments))
        }
        return instances
    }

    /// The argument-free registrations of `T`, one per name (a child's
    /// replacing its ancestors'), the root's first, each with its holder.
    /// Up to the first closed container on the way, as a resolve looks
    /// them up (see `walkAncestors`): a closed one reads as one without a
    /// parent.
    func registrations<T>(of type: T.Type) -> [(definition: Definition<T>, holder: Container)] {
        var chain: [Container] = []
        var container: Container? = self
        while let current = container {
            chain.append(current)
            container = current.isClosedNow ? nil : current.parent
        }
        let wanted = typeIdentity(T.self)
        var found: [(definition: Definition<T>, holder: Container)] = []
        var position: [String?: Int] = [:]
        for holder in chain.reversed() {
            for case let definition? in holder.definitionsSnapshot
            where definition.key.type == wanted && definition.key.signature == NoArguments.identity
                && definition.kind != .scopeLocal {
                // The key's type identity is `T`'s.
                let entry = (unsafeDowncast(definition, to: Definition<T>.self), holder)
                if let index = position[definition.key.name] {
                    found[index] = entry
                } else {
                    position[definition.key.name] = found.count
                    found.append(entry)
                }
            }
        }
        return found
    }
}
