/// A type that releases what it holds when its owner is closed: a scope for
/// `.scoped` instances, the container for `.shared` ones.
///
/// A `.shared` or `.scoped` instance that conforms is disposed without an
/// `onDispose`, whatever type it was registered as (before the
/// registration's `onDispose` closures, if it has any):
///
/// ```swift
/// final class Connection: Disposable {
///     func dispose() throws { try socket.close() }
/// }
/// container.register(type: Connection.self, in: .scoped) { _ in Connection() }
/// ```
///
/// `.new` and `.graph` instances are disposed only when their registration
/// has an `onDispose`: Syringe does not inspect every transient it makes.
public protocol Disposable {
    /// Releases what the instance holds. Called once, by `close()`.
    func dispose() throws
}

/// A type whose disposal awaits, such as a transaction that rolls back over
/// the network. See `Disposable`.
///
/// ```swift
/// final class Transaction: AsyncDisposable {
///     func dispose() async throws { try await rollbackIfOpen() }
/// }
/// ```
public protocol AsyncDisposable {
    /// Releases what the instance holds. Called once, by `close()`.
    func dispose() async throws
}

/// One way of disposing an instance of `T`.
@usableFromInline
enum Disposer<T>: Sendable {
    case sync(@Sendable (T) throws -> Void)
    case async(@Sendable (T) async throws -> Void)

    /// This disposer as `Hooks` keeps it: given the address of an instance
    /// and whether the instance stays there until it is disposed, the
    /// disposer bound to it.
    ///
    /// An instance in a box (every `.shared` and `.scoped` one) is disposed
    /// where it is: the step pairs the address with a closure made here,
    /// once per `onDispose`, so binding it allocates nothing. Binding a copy
    /// of the instance into a new closure was an allocation per instance
    /// disposed (a request's transaction: one per request). A `.new` or
    /// `.graph` instance has no box: the step holds a copy.
    var binder: PendingDisposal.Binder {
        switch self {
        case .sync(let body):
            let inPlace: @Sendable (UnsafeRawPointer) throws -> Void = { try body($0.load(as: T.self)) }
            return { address, stays in
                if stays {
                    return .syncInPlace(inPlace, address)
                }
                let instance = address.load(as: T.self)
                return .sync { try body(instance) }
            }
        case .async(let body):
            // The step runs on its caller's executor (see
            // `PendingDisposal.Step.run()`) and hands the instance to
            // `body`, which runs on its own: `nonisolated(unsafe)`, because
            // nothing else uses the instance meanwhile (its owner's close
            // took it, and runs its disposers one at a time; see
            // `PendingDisposal`).
            let inPlace: PendingDisposal.Step.AsyncInPlaceBody = { address in
                nonisolated(unsafe) let instance = address.load(as: T.self)
                try await body(instance)
            }
            return { address, stays in
                if stays {
                    return .asyncInPlace(inPlace, address)
                }
                nonisolated(unsafe) let instance = address.load(as: T.self)
                return .async { try await body(instance) }
            }
        }
    }
}

/// What `close()` could not dispose: every disposer ran, and these threw.
///
/// ```swift
/// do {
///     try await scope.close()
/// } catch {
///     for failure in error.failures { log("\(failure.service): \(failure.error)") }
/// }
/// ```
public struct DisposalError: Error, CustomStringConvertible, Sendable {
    /// One disposer that threw.
    public struct Failure: Sendable {
        /// The registration whose disposer threw, as a path step prints it:
        /// `Transaction`, `Animal["Cat"]`.
        public let service: String
        /// What it threw.
        public let error: any Error
    }

    /// Every disposer that threw, in the order they ran (newest instance first).
    public let failures: [Failure]
    /// What the body of `withScope` threw, when it threw too.
    public internal(set) var bodyError: (any Error)?

    init(failures: [Failure]) {
        self.failures = failures
    }

    /// This error with `error`, what the body of `withScope` threw before
    /// its scope's close threw this.
    @usableFromInline
    func afterBodyFailed(with error: any Error) -> DisposalError {
        var combined = self
        combined.bodyError = error
        return combined
    }

    /// Every failure, one per line, after the body's error if there was one.
    ///
    /// ```swift
    /// catch { print(error) }   // Syringe could not dispose everything: 2 disposers threw: …
    /// ```
    public var description: String {
        // Disposers, not instances: one instance's disposers can each throw.
        var text = "Syringe could not dispose everything: \(failures.count == 1 ? "1 disposer" : "\(failures.count) disposers") threw:"
        for failure in failures {
            text += "\n  • \(failure.service): \(TypeName.bounded(String(describing: failure.error)))"
        }
        if let bodyError {
            text += "\n  (the scope's body had failed first: \(TypeName.bounded(String(describing: bodyError))))"
        }
        return text
    }
}
