import CSyringeTable
@_spi(SyringeSwinject) import Syringe

/// Everything a resolve does when no entry is registered for exactly its
/// service type: the current graph's identifier, forwarded types, keys with
/// options, wrappers (`Optional`, `Lazy`, `Provider`), and the debug helper
/// when nothing matches. Out of line and unspecialised: none of it is on a
/// hot path.
extension Container: _Resolver {
    /// Resolves through `invoker`, which receives the registered factory in
    /// Swinject's `(Arguments) -> Any` form and calls it.
    ///
    /// ```swift
    /// let cat: Animal? = container._resolve(name: nil) { (factory: (Resolver) -> Any) in factory(container) }
    /// ```
    // swiftlint:disable:next identifier_name
    public func _resolve<Service, Arguments>(
        name: String?,
        option: ServiceKeyOption? = nil,
        invoker: @escaping ((Arguments) -> Any) -> Any
    ) -> Service? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        let produce: (ServiceEntryProtocol) -> Any? = { [unowned self] entry in
            guard let factory = entry.factory as? (Arguments) -> Any else {
                return nil
            }
            return entry.produceAny(in: self, arguments: Container.noArguments) { _ in invoker(factory) }
        }
        return resolve(Service.self, name: name, option: option, argumentsType: Arguments.self, produce: produce) { produce }
    }

    /// A typed resolve that found no entry registered for its own type.
    @usableFromInline
    func resolveSlowly<Service, each Argument>(
        _: Service.Type,
        name: String?,
        argumentsType: Any.Type,
        _ arguments: repeat each Argument
    ) -> Service? {
        withUnsafePointer(to: (repeat each arguments)) { tuple in
            resolve(Service.self, name: name, option: nil, argumentsType: argumentsType, produce: { entry in
                entry.produceAny(in: self, arguments: UnsafeRawPointer(tuple), make: nil)
            }, later: {
                // A wrapper's factory runs later, when the caller's arguments
                // are gone: it keeps its own copy of them.
                let copy = (repeat each arguments)
                return { entry in
                    withUnsafePointer(to: copy) { entry.produceAny(in: self, arguments: UnsafeRawPointer($0), make: nil) }
                }
            })
        }
    }

    /// The slow path proper. `produce` resolves an entry now; `later` makes
    /// the closure a wrapper calls when it wants the wrapped instance.
    private func resolve<Service>(
        _: Service.Type,
        name: String?,
        option: ServiceKeyOption?,
        argumentsType: Any.Type,
        produce: (ServiceEntryProtocol) -> Any?,
        later: () -> (ServiceEntryProtocol) -> Any?
    ) -> Service? {
        if Service.self == GraphIdentifier.self, argumentsType == (any Resolver).self, option == nil {
            return currentObjectGraph as? Service
        }
        let key = ServiceKey(serviceType: Service.self, argumentsType: argumentsType, name: name, option: option)
        if let entry = findEntry(key) {
            return typed(produce(entry))
        }
        if let wrapper = Service.self as? InstanceWrapper.Type {
            let wrappedKey = ServiceKey(serviceType: wrapper.wrappedType, argumentsType: argumentsType, name: name, option: option)
            let factory: ((GraphIdentifier?) -> Any?)? = findEntry(wrappedKey).map { entry in
                let produce = later()
                // Strong, as Swinject's invoker holds the container: a Lazy
                // or Provider keeps working after the last other reference goes.
                return { graph in self.resolveWrapped(entry, in: graph, produce) }
            }
            if let wrapped = wrapper.init(inContainer: self, withInstanceFactory: factory) as? Service {
                return wrapped
            }
        }
        // Listing every registration is the expensive part of a miss, and
        // `resolve(X.self) ?? fallback` is a common idiom: the default helper
        // with logging off is not asked at all.
        if !(debugHelper is LoggingDebugHelper) || Container.loggingFunction != nil {
            debugHelper.resolutionFailed(serviceType: Service.self, key: key, availableRegistrations: registrations())
        }
        return nil
    }

    /// The entry for `key`, registered or forwarded, here or in an ancestor.
    func findEntry(_ key: ServiceKey) -> ServiceEntryProtocol? {
        var container: Container? = self
        while let current = container {
            if key.option != nil {
                if let entry = current.optionEntry(key) {
                    return entry
                }
            } else {
                let type = identity(key.serviceType), arguments = identity(key.argumentsType)
                let found = key.name.map { current.direct.lookup(type: type, arguments: arguments, named: $0) }
                    ?? current.direct.lookup(type: type, arguments: arguments)
                if let found = found ?? current.forwardedEntry(type: type, arguments: arguments, name: key.name) {
                    // Retained: a wrapper keeps the entry beyond this section.
                    return Unmanaged<AnyObject>.fromOpaque(found).takeUnretainedValue() as? ServiceEntryProtocol
                }
            }
            container = current.parent
        }
        return nil
    }

    /// What a `Lazy` or `Provider` does when asked for its instance: resolve
    /// the entry in `graph` (the graph the `Lazy` was made in), or in the
    /// graph in progress, or a new one.
    private func resolveWrapped(_ entry: ServiceEntryProtocol, in graph: GraphIdentifier?, _ produce: (ServiceEntryProtocol) -> Any?) -> Any? {
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let graph else {
            return produce(entry)
        }
        let state = ResolutionState.current
        let frame = state.enter(graph)
        defer { state.leave(frame) }
        return produce(entry)
    }

    /// A pointer standing in for an empty argument tuple; never dereferenced.
    static var noArguments: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<Int>.alignment).unsafelyUnwrapped
    }
}
