/// Aliases (`Registration.implements`): a registration of `U` that forwards
/// to a registration of `T` and hands out its instance as a `U`.
extension Container {
    /// The factory of an alias of `target`: it produces the target's instance
    /// inside the resolve in progress (same object graph, same frames, one
    /// outermost resolve), then converts it.
    ///
    /// Runs with a `Resolver` of the container that holds both the alias and
    /// its target (`produceInScope` passes the holder), or, for a `.scoped`
    /// target, of the container that was asked.
    static func forwarding<T, U>(to target: Definition<T>, as alias: U.Type, name: String?) -> Definition<U>.Factory {
        { resolver, arguments in
            let holder = resolver.container
            let context = ResolutionContext.current
            let instance = try holder.produceNested(target, holder: holder, arguments: arguments, context: context)
            // `as?` because `implements` cannot constrain `T` to be a `U`:
            // Swift has no "T conforms to the protocol U" constraint.
            guard let converted = instance as? U else {
                let step = TypeName.step(U.self, name: name, argumentTypes: target.argumentTypes)
                throw ResolutionError(reason: .incompatibleAlias(instanceType: TypeName.of(Swift.type(of: instance))),
                                      type: U.self, name: name, argumentTypes: target.argumentTypes,
                                      path: context.pathText(appending: step))
            }
            return converted
        }
    }

    /// The factory of an alias of an async registration: the async engine's
    /// `forwarding(to:as:name:)`. On its resolver's executor, as the
    /// engine is: the target's factory decides where it runs itself.
    static func forwardingAsync<T, U>(to target: Definition<T>, as alias: U.Type, name: String?) -> Definition<U>.AsyncFactory.WithArgumentsOnCallersExecutor {
        { resolver, arguments in
            let holder = resolver.containerReference
            // Unobserved: the alias's own resolve is the one observers see,
            // as on the synchronous path.
            let instance = try await produceAsyncUnobserved(target, in: holder, holder: holder, arguments: arguments.pointer, parent: resolver.frame)
            guard let converted = instance as? U else {
                let step = TypeName.step(U.self, name: name, argumentTypes: target.argumentTypes)
                throw ResolutionError(reason: .incompatibleAlias(instanceType: TypeName.of(Swift.type(of: instance))),
                                      type: U.self, name: name, argumentTypes: target.argumentTypes,
                                      path: (resolver.frame?.pathText ?? []) + [step])
            }
            return converted
        }
    }
}
