import Hummingbird

/// The JSON API:
///
/// | Route                | Success            | Errors                                   |
/// |----------------------|--------------------|------------------------------------------|
/// | `GET /todos`         | 200 `{"todos": …}` |                                          |
/// | `POST /todos`        | 201 the todo       | 400 bad JSON or title, 413 body > 16 KiB |
/// | `GET /todos/:id`     | 200 the todo       | 400 id not a number, 404 unknown id      |
/// | `PATCH /todos/:id`   | 200 the todo       | 400, 404, 413                            |
/// | `DELETE /todos/:id`  | 204                | 400, 404                                 |
///
/// Another of HTTP's standard methods on these paths is a 405 whose `Allow`
/// header lists the path's methods, and any other path a 404. Every error
/// carries Hummingbird's JSON error body, `{"error": {"message": …}}`
/// (`JSONErrorMiddleware`); a failed write's 500 says no more than
/// `internal server error`. `HEAD` answers on the `GET` routes (the router
/// generates it).
public enum TodoRoutes {
    public static func add<Context: RequestServicesContext>(to router: Router<Context>) {
        router.group("todos")
            .get { _, context in
                TodoList(todos: try await context.services.todoHandler().list())
            }
            .post { request, context -> EditedResponse<Todo> in
                let new = try await request.decode(as: NewTodo.self, context: context)
                let todo = try await context.services.todoHandler().create(new)
                return EditedResponse(status: .created, response: todo)
            }
            .allowOnly([.get, .head, .post])
            .get(":id") { _, context in
                try await context.services.todoHandler().get(id(context))
            }
            .patch(":id") { request, context in
                let changes = try await request.decode(as: TodoChanges.self, context: context)
                return try await context.services.todoHandler().update(id(context), with: changes)
            }
            .delete(":id") { _, context -> HTTPResponse.Status in
                try await context.services.todoHandler().delete(id(context))
                return .noContent
            }
            .allowOnly([.get, .head, .patch, .delete], on: ":id")
    }

    private static func id(_ context: some RequestContext) throws -> Int {
        guard let id = context.parameters.get("id", as: Int.self) else {
            throw HTTPError(.badRequest, message: "a todo id is a whole number")
        }
        return id
    }
}

extension RouterMethods {
    /// Answers HTTP's other methods on `path` with a 405 whose `Allow`
    /// header lists `allowed`: the router alone answers them 404, as for a
    /// path it does not have.
    @discardableResult
    func allowOnly(_ allowed: [HTTPRequest.Method], on path: RouterPath = "") -> Self {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        let standard: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]
        for method in standard where !allowed.contains(method) {
            on(path, method: method) { _, _ -> HTTPResponse.Status in
                throw HTTPError(.methodNotAllowed, headers: [.allow: allow], message: "the methods allowed here are \(allow)")
            }
        }
        return self
    }
}

/// The body of `GET /todos`.
public struct TodoList: Codable, Sendable, ResponseEncodable {
    public var todos: [Todo]
}
