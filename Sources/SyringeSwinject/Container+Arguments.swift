/// `register` with 1 to 9 runtime arguments, each into the registration
/// core (Container+Registration.swift) with its factory in Swinject's
/// untyped form and in the engine's typed form, which reads the arguments
/// from the tuple a resolve points to.
extension Container {
    /// Registers a factory that takes one argument at resolve time; its
    /// type is part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, argument: "Mimi")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1).self, untyped: { (arguments: (any Resolver, Arg1)) -> Any in
            factory(arguments.0, arguments.1)
        }, make: { resolver, arguments in
            let argument = arguments.assumingMemoryBound(to: Arg1.self).pointee
            return factory(resolver, argument)
        })
    }

    /// Registers a factory that takes 2 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true)
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2).self, untyped: { (arguments: (any Resolver, Arg1, Arg2)) -> Any in
            factory(arguments.0, arguments.1, arguments.2)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2).self).pointee
            return factory(resolver, tuple.0, tuple.1)
        })
    }

    /// Registers a factory that takes 3 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3)
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2)
        })
    }

    /// Registers a factory that takes 4 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3)
        })
    }

    /// Registers a factory that takes 5 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4, Arg5).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3, tuple.4)
        })
    }

    /// Registers a factory that takes 6 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3, tuple.4, tuple.5)
        })
    }

    /// Registers a factory that takes 7 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3, tuple.4, tuple.5, tuple.6)
        })
    }

    /// Registers a factory that takes 8 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String, e: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d", "e")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7, arguments.8)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3, tuple.4, tuple.5, tuple.6, tuple.7)
        })
    }

    /// Registers a factory that takes 9 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String, e: String, f: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d", "e", "f")
    /// ```
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9).self, untyped: { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7, arguments.8, arguments.9)
        }, make: { resolver, arguments in
            let tuple = arguments.assumingMemoryBound(to: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9).self).pointee
            return factory(resolver, tuple.0, tuple.1, tuple.2, tuple.3, tuple.4, tuple.5, tuple.6, tuple.7, tuple.8)
        })
    }
}
