import CSyringeTable

/// The async entry points: `resolveAsync` and its variants. Each finds the
/// key as `tryResolve` does and returns an existing `.shared` instance the
/// same way; anything else goes to the async engine (AsyncEngine.swift).
///
/// They have names of their own, not `async` overloads of `tryResolve`:
/// Swift prefers an async overload in an async function, so code that calls
/// `tryResolve` there today would stop compiling without `await`, and would
/// lose the synchronous fast path.
extension Container {
    /// Resolves an instance asynchronously: a registration with an async
    /// factory, or any other one. Throws a `ResolutionError` as `tryResolve`
    /// does.
    ///
    /// Tasks asking at once for a `.shared` instance that an async factory is
    /// creating suspend until it exists; none of them blocks a thread.
    ///
    /// ```swift
    /// container.register(type: Database.self) { (r: Resolver) async throws in
    ///     try await Database.connect(config: r.resolve())
    /// }
    /// let db = try await container.resolveAsync(type: Database.self)
    /// let repo: Repo = try await container.resolveAsync()
    /// ```
    @inlinable
    @inline(__always)
    nonisolated(nonsending) public func resolveAsync<T>(type: T.Type = T.self, name: String? = nil) async throws(ResolutionError) -> T {
        try await resolveAsync(type: type, name: name, parent: nil)
    }

    /// Resolves an instance registered with runtime arguments of these types,
    /// in this order, asynchronously.
    ///
    /// ```swift
    /// let report = try await container.resolveAsync(type: Report.self, arguments: 11)
    /// ```
    @inlinable
    nonisolated(nonsending) public func resolveAsync<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        arguments: repeat each Argument
    ) async throws(ResolutionError) -> T {
        try await resolveAsync(type: type, name: name, arguments: repeat each arguments, parent: nil)
    }

    /// Resolves an instance asynchronously if one is registered; nil only
    /// when nothing is registered for the type and name. Other failures throw.
    ///
    /// ```swift
    /// let analytics: Analytics? = try await container.resolveIfRegisteredAsync()
    /// ```
    @inlinable
    nonisolated(nonsending) public func resolveIfRegisteredAsync<T>(type: T.Type = T.self, name: String? = nil) async throws(ResolutionError) -> T? {
        try await resolveIfRegisteredAsync(type: type, name: name, parent: nil)
    }

    /// Resolves every registration of `type` (argument-free, any name) here
    /// and in the parents, asynchronously, in the order `resolveAll` uses;
    /// each element is a resolve of its own, with its own object graph, as
    /// in `resolveAll`.
    ///
    /// ```swift
    /// let plugins = try await container.resolveAllAsync(type: Plugin.self)
    /// ```
    nonisolated(nonsending) public func resolveAllAsync<T>(type: T.Type = T.self) async throws(ResolutionError) -> [T] {
        try await resolveAllAsync(type: type, parent: nil)
    }

    @inlinable
    @inline(__always)
    nonisolated(nonsending) func resolveAsync<T>(type: T.Type, name: String?, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        guard let instance = try await resolveIfRegisteredAsync(type: type, name: name, parent: parent) else {
            throw notRegistered(T.self, name: name, signature: NoArguments.identity, argumentTypes: [], asyncParent: parent)
        }
        return instance
    }

    @usableFromInline
    nonisolated(nonsending) func resolveAsync<T, each Argument>(type: T.Type, name: String?, arguments: repeat each Argument, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        let signature = ArgumentSignature<repeat each Argument>.identity
        switch startAsync(T.self, name: name, signature: signature) {
        case .instance(let instance)?:
            return instance
        case .definition(let retained, let holder)?:
            let definition = retained.takeRetainedValue()
            // On the heap: the tuple must outlive suspensions, which a
            // `withUnsafePointer` body cannot contain.
            let tuple = UnsafeMutablePointer<(repeat each Argument)>.allocate(capacity: 1)
            tuple.initialize(to: (repeat each arguments))
            defer {
                tuple.deinitialize(count: 1)
                tuple.deallocate()
            }
            return try await Self.produceAsync(definition, in: .passUnretained(self), holder: holder, arguments: UnsafeRawPointer(tuple), parent: parent)
        case nil:
            throw notRegistered(T.self, name: name, signature: signature,
                                argumentTypes: ArgumentSignature<repeat each Argument>.types, asyncParent: parent)
        }
    }

    // Always inlined into the caller, and `produceAsync` called out of
    // line: an existing instance is returned with no async call at all (A1),
    // and everything else pays one.
    @inlinable
    @inline(__always)
    nonisolated(nonsending) func resolveIfRegisteredAsync<T>(type: T.Type, name: String?, parent: AsyncFrame?) async throws(ResolutionError) -> T? {
        switch startAsync(T.self, name: name, signature: NoArguments.identity) {
        case .instance(let instance)?:
            return instance
        case .definition(let retained, let holder)?:
            let definition = retained.takeRetainedValue()
            // `parent` is a literal nil in `resolveAsync`, where this is inlined.
            guard let parent else {
                return try await produceAsyncOutermost(definition, holder: holder, arguments: Container.noArguments)
            }
            return try await Self.produceAsyncOutOfLine(definition, in: .passUnretained(self), holder: holder, arguments: Container.noArguments, parent: parent)
        case nil:
            if isClosedOnChainNow {
                throw notRegistered(T.self, name: name, signature: NoArguments.identity, argumentTypes: [], asyncParent: parent)
            }
            return nil
        }
    }

    /// `resolveAsync(type:name:parent:)` for an async factory's `Resolver`,
    /// inlined into the factory: an existing instance is returned, and an
    /// async `.new` registration's factory is called, from the asking
    /// factory's own frame (`enterFrameIfNewAsync`, `constructNewAsync`);
    /// everything else is one call out of line (`produceAsyncOutOfLine`).
    ///
    /// Kept under 64 basic blocks, inlined code included: Swift inlines an
    /// `@inline(__always)` function into a caller that already has 64 or
    /// more (a factory that has inlined one resolve) only below that, and
    /// otherwise calls it, a task frame and about 100 instructions more per
    /// resolve. About 56 now (`swiftc -emit-sil -O` on a factory with two
    /// resolves: 112 blocks), which is why the fast path's checks are made
    /// out of line, in `enterFrameIfNewAsync`. CI checks it
    /// (`Benchmarks/check-inlining.sh`).
    ///
    /// Inlined, it runs on the factory's executor: a trailing-closure
    /// factory (`nonisolated(nonsending)`) runs on its resolver's, with no
    /// switch; a plain `@Sendable` async one (`factory:`) switches to the
    /// global executor before this synchronous code, about 75 instructions,
    /// which is still less than the frame from the task's allocator the
    /// call this was, out of line, took at every level of an async graph
    /// (about 120 with its deallocation). A factory with one
    /// `try await r.resolve()` is about 3.4 KB of code.
    ///
    /// Static, `container` unretained: the resolver that asks holds it, or
    /// its frame's engine call does (see `Resolver.containerReference`).
    @inlinable
    @inline(__always)
    nonisolated(nonsending) static func resolveAsyncFromFactory<T>(_ container: Unmanaged<Container>, type: T.Type, name: String?, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        switch container.withBorrowed({ $0.startAsync(T.self, name: name, signature: NoArguments.identity) }) {
        case .instance(let instance)?:
            return instance
        case .definition(let retained, let holder)?:
            let definition = retained.takeRetainedValue()
            guard let frame = try definition.enterFrameIfNewAsync(below: parent, lending: container) else {
                return try await produceAsyncOutOfLine(definition, in: container, holder: holder, arguments: Container.noArguments, parent: parent)
            }
            return try await constructNewAsync(definition, resolver: Resolver(lentBy: consume frame, container: container),
                                             arguments: Container.noArguments)
        case nil:
            throw container.withBorrowed { $0.notRegistered(T.self, name: name, signature: NoArguments.identity, argumentTypes: [], asyncParent: parent) }
        }
    }

    /// `resolveAsyncFromFactory`, out of line: for the resolves of
    /// `autoregister(type:name:in:initializer:)`, one per element of a
    /// parameter pack, which Swift 6.3.1 crashes on (signal 11, emitting IR)
    /// with the resolve inlined, and for unspecialised code.
    @inline(never)
    nonisolated(nonsending) static func resolveAsyncFromFactoryOutOfLine<T>(_ container: Unmanaged<Container>, type: T.Type, name: String? = nil, parent: AsyncFrame?) async throws(ResolutionError) -> T {
        try await resolveAsyncFromFactory(container, type: type, name: name, parent: parent)
    }

    nonisolated(nonsending) func resolveAllAsync<T>(type: T.Type, parent: AsyncFrame?) async throws(ResolutionError) -> [T] {
        // As `tryResolveAll`.
        if isClosed {
            throw notRegistered(T.self, name: nil, signature: NoArguments.identity, argumentTypes: [], asyncParent: parent)
        }
        var instances: [T] = []
        for (definition, holder) in registrations(of: T.self) {
            if !syr_observed(), let box = definition.sharedBoxInSection() {
                instances.append(box.value(as: T.self))
            } else {
                instances.append(try await Self.produceAsync(definition, in: .passUnretained(self), holder: .passUnretained(holder), arguments: Container.noArguments, parent: parent))
            }
        }
        return instances
    }
}
