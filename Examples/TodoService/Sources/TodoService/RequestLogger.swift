import Logging

/// The request's logger: the app's logger with the request id on every
/// line. Registered `.scoped`, built from the scope's `RequestInfo`.
public struct RequestLogger: Sendable {
    public var logger: Logger

    public init(base: Logger, request: RequestInfo) {
        logger = base
        logger[metadataKey: "request-id"] = "\(request.id)"
    }
}
