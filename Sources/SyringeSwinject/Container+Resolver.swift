/// The `Resolver` methods: one line each, into the engine
/// (Container+Resolution.swift) with the key's arguments type and a pointer
/// to the arguments.
extension Container: Resolver {
    /// The instance registered for `serviceType` without a name, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self)
    /// ```
    @inlinable
    @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver).self)
    }

    /// The instance registered for `serviceType` with `name`, or nil.
    ///
    /// ```swift
    /// let mimi = container.resolve(Animal.self, name: "Mimi")
    /// ```
    @inlinable
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver).self)
    }

    /// The instance made by the factory registered for `serviceType` with argument of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, argument: "Mew")
    /// ```
    @inlinable
    public func resolve<Service, Arg1>(_ serviceType: Service.Type, argument: Arg1) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1).self, argument)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with argument of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", argument: "Mew")
    /// ```
    @inlinable
    public func resolve<Service, Arg1>(_ serviceType: Service.Type, name: String?, argument: Arg1) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1).self, argument)
    }

    /// The instance made by the factory registered for `serviceType` with 2 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true)
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2).self, arg1, arg2)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 2 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true)
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2).self, arg1, arg2)
    }

    /// The instance made by the factory registered for `serviceType` with 3 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3)
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3).self, arg1, arg2, arg3)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 3 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3)
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3).self, arg1, arg2, arg3)
    }

    /// The instance made by the factory registered for `serviceType` with 4 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4).self, arg1, arg2, arg3, arg4)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 4 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4).self, arg1, arg2, arg3, arg4)
    }

    /// The instance made by the factory registered for `serviceType` with 5 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a", "b")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5).self, arg1, arg2, arg3, arg4, arg5)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 5 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a", "b")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5).self, arg1, arg2, arg3, arg4, arg5)
    }

    /// The instance made by the factory registered for `serviceType` with 6 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a", "b", "c")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6).self, arg1, arg2, arg3, arg4, arg5, arg6)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 6 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a", "b", "c")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6).self, arg1, arg2, arg3, arg4, arg5, arg6)
    }

    /// The instance made by the factory registered for `serviceType` with 7 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a", "b", "c", "d")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 7 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a", "b", "c", "d")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }

    /// The instance made by the factory registered for `serviceType` with 8 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a", "b", "c", "d", "e")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 8 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a", "b", "c", "d", "e")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }

    /// The instance made by the factory registered for `serviceType` with 9 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true, 3, "a", "b", "c", "d", "e", "f")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9) -> Service? {
        resolve(Service.self, name: nil, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }

    /// The instance made by the factory registered for `serviceType` and `name` with 9 arguments of these types, or nil.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat", arguments: "Mew", true, 3, "a", "b", "c", "d", "e", "f")
    /// ```
    @inlinable
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(_ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9) -> Service? {
        resolve(Service.self, name: name, argumentsType: (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9).self, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }
}
