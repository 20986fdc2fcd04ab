import Dispatch

/// Registrations whose factories are isolated to the main actor: view
/// models and other UI objects, built on the main actor wherever they are
/// resolved from.
extension Container {
    /// Registers a factory isolated to the main actor.
    ///
    /// A resolve on the main actor (`resolve`, `tryResolve`) runs the factory
    /// right there, synchronously. Anywhere else, resolve it with `await`
    /// (`resolveAsync`, or `try await r.resolve()` in an async factory): the
    /// factory then runs on the main actor and the resolve waits for it. A
    /// synchronous resolve off the main actor is a `ResolutionError`
    /// (`.isolatedToMainActor`), never a crash.
    ///
    /// ```swift
    /// @MainActor final class ProfileModel { init(api: API) { … } }
    ///
    /// container.register(type: ProfileModel.self, in: .new, isolatedTo: MainActor.self) { r in
    ///     ProfileModel(api: try r.resolve())
    /// }
    /// let model = container.resolve(type: ProfileModel.self)                  // on the main actor
    /// let remoteModel = try await container.resolveAsync(type: ProfileModel.self)   // from any task
    /// ```
    @discardableResult
    public func register<T>(
        type: T.Type = T.self,
        name: String? = nil,
        in scope: Scope = .shared,
        isolatedTo actor: MainActor.Type,
        factory: @escaping @MainActor @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        installArgumentFree(T.self, name: name, in: scope) { kind, key in
            Definition(
                kind: kind, key: key, argumentTypes: [],
                synchronousFactory: { resolver, _ in
                    guard MainActorCheck.isCurrent else {
                        throw AsyncOnly(mainActor: true)
                    }
                    // On the main queue, where the main actor runs its jobs: the
                    // assumption holds.
                    return try MainActor.assumeIsolated { UncheckedSendable(try factory(resolver)) }.value
                },
                // A `.new` or `.graph` instance for an async resolve, in the
                // frame the async engine entered for it: what the factory
                // resolves joins that resolve, as a synchronous registration's
                // factory does (`Container.produceBridged`). (`.shared`,
                // `.scoped` and `.weak` go through `Container.produceOnMainActor`.)
                asyncFactory: .plain { resolver in
                    try await MainActor.run {
                        UncheckedSendable(try ResolutionContext.current.joining(resolver.frame) { try factory(resolver) })
                    }.value
                },
                isolatedToMainActor: true
            )
        }
    }
}

/// Whether the caller runs on the main actor.
///
/// Not "on the main thread": on Linux, once the program's async `main` has
/// handed the main thread to the dispatch main queue, that queue (and with it
/// the main actor) is served by another thread. The main actor runs its jobs
/// on the main queue everywhere, so the check asks the current queue for a
/// value only the main queue carries. (Asking the Swift runtime for its
/// current executor has no public, non-trapping API.)
enum MainActorCheck {
    private static let key = DispatchSpecificKey<Bool>()
    private static let installed: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    static var isCurrent: Bool {
        _ = installed
        return DispatchQueue.getSpecific(key: key) == true
    }
}
