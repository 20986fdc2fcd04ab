import Hummingbird
import HummingbirdTesting
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
}
