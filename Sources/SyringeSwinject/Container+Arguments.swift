/// `register` with 1 to 9 runtime arguments, each into the registration
/// core (Container+Registration.swift) with its factory typed and untyped.
extension Container {
    /// Registers a factory that takes one argument at resolve time; its
    /// type is part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, argument: "Mimi")
    /// ```
    @discardableResult
    public func register<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1).self, factory: factory) { (arguments: (any Resolver, Arg1)) -> Any in
            factory(arguments.0, arguments.1)
        }
    }

    /// Registers a factory that takes 2 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true)
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2)) -> Any in
            factory(arguments.0, arguments.1, arguments.2)
        }
    }

    /// Registers a factory that takes 3 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3)
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3)
        }
    }

    /// Registers a factory that takes 4 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4)
        }
    }

    /// Registers a factory that takes 5 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5)
        }
    }

    /// Registers a factory that takes 6 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6)
        }
    }

    /// Registers a factory that takes 7 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7)
        }
    }

    /// Registers a factory that takes 8 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String, e: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d", "e")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7, arguments.8)
        }
    }

    /// Registers a factory that takes 9 arguments at resolve time; the argument
    /// types, in order, are part of the key.
    ///
    /// ```swift
    /// container.register(Animal.self) { (_, name: String, sleeping: Bool, age: Int, a: String, b: String, c: String, d: String, e: String, f: String) in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, arguments: "Mimi", true, 3, "a", "b", "c", "d", "e", "f")
    /// ```
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9).self, factory: factory) { (arguments: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9)) -> Any in
            factory(arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5, arguments.6, arguments.7, arguments.8, arguments.9)
        }
    }
}
