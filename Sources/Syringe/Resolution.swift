/// The resolution engine. Everything here is `@inlinable` so that the
/// caller's module specialises it for the concrete `T`: no metadata lookups,
/// no dynamic casts, no existential boxes on the path that finds an instance.

extension Container {
    /// Finds the definition of a key here or in an ancestor. Lock-free.
    @inlinable
    @inline(__always)
    func definition<T>(of type: T.Type, signature: UnsafeRawPointer, name: String?) -> (definition: Definition<T>, holder: Container)? {
        let typeID = typeIdentity(type)
        let found = KeyName.withBytes(name) { bytes, length in
            find(type: typeID, signature: signature, name: bytes, length: length)
        }
        guard let (raw, holder) = found ?? findCanonical(type: typeID, signature: signature, name: name) else {
            return nil
        }
        // The key's type identity is `T`'s, so the definition is a `Definition<T>`.
        let definition = unsafeDowncast(Unmanaged<AnyDefinition>.fromOpaque(raw).takeUnretainedValue(), to: Definition<T>.self)
        return (definition, holder)
    }

    @inlinable
    @inline(__always)
    func find(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: UnsafeRawPointer?, length: Int) -> (UnsafeMutableRawPointer, Container)? {
        var container = self
        while true {
            if let raw = container.table.lookup(type: type, signature: signature, name: name, length: length) {
                return (raw, container)
            }
            guard let parent = container.parent else {
                return nil
            }
            container = parent
        }
    }

    /// The miss path of a non-ASCII name: retry with its NFC form, which is
    /// what registrations store (see `KeyName`).
    @usableFromInline
    func findCanonical(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: String?) -> (UnsafeMutableRawPointer, Container)? {
        guard let canonical = KeyName.canonicalIfDifferent(name) else {
            return nil
        }
        return KeyName.withBytes(canonical) { bytes, length in
            find(type: type, signature: signature, name: bytes, length: length)
        }
    }

    /// Produces an instance from a definition found through this container.
    @inlinable
    @inline(__always)
    func resolve<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        if definition.kind == .shared, let instance = definition.sharedInstance() {
            return instance
        }
        let context = ResolutionContext.current
        guard context.isIdle else {
            return try build(definition, holder: holder, arguments: arguments, context: context)
        }
        // The outermost resolve on this thread: it owns the object graph.
        do {
            let instance = try build(definition, holder: holder, arguments: arguments, context: context)
            if context.hasDeferredWork {
                try context.finish()
            }
            return instance
        } catch {
            context.reset()
            throw error
        }
    }

    @inlinable
    func build<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        switch definition.kind {
        case .new:
            return try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
        case .shared:
            return try createShared(definition, holder: holder, arguments: arguments, context: context)
        case .graph:
            if let box = context.graphInstance(of: definition) {
                return unsafeDowncast(box, to: InstanceBox<T>.self).value
            }
            let instance = try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
            context.storeGraphInstance(InstanceBox(instance), of: definition)
            return instance
        case .weak:
            return try resolveWeak(definition, holder: holder, arguments: arguments, context: context)
        case .forward:
            // An alias has no frame of its own: its target's frame is the step.
            do {
                return try definition.factory(Resolver(container: holder), arguments)
            } catch {
                throw context.failure(error, in: definition)
            }
        }
    }

    /// Runs the factory inside a frame of its own (cycle detection, paths).
    @inlinable
    func construct<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try context.enter(definition)
        defer { context.leave() }
        return try invoke(definition, resolver: resolver, arguments: arguments, context: context)
    }

    /// Calls the factory and queues its `onResolved` callbacks. Call inside
    /// the definition's frame.
    @inlinable
    func invoke<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        let instance: T
        do {
            instance = try definition.factory(resolver, arguments)
        } catch {
            throw context.failure(error, in: definition)
        }
        if let hooks = definition.loadHooks() {
            context.deferCallbacks(definition) {
                for callback in hooks.callbacks {
                    try callback(resolver, instance)
                }
            }
        }
        return instance
    }

    /// Creates a `.shared` instance exactly once. Not inlined: it runs once
    /// per instance generation.
    @usableFromInline
    func createShared<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        // The cycle check comes before the lock: re-entering our own
        // non-recursive lock would deadlock instead of reporting the cycle.
        try context.enter(definition)
        defer { context.leave() }
        try InstanceCreation.acquire(definition, context: context)
        defer { InstanceCreation.release(definition) }
        if let instance = definition.sharedInstance() {
            return instance  // another thread created it while we waited
        }
        let instance = try invoke(definition, resolver: Resolver(container: holder), arguments: arguments, context: context)
        definition.publishShared(instance)
        return instance
    }

    /// Returns the live `.weak` instance or creates a new one.
    @usableFromInline
    func resolveWeak<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try context.enter(definition)
        defer { context.leave() }
        try InstanceCreation.acquire(definition, context: context)
        defer { InstanceCreation.release(definition) }
        let box = definition.weakBox!
        if let instance = box.load() {
            return instance
        }
        let instance = try invoke(definition, resolver: Resolver(container: holder), arguments: arguments, context: context)
        box.store(instance)
        return instance
    }

    /// A pointer standing in for an empty argument tuple; never dereferenced.
    @inlinable
    static var noArguments: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    }
}
