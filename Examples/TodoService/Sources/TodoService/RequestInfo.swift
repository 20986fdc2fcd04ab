import HTTPTypes

/// What the request scope knows about its request: registered in each scope
/// by `RequestScopeMiddleware`, resolved by the request logger and the
/// transaction.
public struct RequestInfo: Sendable {
    /// Hummingbird's request id, carried by every log line of the request.
    public var id: String
    /// Whether the request only reads (GET, HEAD): its transaction then
    /// takes no write lock.
    public var isReadOnly: Bool

    public init(id: String, method: HTTPRequest.Method) {
        self.id = id
        self.isReadOnly = method == .get || method == .head
    }
}
