import Hummingbird
import Syringe

/// Makes a Syringe scope per request, registers the request's `RequestInfo`
/// in it, hands it to the routes through the context, and closes it when
/// the route returns or throws, cancellation included (`withScope`):
/// closing disposes the request's `.scoped` objects, newest first, which
/// rolls back a transaction the handler did not commit.
public struct RequestScopeMiddleware<Context: RequestServicesContext>: RouterMiddleware {
    let container: Container

    public init(container: Container) {
        self.container = container
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await container.withScope { scope in
            scope.register(type: RequestInfo.self, instance: RequestInfo(id: context.id, method: request.method))
            var context = context
            context.services = scope
            return try await next(request, context)
        }
    }
}
