import Hummingbird
import HummingbirdTesting
import Testing
import TodoService

/// Every route, its success and its errors, for each wiring.
@Suite struct RouteTests {
    @Test(arguments: Wiring.allCases)
    func createReturns201AndTheTodo(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let response = try await client.send(.post, "/todos", #"{"title": "buy milk"}"#)
            #expect(response.status == .created)
            let todo: Todo = try response.decoded()
            #expect(todo.title == "buy milk")
            #expect(todo.completed == false)
            #expect(todo.id > 0)
        }
    }

    @Test(arguments: Wiring.allCases)
    func listReturnsEveryTodoInCreationOrder(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let empty = try await client.send(.get, "/todos")
            #expect(empty.status == .ok)
            #expect(try empty.decoded(as: TodoList.self).todos.isEmpty)

            let first = try await client.create("first")
            let second = try await client.create("second")
            let list = try await client.send(.get, "/todos")
            #expect(list.status == .ok)
            #expect(try list.decoded(as: TodoList.self).todos == [first, second])
        }
    }

    @Test(arguments: Wiring.allCases)
    func getReturnsTheTodo(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("read me")
            let response = try await client.send(.get, "/todos/\(made.id)")
            #expect(response.status == .ok)
            #expect(try response.decoded(as: Todo.self) == made)
        }
    }

    @Test(arguments: Wiring.allCases)
    func patchChangesOnlyWhatIsPresent(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("draft")
            let completed = try await client.send(.patch, "/todos/\(made.id)", #"{"completed": true}"#)
            #expect(completed.status == .ok)
            #expect(try completed.decoded(as: Todo.self) == Todo(id: made.id, title: "draft", completed: true))

            let renamed = try await client.send(.patch, "/todos/\(made.id)", #"{"title": "final"}"#)
            #expect(try renamed.decoded(as: Todo.self) == Todo(id: made.id, title: "final", completed: true))
            let read = try await client.send(.get, "/todos/\(made.id)")
            #expect(try read.decoded(as: Todo.self) == Todo(id: made.id, title: "final", completed: true))
        }
    }

    @Test(arguments: Wiring.allCases)
    func deleteReturns204AndTheTodoIsGone(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("short-lived")
            let deleted = try await client.send(.delete, "/todos/\(made.id)")
            #expect(deleted.status == .noContent)
            #expect(deleted.body.readableBytes == 0)
            #expect(try await client.send(.get, "/todos/\(made.id)").status == .notFound)
            #expect(try await client.send(.delete, "/todos/\(made.id)").status == .notFound)
        }
    }

    @Test(arguments: Wiring.allCases)
    func unknownIdIs404WithAMessage(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            for method in [HTTPRequest.Method.get, .delete] {
                let response = try await client.send(method, "/todos/999")
                #expect(response.status == .notFound)
                #expect(response.errorMessage == "no todo has id 999")
            }
            let patch = try await client.send(.patch, "/todos/999", #"{"completed": true}"#)
            #expect(patch.status == .notFound)
        }
    }

    @Test(arguments: Wiring.allCases)
    func anIdThatIsNotANumberIs400(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let response = try await client.send(.get, "/todos/first")
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "a todo id is a whole number")
        }
    }

    @Test(arguments: Wiring.allCases)
    func malformedJSONIs400AndWritesNothing(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            for body in [#"{"title": "#, #"{"completed": true}"#, #"["title"]"#, "not json"] {
                let response = try await client.send(.post, "/todos", body)
                #expect(response.status == .badRequest, "\(body)")
            }
            let made = try await client.create("kept")
            #expect(try await client.send(.patch, "/todos/\(made.id)", #"{"title": 7}"#).status == .badRequest)
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos == [made])
        }
    }

    @Test(arguments: Wiring.allCases)
    func anInvalidTitleIs400(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let blank = try await client.send(.post, "/todos", #"{"title": "   "}"#)
            #expect(blank.status == .badRequest)
            #expect(blank.errorMessage == "title must not be empty")
            let long = String(repeating: "x", count: 201)
            let tooLong = try await client.send(.post, "/todos", #"{"title": "\#(long)"}"#)
            #expect(tooLong.status == .badRequest)
            #expect(tooLong.errorMessage == "title must be at most 200 characters")
        }
    }

    /// SQLiteNIO reads text back as a C string, so a NUL would cut the
    /// stored title short; the rule keeps every control character out.
    @Test(arguments: Wiring.allCases)
    func aTitleWithAControlCharacterIs400OnCreateAndUpdate(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("clean")
            // JSON escapes, decoded into the title by the server.
            for title in [#"\u0000"#, #"ab\u0000cd"#, #"line\nbreak"#, #"tab\there"#, #"del\u007f"#, #"c1\u0085"#] {
                let post = try await client.send(.post, "/todos", #"{"title": "\#(title)"}"#)
                #expect(post.status == .badRequest, "POST \(title)")
                #expect(post.errorMessage == "title must not contain control characters", "POST \(title)")
                let patch = try await client.send(.patch, "/todos/\(made.id)", #"{"title": "\#(title)"}"#)
                #expect(patch.status == .badRequest, "PATCH \(title)")
                #expect(patch.errorMessage == "title must not contain control characters", "PATCH \(title)")
            }
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos == [made])
        }
    }

    @Test(arguments: Wiring.allCases)
    func headAnswersLikeGet(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let made = try await client.create("headed")
            let head = try await client.send(.head, "/todos/\(made.id)")
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == "application/json; charset=utf-8")
            #expect(try await client.send(.head, "/todos").status == .ok)
            #expect(try await client.send(.head, "/todos/999").status == .notFound)
        }
    }

    @Test(arguments: Wiring.allCases)
    func aBodyOver16KiBIs413(wiring: Wiring) async throws {
        try await withApp(wiring) { client, _ in
            let title = String(repeating: "x", count: 17 * 1024)
            let post = try await client.send(.post, "/todos", #"{"title": "\#(title)"}"#)
            #expect(post.status == .contentTooLarge)
            #expect(post.errorMessage == "Content Too Large")
            let made = try await client.create("small")
            let patch = try await client.send(.patch, "/todos/\(made.id)", #"{"title": "\#(title)"}"#)
            #expect(patch.status == .contentTooLarge)
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos == [made])
        }
    }

    /// More writers at once than the pool has connections, beside readers:
    /// writers queue for the one writer connection in the app, never in
    /// SQLite's busy handler, where they could starve the writer they wait
    /// for of a thread and fail after `busy_timeout`.
    @Test(.timeLimit(.minutes(1)), arguments: Wiring.allCases)
    func concurrentWritesAndReadsAllSucceed(wiring: Wiring) async throws {
        try await withApp(wiring) { client, database in
            let seed = try await client.create("seed")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<32 {
                    group.addTask { try await client.send(.post, "/todos", #"{"title": "w\#(index)"}"#).status }
                    group.addTask { try await client.send(.get, "/todos/\(seed.id)").status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 32)
            #expect(statuses.filter { $0 == .ok }.count == 32)
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos.count == 33)
            #expect(database.statistics.leased == 0)
        }
    }
}
