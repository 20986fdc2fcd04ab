/// Registration: `register` without runtime arguments, Swinject's generic
/// `_register`, and forwarding. `register` with arguments is in
/// Container+Arguments.swift.
extension Container {
    /// Registers a factory for `serviceType` (with `name`, if given), in the
    /// container's default scope (`.graph` unless the container was made with
    /// another). A later registration of the same type, name and argument
    /// types replaces it.
    ///
    /// ```swift
    /// container.register(Animal.self) { _ in Cat() }
    /// container.register(Animal.self, name: "dog") { _ in Dog() }
    /// container.register(Person.self) { r in PetOwner(pet: r.resolve(Animal.self)!) }
    /// ```
    @inlinable
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver) -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name, argumentsType: (any Resolver).self, untyped: { (resolver: Resolver) -> Any in
            factory(resolver)
        }, make: { resolver, _ in
            factory(resolver)
        })
    }

    /// Registers a factory in Swinject's untyped form, for extensions of the
    /// container: `Arguments` is `Resolver` or `(Resolver, Arg1, …)`, and
    /// `option` distinguishes their registrations.
    ///
    /// ```swift
    /// container._register(Animal.self, factory: { (r: Resolver) in Cat() as Any }, name: "cat")
    /// ```
    @discardableResult
    // swiftlint:disable:next identifier_name
    public func _register<Service, Arguments>(
        _ serviceType: Service.Type,
        factory: @escaping (Arguments) -> Any,
        name: String? = nil,
        option: ServiceKeyOption? = nil
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(serviceType: serviceType, argumentsType: Arguments.self, factory: factory, make: nil, objectScope: defaultObjectScope)
        add(entry, name: name, option: option)
        return entry
    }

    /// Makes `service`'s entry resolvable as `type` too (with `name`):
    /// resolving `type` resolves the entry and casts its instance, nil if it
    /// is not a `type`.
    ///
    /// ```swift
    /// let dog = container.register(Dog.self) { _ in Dog() }
    /// container.forward(Animal.self, to: dog)
    /// ```
    public func forward<T, S>(_ type: T.Type, name: String? = nil, to service: ServiceEntry<S>) {
        let key = ServiceKey(serviceType: T.self, argumentsType: service.argumentsType, name: name)
        publish(service, key: key, isForward: true) { behavior in
            behavior.container(self, didRegisterType: type, toService: service, withName: name)
        }
    }

    /// The registration core: `argumentsType` is the key's `(Resolver,
    /// Arg1, …)`, `untyped` the factory in Swinject's `(Arguments) -> Any`
    /// form, which `_resolve`'s invoker receives, and `make` the same factory
    /// reading its runtime arguments from the tuple a resolve points to (the
    /// key guarantees the tuple's type). Inlined into the caller, so that
    /// `make` and the entry's producer are specialised for its types; `make`
    /// calls the user's factory directly, as a factory passed through a
    /// function generic over its arguments would be called through a
    /// reabstraction thunk that copies the `Resolver`.
    @inlinable
    func register<Service>(
        _ serviceType: Service.Type,
        name: String?,
        argumentsType: Any.Type,
        untyped: Any,
        make: @escaping (Resolver, UnsafeRawPointer) -> Service?
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(
            serviceType: serviceType,
            argumentsType: argumentsType,
            factory: untyped,
            make: make,
            objectScope: defaultObjectScope,
            producer: ServiceEntry<Service>.producer(calling: make)
        )
        add(entry, name: name, option: nil)
        return entry
    }

    /// Publishes a new entry under its key, and tells the behaviours.
    @usableFromInline
    func add<Service>(_ entry: ServiceEntry<Service>, name: String?, option: ServiceKeyOption?) {
        entry.link = link
        let key = ServiceKey(serviceType: Service.self, argumentsType: entry.argumentsType, name: name, option: option)
        publish(entry, key: key, isForward: false) { behavior in
            behavior.container(self, didRegisterType: Service.self, toService: entry, withName: name)
        }
    }
}
