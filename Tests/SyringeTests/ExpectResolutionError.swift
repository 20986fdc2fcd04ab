import Testing
import Syringe

/// The `ResolutionError.Reason` a test expects.
///
/// `Reason` is not `Equatable` (`factoryFailed` carries an `any Error`), so
/// this names the case and, where tests check one, its payload.
enum ExpectedReason: CustomStringConvertible {
    case notRegistered
    case cycle
    /// The factory or callback threw this `Failure`.
    case factoryFailed(Failure)
    /// Exactly these signatures, in any order: the library promises none.
    case argumentMismatch(registered: [String])
    case incompatibleAlias(instanceType: String)
    case noScope
    case captiveDependency(captor: String, captorScope: Scope)
    case closed
    case disposerWithoutOwner(scope: Scope)
    case registeredAsync
    case cancelled
    case isolatedToMainActor

    func matches(_ reason: ResolutionError.Reason) -> Bool {
        switch (self, reason) {
        case (.notRegistered, .notRegistered), (.cycle, .cycle):
            true
        case let (.factoryFailed(expected), .factoryFailed(underlying)):
            underlying as? Failure == expected
        case let (.argumentMismatch(expected), .argumentMismatch(registered)):
            registered.sorted() == expected.sorted()
        case let (.incompatibleAlias(expected), .incompatibleAlias(instanceType)):
            instanceType == expected
        case (.noScope, .noScope), (.closed, .closed), (.registeredAsync, .registeredAsync), (.cancelled, .cancelled),
             (.isolatedToMainActor, .isolatedToMainActor):
            true
        case let (.captiveDependency(expected, expectedScope), .captiveDependency(captor, captorScope)):
            captor == expected && captorScope == expectedScope
        case let (.disposerWithoutOwner(expected), .disposerWithoutOwner(scope)):
            scope == expected
        default:
            false
        }
    }

    var description: String {
        switch self {
        case .notRegistered: ".notRegistered"
        case .cycle: ".cycle"
        case .factoryFailed(let failure): ".factoryFailed(\(failure))"
        case .argumentMismatch(let registered): ".argumentMismatch(registered: \(registered))"
        case .incompatibleAlias(let instanceType): ".incompatibleAlias(instanceType: \(instanceType))"
        case .noScope: ".noScope"
        case .captiveDependency(let captor, let scope): ".captiveDependency(captor: \(captor), captorScope: .\(scope))"
        case .closed: ".closed"
        case .disposerWithoutOwner(let scope): ".disposerWithoutOwner(scope: .\(scope))"
        case .registeredAsync: ".registeredAsync"
        case .cancelled: ".cancelled"
        case .isolatedToMainActor: ".isolatedToMainActor"
        }
    }
}

/// The `ResolutionError` that `body` throws, when its reason is `expected`.
///
/// Otherwise records an issue at the caller (nothing thrown, another error,
/// another reason) and returns nil, so that a test that goes on to check
/// the error's other fields writes `try #require(expectResolutionError(…))`.
@discardableResult
func expectResolutionError<T>(_ expected: ExpectedReason, sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: () throws -> T) -> ResolutionError? {
    do {
        _ = try body()
        return matching(expected, thrown: nil, sourceLocation: sourceLocation)
    } catch {
        return matching(expected, thrown: error, sourceLocation: sourceLocation)
    }
}

/// `expectResolutionError` for an async body. A name of its own: an async
/// overload would be preferred in async tests, even for synchronous bodies.
@discardableResult
func expectAsyncResolutionError<T>(_ expected: ExpectedReason, sourceLocation: SourceLocation = #_sourceLocation,
                                   _ body: () async throws -> T) async -> ResolutionError? {
    do {
        _ = try await body()
        return matching(expected, thrown: nil, sourceLocation: sourceLocation)
    } catch {
        return matching(expected, thrown: error, sourceLocation: sourceLocation)
    }
}

/// `thrown` as the expected `ResolutionError`, or nil with an issue recorded.
private func matching(_ expected: ExpectedReason, thrown: (any Error)?, sourceLocation: SourceLocation) -> ResolutionError? {
    switch thrown {
    case nil:
        Issue.record("expected a ResolutionError \(expected), but nothing was thrown", sourceLocation: sourceLocation)
    case let error as ResolutionError:
        if expected.matches(error.reason) {
            return error
        }
        Issue.record("expected \(expected), got \(error.reason)", sourceLocation: sourceLocation)
    case let error?:
        Issue.record("expected a ResolutionError \(expected), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
