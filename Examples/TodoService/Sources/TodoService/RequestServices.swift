import Hummingbird
import Syringe

/// What a route asks its request for. With Syringe it is the request's
/// scope (a `Container`); the load comparison's hand-written and Swinject
/// wirings implement it too, so all three run the same routes.
public protocol RequestServices: Sendable {
    /// The request's handler, built from the request's objects.
    func todoHandler() async throws -> TodoHandler
}

extension Container: RequestServices {
    public func todoHandler() async throws -> TodoHandler {
        try await resolveAsync()
    }
}

/// A request context whose middleware provides the request's services.
public protocol RequestServicesContext: RequestContext {
    var services: any RequestServices { get set }
}

/// The app's request context: Hummingbird's core context, the request's
/// services, and a 16 KiB limit on request bodies (a larger one is a 413).
public struct TodoRequestContext: RequestServicesContext {
    public var coreContext: CoreRequestContextStorage
    public var services: any RequestServices = NoRequestServices()

    public init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    public var maxUploadSize: Int { 16 * 1024 }
}

/// In the context until the middleware replaces it: a route reached
/// without the middleware fails with a 500 that says so.
struct NoRequestServices: RequestServices {
    func todoHandler() async throws -> TodoHandler {
        throw HTTPError(.internalServerError, message: "no request scope: RequestScopeMiddleware is not on this route")
    }
}
