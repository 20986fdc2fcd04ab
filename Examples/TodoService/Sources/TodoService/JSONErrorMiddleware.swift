import Hummingbird
import Logging
import NIOHTTP1

/// Gives every error the routes' JSON body, `{"error": {"message": …}}`,
/// and logs the server's own failures. First on the router, so that it also
/// sees what the router throws for a path it does not have (404) and
/// Hummingbird for a body over the limit (413): errors without a message,
/// which Hummingbird sends with an empty body. Their message is their
/// status's reason phrase.
///
/// An error that is not an HTTP error (a failed write, a bug) is logged at
/// error level, with the request's id from Hummingbird's request logger,
/// and answered with a 500 whose message is only "internal server error":
/// the error's text can name files, tables or SQL, which are for the log,
/// not the client. A 5xx HTTP error is logged too, and its message sent.
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            return try await next(request, context)
        } catch let error as HTTPParserError {
            // Hummingbird answers a request it cannot parse (400) and closes
            // the connection; a response from here would be a second one.
            throw error
        } catch let error as any HTTPResponseError {
            if error.status.kind == .serverError {
                logFailure(error, of: request, context: context)
            }
            response = try error.response(from: request, context: context)
            if response.body.contentLength == 0 {
                let json = try HTTPError(error.status, message: error.status.reasonPhrase).response(from: request, context: context)
                response.headers[.contentType] = json.headers[.contentType]
                response.body = json.body
            }
        } catch where Task.isCancelled {
            // The server cancelled the request (its shutdown ran out of
            // time): what it failed with is the cancellation's doing, and
            // its connection is closing.
            throw error
        } catch {
            logFailure(error, of: request, context: context)
            response = try HTTPError(.internalServerError, message: "internal server error").response(from: request, context: context)
        }
        // The router's HEAD routes drop their GET route's body, but a HEAD
        // request for a path the router does not have comes here.
        return request.method == .head ? response.createHeadResponse() : response
    }

    private func logFailure(_ error: any Error, of request: Request, context: Context) {
        context.logger.error(
            "request failed",
            metadata: ["error": "\(error)", "method": "\(request.method)", "path": "\(request.uri.path)"]
        )
    }
}
