import Hummingbird
import TodoService

/// A request's services in the load comparison's wirings, which end the
/// request's transaction themselves after the route (no container closes
/// a scope for them).
protocol EndingRequestServices: RequestServices {
    func end() async
}

extension EndingRequestServices {
    /// Runs the route with these services in its context and ends them
    /// afterwards, whether the route returned or threw.
    func serve<Context: RequestServicesContext>(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.services = self
        do {
            let response = try await next(request, context)
            await end()
            return response
        } catch {
            await end()
            throw error
        }
    }
}
