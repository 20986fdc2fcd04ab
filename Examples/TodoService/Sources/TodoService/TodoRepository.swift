import SQLiteNIO

/// The todos table, through the request's transaction.
public struct TodoRepository: Sendable {
    let transaction: Transaction

    public init(transaction: Transaction) {
        self.transaction = transaction
    }

    public func all() async throws -> [Todo] {
        try await transaction.query("SELECT id, title, completed FROM todos ORDER BY id").map(Self.todo)
    }

    public func find(_ id: Int) async throws -> Todo? {
        try await transaction.query("SELECT id, title, completed FROM todos WHERE id = ?", [.integer(id)]).first.map(Self.todo)
    }

    public func insert(_ new: NewTodo) async throws -> Todo {
        let rows = try await transaction.query(
            "INSERT INTO todos (title, completed) VALUES (?, ?) RETURNING id, title, completed",
            [.text(new.title), .integer(new.completed == true ? 1 : 0)]
        )
        return Self.todo(rows[0])
    }

    /// The todo after the change, or nil when there is no such todo.
    public func update(_ id: Int, with changes: TodoChanges) async throws -> Todo? {
        try await transaction.query(
            """
            UPDATE todos SET title = coalesce(?, title), completed = coalesce(?, completed)
            WHERE id = ? RETURNING id, title, completed
            """,
            [changes.title.map(SQLiteData.text) ?? .null, changes.completed.map { .integer($0 ? 1 : 0) } ?? .null, .integer(id)]
        ).first.map(Self.todo)
    }

    /// Whether there was such a todo.
    public func delete(_ id: Int) async throws -> Bool {
        try await !transaction.query("DELETE FROM todos WHERE id = ? RETURNING id", [.integer(id)]).isEmpty
    }

    private static func todo(_ row: SQLiteRow) -> Todo {
        Todo(
            id: row.column("id")?.integer ?? 0,
            title: row.column("title")?.string ?? "",
            completed: (row.column("completed")?.integer ?? 0) != 0
        )
    }
}
