import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Syringe
import Testing
import TodoService

/// Error responses that the routes do not make themselves have the same
/// JSON body as theirs.
@Suite struct ErrorResponseTests {
    @Test(arguments: Wiring.allCases)
    func aPathWithNoRouteIs404WithAJSONBody(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            for method in [HTTPRequest.Method.get, .post, .delete] {
                let response = try await client.send(method, "/todo")
                #expect(response.status == .notFound, "\(method)")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(method)")
                #expect(response.errorMessage == "Not Found", "\(method)")
            }
            let head = try await client.send(.head, "/todo")
            #expect(head.status == .notFound)
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test(arguments: Wiring.allCases)
    func aMethodAPathDoesNotHaveIs405ListingThoseItHas(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("kept")
            let collection = "GET, HEAD, POST"
            let item = "GET, HEAD, PATCH, DELETE"
            let requests: [(HTTPRequest.Method, String, allow: String)] = [
                (.put, "/todos", collection),
                (.patch, "/todos", collection),
                (.delete, "/todos", collection),
                (.options, "/todos", collection),
                (.post, "/todos/\(made.id)", item),
                (.put, "/todos/\(made.id)", item),
            ]
            for (method, path, allow) in requests {
                let response = try await client.send(method, path, #"{"title": "replaced"}"#)
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                #expect(response.errorMessage == "the methods allowed here are \(allow)", "\(method) \(path)")
            }
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos == [made])
        }
    }

    /// Hummingbird answers a request it cannot parse below the router, where
    /// no middleware sees it; the server's channel handler gives that 400
    /// the same body. Over a real connection, as only a server parses.
    @Test(.timeLimit(.minutes(1)), arguments: [
        "GET /todos HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n",
        // The body's chunk size is not a number: the route, reading it, fails.
        "POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func aRequestThatIsNotValidHTTPIs400WithAJSONBody(request: String) async throws {
        try await withApp(testing: .live) { client, _ in
            let port = try #require(client.port)
            let response = try await exchange(request, port: port)
            let parts = response.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
            try #require(parts.count == 2, "\(response)")
            let (head, body) = (parts[0], String(parts[1]))
            #expect(head.hasPrefix("HTTP/1.1 400 "), "\(head)")
            #expect(head.contains("Content-Type: application/json; charset=utf-8"), "\(head)")
            #expect(errorMessage(in: body) == "the request is not valid HTTP", "\(body)")
        }
    }
}

/// A change log whose write fails with an error whose text is the server's
/// business: a path on its disk.
struct DiskFailingChangeLog: ChangeLog {
    struct DiskFailure: Error, CustomStringConvertible {
        var description: String { "disk I/O error writing /srv/todos/todos.sqlite-wal" }
    }

    func record(_ change: String, todo id: Int) async throws {
        throw DiskFailure()
    }
}

/// Lets a route through without request services, as a router missing
/// the scope middleware would.
struct NoRequestServicesMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context)
    }
}

/// The server's own failures: logged at error level with the request's
/// id, and not told to the client.
@Suite struct FailureLogTests {
    @Test func anUnexpectedErrorIsLoggedWithTheRequestIdAndThe500SaysNoMore() async throws {
        let log = CapturedLog()
        let requestID = Mutex<String?>(nil)
        try await withApp(logger: log.logger, configure: { app in
            app.register(type: (any ChangeLog).self, in: .scoped) { r in
                let request: RequestInfo = try r.resolve()
                requestID.withLock { $0 = request.id }
                return DiskFailingChangeLog()
            }
        }) { client, _ in
            let response = try await client.send(.post, "/todos", #"{"title": "never kept"}"#)
            #expect(response.status == .internalServerError)
            #expect(response.errorMessage == "internal server error")
            #expect(!String(buffer: response.body).contains("disk"))
        }
        let errors = log.records.filter { $0.level == .error }
        #expect(errors.count == 1)
        let record = try #require(errors.first)
        let id = try #require(requestID.withLock { $0 })
        #expect(record.metadata["hb.request.id"]?.description == id)
        #expect(record.metadata["error"]?.description == DiskFailingChangeLog.DiskFailure().description)
        #expect(record.metadata["method"]?.description == "POST")
        #expect(record.metadata["path"]?.description == "/todos")
    }

    /// A request the server cancels (its shutdown ran out of time) has not
    /// failed on its own: no error is logged for it.
    @Test(.timeLimit(.minutes(1))) func aCancelledRequestIsNotLoggedAsAFailure() async throws {
        let log = CapturedLog()
        let (reached, reachedContinuation) = AsyncStream<Void>.makeStream()
        try await withApp(logger: log.logger, configure: { app in
            app.register(type: (any ChangeLog).self, in: .scoped) { _ in
                WaitForCancellationChangeLog(reached: reachedContinuation)
            }
        }) { client, _ in
            let inflight = Task { try await client.send(.post, "/todos", #"{"title": "cancelled"}"#) }
            var iterator = reached.makeAsyncIterator()
            _ = await iterator.next()
            inflight.cancel()
            _ = try? await inflight.value
        }
        #expect(log.records.filter { $0.level == .error }.isEmpty)
    }

    /// An HTTP error with a 5xx status is the server's failure too; its
    /// message, written for the client, is sent.
    @Test func aServerErrorThatIsAnHTTPErrorIsLoggedToo() async throws {
        let log = CapturedLog()
        let router = TodoApplication.router(requestServices: NoRequestServicesMiddleware())
        try await Application(router: router, logger: log.logger).test(.router) { client in
            let response = try await client.send(.get, "/todos")
            #expect(response.status == .internalServerError)
            #expect(response.errorMessage == "no request scope: RequestScopeMiddleware is not on this route")
        }
        let errors = log.records.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.metadata["hb.request.id"] != nil)
    }
}

/// What is logged through `logger`, kept for a test to read.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var metadata: Logger.Metadata
    }

    private let kept = Mutex<[Record]>([])

    var records: [Record] { kept.withLock { $0 } }

    var logger: Logger {
        Logger(label: "captured") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let record = Record(level: event.level, metadata: metadata.merging(event.metadata ?? [:]) { $1 })
            log.kept.withLock { $0.append(record) }
        }
    }
}

/// Sends `request` on a connection of its own and returns what the server
/// answers before it closes the connection.
func exchange(_ request: String, port: Int) async throws -> String {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: request))
        var received = ByteBuffer()
        for try await part in inbound {
            received.writeImmutableBuffer(part)
        }
        return String(buffer: received)
    }
}
