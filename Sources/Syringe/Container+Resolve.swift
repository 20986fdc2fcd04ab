public import CSyringeTable

/// Step 1 of a resolve: the public entry points. Each enters a read-side
/// section (what it reads without a lock stays allocated until the section
/// ends, see Reclamation.swift), finds the registration (`locate`,
/// Lookup.swift) and hands it to the engine (`produce`, Engine.swift).

extension Container {
    /// Resolves an instance, throwing a `ResolutionError` that says what is
    /// wrong: the request, the path to it, and near matches.
    ///
    /// ```swift
    /// let cat = try container.tryResolve(type: Animal.self, name: "Cat")
    /// let service: Service = try container.tryResolve()
    /// ```
    // Always inlined: the read-side section made it just big enough for the
    // inliner to call it out of line from small call sites (a closure per
    // type, as S7 has), which cost S7 20 to 45 instructions per resolve.
    @inlinable
    @inline(__always)
    public func tryResolve<T>(type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let located = locate(type: typeIdentity(T.self), signature: NoArguments.identity, name: name) else {
            try throwNotRegistered(T.self, name: name)
        }
        return try produce(located, as: T.self, arguments: Container.noArguments)
    }

    /// Resolves an instance registered with runtime arguments of these types,
    /// in this order.
    ///
    /// ```swift
    /// let endpoint = try container.tryResolve(type: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
    /// ```
    @inlinable
    public func tryResolve<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        arguments: repeat each Argument
    ) throws(ResolutionError) -> T {
        let signature = ArgumentSignature<repeat each Argument>.identity
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let located = locate(type: typeIdentity(T.self), signature: signature, name: name) else {
            throw notRegistered(T.self, name: name, signature: signature, argumentTypes: ArgumentSignature<repeat each Argument>.types)
        }
        return try withUnsafePointer(to: (repeat each arguments)) { (tuple) throws(ResolutionError) -> T in
            try produce(located, as: T.self, arguments: UnsafeRawPointer(tuple))
        }
    }

    /// Resolves an instance, stopping the program with the full diagnostic if
    /// that fails, reported at the caller's file and line. Use `tryResolve`
    /// to handle the error instead.
    ///
    /// ```swift
    /// let dog = container.resolve(type: Dog.self)
    /// let service: Service = container.resolve()
    /// ```
    // Always inlined, like `tryResolve`, for the same reason.
    @inlinable
    @inline(__always)
    public func resolve<T>(type: T.Type = T.self, name: String? = nil, file: StaticString = #fileID, line: UInt = #line) -> T {
        do {
            return try tryResolve(type: type, name: name)
        } catch {
            Container.fail(error, file: file, line: line)
        }
    }

    /// Resolves an instance registered with runtime arguments, stopping the
    /// program with the full diagnostic if that fails.
    ///
    /// ```swift
    /// let numbered = container.resolve(type: Numbered.self, arguments: 42)
    /// let other: Numbered = container.resolve(arguments: 7)
    /// ```
    @inlinable
    public func resolve<T, each Argument>(type: T.Type = T.self, name: String? = nil, arguments: repeat each Argument,
                                          file: StaticString = #fileID, line: UInt = #line) -> T {
        do {
            return try tryResolve(type: type, name: name, arguments: repeat each arguments)
        } catch {
            Container.fail(error, file: file, line: line)
        }
    }

    /// Resolves an instance if one is registered; nil only when nothing is
    /// registered for the type and name without runtime arguments (one that
    /// takes arguments is resolved with `tryResolve(type:name:arguments:)`).
    /// Any other failure (a missing
    /// dependency, a cycle, a throwing factory, a closed container) stops
    /// the program with its diagnostic, as `resolve` does.
    ///
    /// ```swift
    /// let lion = container.resolveIfRegistered(type: Animal.self, name: "Lion")   // nil
    /// ```
    @inlinable
    public func resolveIfRegistered<T>(type: T.Type = T.self, name: String? = nil, file: StaticString = #fileID, line: UInt = #line) -> T? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let located = locate(type: typeIdentity(T.self), signature: NoArguments.identity, name: name) else {
            if isClosedOnChainNow {
                Container.fail(notRegistered(T.self, name: name, signature: NoArguments.identity, argumentTypes: []), file: file, line: line)
            }
            return nil
        }
        do {
            return try produce(located, as: T.self, arguments: Container.noArguments)
        } catch {
            Container.fail(error, file: file, line: line)
        }
    }

    /// Whether `resolve(type:name:)` would find a registration here or in a
    /// parent: false once this container or an ancestor is closed, as
    /// nothing resolves from it then.
    ///
    /// ```swift
    /// container.isRegistered(type: Animal.self, name: "Cat")   // true
    /// ```
    @inlinable
    public func isRegistered<T>(type: T.Type = T.self, name: String? = nil) -> Bool {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return locate(type: typeIdentity(T.self), signature: NoArguments.identity, name: name) != nil && !isClosedOnChainNow
    }

    /// Whether a registration taking runtime arguments of these types, in this
    /// order, exists here or in a parent (false once this container or an
    /// ancestor is closed).
    ///
    /// ```swift
    /// container.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: String.self, Int.self, Bool.self)
    /// ```
    @inlinable
    public func isRegistered<T, each Argument>(
        type: T.Type = T.self,
        name: String? = nil,
        argumentTypes: repeat (each Argument).Type
    ) -> Bool {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        return locate(type: typeIdentity(T.self), signature: ArgumentSignature<repeat each Argument>.identity, name: name) != nil
            && !isClosedOnChainNow
    }

    /// Stops the program with `error`'s diagnostic, reported at the
    /// caller's `file` and `line` (not a line of Syringe's).
    @usableFromInline
    static func fail(_ error: ResolutionError, file: StaticString, line: UInt) -> Never {
        fatalError(error.description, file: file, line: line)
    }
}
