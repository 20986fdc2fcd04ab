import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives the 400 that Hummingbird sends for a request it cannot parse (a
/// malformed request line or header, a broken chunked body) the routes'
/// JSON error body. Hummingbird writes that response below the router,
/// where no middleware sees it, with an empty body; this channel handler
/// (one per connection, see `TodoApplication.server`) sees the parse error
/// pass on its way to Hummingbird, and the response come back.
final class ParseErrorBodyHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private static let body = #"{"error":{"message":"the request is not valid HTTP"}}"#

    private var parseFailed = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            parseFailed = true
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only Hummingbird's answer: a response still being written to an
        // earlier request on the connection has a body, or is not a 400.
        guard parseFailed, case .head(var head) = unwrapOutboundIn(data),
              head.status == .badRequest, head.headerFields[.contentLength] == "0"
        else {
            context.write(data, promise: promise)
            return
        }
        let body = ByteBuffer(string: Self.body)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = "\(body.readableBytes)"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: promise)
    }
}
