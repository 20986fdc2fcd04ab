import CSyringeTable

/// Aliases (`Registration.implements`): a registration of `U` that forwards
/// to a registration of `T` and hands out its instance as a `U`.
extension Container {
    /// The factory of an alias of `target`: it produces the target's instance
    /// inside the resolve in progress (same object graph, same frames, one
    /// outermost resolve), then converts it.
    ///
    /// Runs with a `Resolver` of the container that was asked, and produces
    /// the target as a resolve of it from there would: a `.new`, `.graph` or
    /// `.scoped` target is built with that container's registrations (and a
    /// `.new` one with disposers goes to its scope), a `.shared` or `.weak`
    /// one in `holder`, which holds both the alias and its target.
    ///
    /// `holder` unretained: it holds the alias, so a strong reference would
    /// be a cycle. The factory runs only inside a resolve that found the
    /// alias from `holder` or a descendant of it, which the resolve holds,
    /// and a container holds its ancestors: `holder` outlives every call.
    ///
    /// `convert` is the caller's `{ $0 as? U }`, specialised where
    /// `implements` was called (see there).
    ///
    /// `cache`, for a `.shared` target: what the alias made of the target's
    /// instance, returned while that instance is the published one, with no
    /// conversion (see `AliasCache`).
    static func forwarding<T, U>(to target: Definition<T>, in holder: Container, as alias: U.Type, name: String?,
                                 converting convert: @escaping AliasConversion<T, U>, cache: AliasCache?) -> Definition<U>.Factory {
        let holder = Unmanaged.passUnretained(holder)
        return { resolver, arguments in
            // Observed resolves take the whole path, which reports the
            // target's resolve.
            if let cache, !syr_observed() {
                do throws(AliasCache.Miss) {
                    return try cachedOrConverted(target, cache: cache, converting: convert)
                } catch {}
            }
            let context = ResolutionContext.current
            let instance: T
            let wasForwarding = context.forwardingAlias
            context.forwardingAlias = true
            defer { context.forwardingAlias = wasForwarding }
            do throws(ResolutionError) {
                instance = try resolver.container.produceNested(target, holder: holder.takeUnretainedValue(), arguments: arguments, context: context)
            } catch {
                throw error.throughAlias(step(of: U.self, name: name, forwardingTo: target), below: context.pathText)
            }
            // A conversion that may fail because `implements` cannot
            // constrain `T` to be a `U`: Swift has no "T conforms to the
            // protocol U" constraint.
            do throws(AliasMismatch) {
                return try convert(instance)
            } catch {
                throw incompatible(instance, of: target, as: U.self, name: name, below: context.pathText)
            }
        }
    }

    /// A `.shared` target's published instance as a `U`: what `cache` made
    /// of it, or converted now and kept there. Throws when the target has
    /// no instance, or its instance is not a `U` (the whole path then
    /// reports it). The same for a `.shared` instance as the whole path,
    /// which returns an existing one before anything else (`produceNested`).
    private static func cachedOrConverted<T, U>(_ target: Definition<T>, cache: AliasCache,
                                                converting convert: AliasConversion<T, U>) throws(AliasCache.Miss) -> U {
        // Nested in a synchronous resolve's section (one load); an async
        // resolve holds none across its suspensions.
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        guard let box = target.sharedBox.load(ordering: .acquiring) else {
            throw AliasCache.Miss()
        }
        do throws(AliasCache.Miss) {
            return try cache.value(madeFrom: box, as: U.self)
        } catch {}
        let instance = Unmanaged<InstanceBox>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value(as: T.self) }
        do throws(AliasMismatch) {
            let converted = try convert(instance)
            cache.remember(converted, madeFrom: Unmanaged<InstanceBox>.fromOpaque(box).takeUnretainedValue(), of: target)
            return converted
        } catch {
            throw AliasCache.Miss()
        }
    }

    /// The alias's step in an error's path: an alias has no frame of its
    /// own, so its step is written where an error reaches it.
    private static func step<U>(of alias: U.Type, name: String?, forwardingTo target: AnyDefinition) -> String {
        TypeName.step(U.self, name: name, argumentTypes: target.argumentTypes)
    }

    /// The error of an alias whose target's `instance` is not of its type,
    /// on the path `above` the alias (an alias has no frame of its own).
    private static func incompatible<T, U>(_ instance: T, of target: Definition<T>, as _: U.Type, name: String?,
                                           below above: [String]) -> ResolutionError {
        ResolutionError(reason: .incompatibleAlias(instanceType: TypeName.of(Swift.type(of: instance))),
                        type: U.self, name: name, argumentTypes: target.argumentTypes,
                        path: above + [step(of: U.self, name: name, forwardingTo: target)])
    }

    /// The factory of an alias of an async registration: the async engine's
    /// `forwarding(to:in:as:name:)`, with the same containers. On its
    /// resolver's executor, as the engine is: the target's factory decides
    /// where it runs itself.
    static func forwardingAsync<T, U>(to target: Definition<T>, in holder: Container, as alias: U.Type, name: String?,
                                      converting convert: @escaping AliasConversion<T, U>,
                                      cache: AliasCache?) -> Definition<U>.AsyncFactory.WithArgumentsOnCallersExecutor {
        // Unretained for the reason `forwarding` gives.
        let holder = Unmanaged.passUnretained(holder)
        return { resolver, arguments in
            if let cache, !syr_observed() {
                do throws(AliasCache.Miss) {
                    return try cachedOrConverted(target, cache: cache, converting: convert)
                } catch {}
            }
            // Unobserved: the alias's own resolve is the one observers see,
            // as on the synchronous path.
            let instance: T
            do throws(ResolutionError) {
                instance = try await produceAsyncUnobserved(target, in: resolver.containerReference, holder: holder, arguments: arguments.pointer, parent: resolver.frame,
                                                            forAlias: true)
            } catch {
                throw error.throughAlias(step(of: U.self, name: name, forwardingTo: target), below: resolver.frame?.pathText ?? [])
            }
            do throws(AliasMismatch) {
                return try convert(instance)
            } catch {
                throw incompatible(instance, of: target, as: U.self, name: name, below: resolver.frame?.pathText ?? [])
            }
        }
    }
}

/// An alias's conversion of its target's instance (`Registration.implements`),
/// written where `implements` is called, so that it is specialised there.
/// It throws rather than returning an optional: the generic forwarding
/// factory would otherwise look up `Optional<U>`'s metadata on every
/// resolve of the alias (about 320 instructions).
@usableFromInline
typealias AliasConversion<T, U> = @Sendable (T) throws(AliasMismatch) -> U

/// What an alias's conversion throws when the instance is not of the
/// alias's type; the forwarding factory reports it as
/// `ResolutionError.Reason.incompatibleAlias`.
@usableFromInline
struct AliasMismatch: Error {
    @inlinable
    init() {}
}
