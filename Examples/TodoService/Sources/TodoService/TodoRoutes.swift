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
/// A 400 or 404 carries Hummingbird's JSON error body,
/// `{"error": {"message": …}}`; a 413, and a 500 from a failed write, have
/// an empty body, as Hummingbird sends them. `HEAD` answers on the `GET`
/// routes (the router generates it).
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
    }

    private static func id(_ context: some RequestContext) throws -> Int {
        guard let id = context.parameters.get("id", as: Int.self) else {
            throw HTTPError(.badRequest, message: "a todo id is a whole number")
        }
        return id
    }
}

/// The body of `GET /todos`.
public struct TodoList: Codable, Sendable, ResponseEncodable {
    public var todos: [Todo]
}
