extension Container {
    /// Registers an initializer whose every parameter is resolved by type.
    ///
    /// ```swift
    /// container.autoregister(initializer: Dependency.init)            // Dependency(manager: Manager)
    /// container.autoregister(type: Wide.self, in: .new, initializer: Wide.init)   // any number of parameters
    /// ```
    ///
    /// A parameter that cannot be resolved fails the resolve with a
    /// `ResolutionError` naming the parameter's type and the path to it.
    @discardableResult
    public func autoregister<T, each Dependency>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        initializer: @escaping @Sendable (repeat each Dependency) throws -> T
    ) -> Registration<T> {
        register(type: type, name: name, in: scope) { resolver in
            try initializer(repeat try resolver.resolve(type: (each Dependency).self))
        }
        .declaring(parameters: repeat (each Dependency).self)
    }

    /// Registers an initializer whose first parameter is a runtime argument
    /// and whose other parameters are resolved by type. Every resolve builds
    /// a new instance.
    ///
    /// ```swift
    /// container.autoregister(argument: Int.self, initializer: Numbered.init)   // Numbered(integer: Int, manager: Manager)
    /// let numbered: Numbered = container.resolve(arguments: 42)
    /// ```
    @discardableResult
    public func autoregister<T, Argument, each Dependency>(
        type: T.Type = T.self,
        name: String? = nil,
        argument: Argument.Type,
        initializer: @escaping @Sendable (Argument, repeat each Dependency) throws -> T
    ) -> Registration<T> {
        register(type: type, name: name) { (resolver: Resolver, argument: Argument) in
            try initializer(argument, repeat try resolver.resolve(type: (each Dependency).self))
        }
        .declaring(parameters: repeat (each Dependency).self)
    }

    /// Registers an initializer whose second parameter is the runtime
    /// argument: the others are resolved by type. `at: .second` keeps it
    /// apart from the first-parameter form, which the same initializer may
    /// also fit (when a later parameter has the argument's type).
    ///
    /// ```swift
    /// container.autoregister(argument: Int.self, at: .second, initializer: Numbered.init(manager:integer:))
    /// let numbered: Numbered = container.resolve(arguments: 42)
    /// ```
    @discardableResult
    public func autoregister<T, First, Argument, each Dependency>(
        type: T.Type = T.self,
        name: String? = nil,
        argument: Argument.Type,
        at position: ArgumentPosition.Second,
        initializer: @escaping @Sendable (First, Argument, repeat each Dependency) throws -> T
    ) -> Registration<T> {
        register(type: type, name: name) { (resolver: Resolver, argument: Argument) in
            try initializer(try resolver.resolve(type: First.self), argument, repeat try resolver.resolve(type: (each Dependency).self))
        }
        .declaring(parameters: First.self, repeat (each Dependency).self)
    }

    /// Registers an initializer whose third parameter is the runtime
    /// argument: the others are resolved by type.
    ///
    /// ```swift
    /// container.autoregister(argument: String.self, at: .third, initializer: Report.init(clock:store:title:))
    /// let report: Report = container.resolve(arguments: "Q3")
    /// ```
    @discardableResult
    public func autoregister<T, First, Second, Argument, each Dependency>(
        type: T.Type = T.self,
        name: String? = nil,
        argument: Argument.Type,
        at position: ArgumentPosition.Third,
        initializer: @escaping @Sendable (First, Second, Argument, repeat each Dependency) throws -> T
    ) -> Registration<T> {
        register(type: type, name: name) { (resolver: Resolver, argument: Argument) in
            try initializer(try resolver.resolve(type: First.self), try resolver.resolve(type: Second.self), argument,
                            repeat try resolver.resolve(type: (each Dependency).self))
        }
        .declaring(parameters: First.self, Second.self, repeat (each Dependency).self)
    }
}

/// Where an autoregistered initializer takes its runtime argument, when not
/// first: `autoregister(argument: String.self, at: .second, initializer: …)`.
public enum ArgumentPosition {
    /// The initializer's second parameter.
    ///
    /// ```swift
    /// container.autoregister(argument: Int.self, at: .second, initializer: Numbered.init(manager:integer:))
    /// ```
    public struct Second: Sendable {
        /// The second parameter.
        ///
        /// ```swift
        /// container.autoregister(argument: Int.self, at: .second, initializer: Numbered.init(manager:integer:))
        /// ```
        public static var second: Second { Second() }
    }

    /// The initializer's third parameter.
    ///
    /// ```swift
    /// container.autoregister(argument: String.self, at: .third, initializer: Report.init(clock:store:title:))
    /// ```
    public struct Third: Sendable {
        /// The third parameter.
        ///
        /// ```swift
        /// container.autoregister(argument: String.self, at: .third, initializer: Report.init(clock:store:title:))
        /// ```
        public static var third: Third { Third() }
    }
}

extension Registration {
    /// Records an autoregistered initialiser's parameter types (see
    /// `Registry.parameters`), if this registration is still live.
    func declaring<each Dependency>(parameters: repeat (each Dependency).Type) -> Registration<T> {
        var types: [Any.Type] = []
        repeat types.append(each parameters)
        container.declare(types, for: definition)
        return self
    }
}

extension Container {
    /// See `Registration.declaring(parameters:)`.
    func declare(_ parameters: [Any.Type], for definition: AnyDefinition) {
        writerLock.withLock {
            guard lookup(definition.key) === definition else { return }
            registry.parameters[ObjectIdentifier(definition)] = parameters
        }
    }
}
