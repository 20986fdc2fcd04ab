/// The resolution engine.
///
/// Split for speed and code size. Per requested type `T`, only a thin
/// `@inlinable` path is specialised into the caller: it calls the shared,
/// non-generic `locate` (hash, probe, parent chain) and returns an existing
/// `.shared` instance with one acquire load and no retain but the instance's.
/// Everything else (scopes, the per-thread context, factories) is in
/// `resolveSlowly` (which builds `.new` itself) and `build` (the other
/// scopes), both specialised for `T` but kept out of line, so that a program
/// resolving a thousand types does not carry a thousand copies of them on its
/// hot path.

/// Where a key was found: the definition and the container that holds it.
/// Unretained: the holder is `self` or one of its ancestors (kept alive by
/// `self`), and the holder's registry keeps the definition alive.
@usableFromInline
struct Located {
    @usableFromInline
    let definition: UnsafeMutableRawPointer
    @usableFromInline
    let holder: Unmanaged<Container>

    @usableFromInline
    init(definition: UnsafeMutableRawPointer, holder: Unmanaged<Container>) {
        self.definition = definition
        self.holder = holder
    }
}

extension Container {
    /// Finds a key here or in an ancestor. Lock-free.
    ///
    /// Inlined only to pick one of two shared, out-of-line lookups: when the
    /// caller passes no name (nearly always, and usually known at compile
    /// time) the string handling of named keys is not even called.
    @inlinable
    @inline(__always)
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: String?) -> Located? {
        if let name {
            return locate(type: type, signature: signature, named: name)
        }
        return locate(type: type, signature: signature)
    }

    /// Finds an unnamed key. One copy for all types.
    @usableFromInline
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer) -> Located? {
        find(type: type, signature: signature, name: nil, length: KeyName.absent)
    }

    /// Finds a named key. One copy for all types.
    @usableFromInline
    func locate(type: UnsafeRawPointer, signature: UnsafeRawPointer, named name: String) -> Located? {
        let found = KeyName.withBytes(name) { bytes, length in
            find(type: type, signature: signature, name: bytes, length: length)
        }
        if let found {
            return found
        }
        // The miss path of a non-ASCII name: retry with its NFC form, which is
        // what registrations store (see `KeyName`).
        guard let canonical = KeyName.canonicalIfDifferent(name) else {
            return nil
        }
        return KeyName.withBytes(canonical) { bytes, length in
            find(type: type, signature: signature, name: bytes, length: length)
        }
    }

    @inline(__always)
    private func find(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: UnsafeRawPointer?, length: Int) -> Located? {
        var container = Unmanaged.passUnretained(self)
        while true {
            if let raw = container._withUnsafeGuaranteedRef({ $0.table.lookup(type: type, signature: signature, name: name, length: length) }) {
                return Located(definition: raw, holder: container)
            }
            let parent: Unmanaged<Container>? = container._withUnsafeGuaranteedRef { current in
                current.parent.map { Unmanaged.passUnretained($0) }
            }
            guard let parent else {
                return nil
            }
            container = parent
        }
    }

    /// Produces an instance from what `locate` found.
    @inlinable
    @inline(__always)
    func resolve<T>(_ located: Located, as type: T.Type, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        try resolve(Unmanaged<Definition<T>>.fromOpaque(located.definition), holder: located.holder, arguments: arguments)
    }

    /// Produces an instance from a definition held by `holder`.
    @inlinable
    func resolve<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        try resolve(.passUnretained(definition), holder: .passUnretained(holder), arguments: arguments)
    }

    /// The one fast path: an existing `.shared` instance, through a guaranteed
    /// reference; everything else out of line.
    @inlinable
    @inline(__always)
    func resolve<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        if let instance = definition._withUnsafeGuaranteedRef({ $0.sharedInstance() }) {
            return instance
        }
        return try resolveSlowly(definition, holder: holder, arguments: arguments)
    }

    /// Everything but an existing `.shared` instance.
    ///
    /// Takes unretained handles and works on guaranteed references: the
    /// definition, its holder and this thread's context all outlive the call
    /// (see `Located` and `ResolutionContext`), and retaining them would cost
    /// a third of a `.new` resolve. A `.new` definition, the common case, is
    /// built right here; the other scopes go through `build`.
    @inlinable
    @inline(never)
    func resolveSlowly<T>(_ definition: Unmanaged<Definition<T>>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer) throws(ResolutionError) -> T {
        try guaranteed(definition) { (definition) throws(ResolutionError) -> T in
            try guaranteed(ResolutionContext.currentUnretained) { (context) throws(ResolutionError) -> T in
                // Started while the context is idle: the outermost resolve on
                // this thread, which owns the object graph.
                let outermost = context.isIdle
                do throws(ResolutionError) {
                    let instance = definition.kind == .new
                        ? try construct(definition, resolver: Resolver(container: self), arguments: arguments, context: context)
                        : try build(definition, holder: holder, arguments: arguments, context: context)
                    if outermost && context.hasDeferredWork {
                        try context.finish()
                    }
                    return instance
                } catch {
                    if outermost {
                        context.reset()
                    }
                    throw error
                }
            }
        }
    }

    /// Every scope but `.new`, which `resolveSlowly` builds itself. Specialised
    /// for `T` like `resolveSlowly`, and out of line like it.
    @inlinable
    @inline(never)
    func build<T>(_ definition: Definition<T>, holder: Unmanaged<Container>, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        try guaranteed(holder) { (holder) throws(ResolutionError) -> T in
            switch definition.kind {
            case .new:
                // Not reached from `resolveSlowly`, which builds `.new` itself;
                // built the same way here so that the switch needs no trap.
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
    @inline(__always)
    func invoke<T>(_ definition: Definition<T>, resolver: Resolver, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        let instance: T
        do {
            instance = try definition.factory(resolver, arguments)
        } catch {
            throw context.failure(error, in: definition)
        }
        if let hooks = definition.loadHooks() {
            context.deferCallbacks(hooks, of: definition, resolver: resolver, instance: instance)
        }
        return instance
    }

    /// Creates a `.shared` instance exactly once. Not inlined: it runs once
    /// per instance generation.
    @usableFromInline
    func createShared<T>(_ definition: Definition<T>, holder: Container, arguments: UnsafeRawPointer, context: ResolutionContext) throws(ResolutionError) -> T {
        // The cycle check comes before the claim: waiting for our own claim
        // would never end instead of reporting the cycle.
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

    /// Runs `body` with a guaranteed (unretained) reference to `object`.
    @inlinable
    @inline(__always)
    func guaranteed<Object: AnyObject, R>(_ object: Unmanaged<Object>, _ body: (Object) throws(ResolutionError) -> R) throws(ResolutionError) -> R {
        try object._withUnsafeGuaranteedRef { guaranteed in
            Result { () throws(ResolutionError) -> R in try body(guaranteed) }
        }.get()
    }

    /// A pointer standing in for an empty argument tuple; never dereferenced.
    @inlinable
    static var noArguments: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    }
}
