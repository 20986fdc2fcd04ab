import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
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
