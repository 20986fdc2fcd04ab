import Hummingbird
import NIOHTTP1

/// Gives every HTTP error the routes' JSON body, `{"error": {"message": …}}`.
/// First on the router, so that it also sees what the router throws for a
/// path it does not have (404) and Hummingbird for a body over the limit
/// (413): errors without a message, which Hummingbird sends with an empty
/// body. Their message is their status's reason phrase.
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPParserError {
            // Hummingbird answers a request it cannot parse (400) and closes
            // the connection; a response from here would be a second one.
            throw error
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            if response.body.contentLength == 0 {
                let json = try HTTPError(error.status, message: error.status.reasonPhrase).response(from: request, context: context)
                response.headers[.contentType] = json.headers[.contentType]
                response.body = json.body
            }
            // The router's HEAD routes drop their GET route's body, but a
            // HEAD request for a path the router does not have comes here.
            return request.method == .head ? response.createHeadResponse() : response
        }
    }
}
