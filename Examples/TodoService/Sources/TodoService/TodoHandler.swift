import Hummingbird
import Logging

/// What the routes do, for one request: built per request (`.new`) from the
/// request's scope, so its repository, change log and logger all share the
/// request's transaction and id. Each operation commits when it succeeds;
/// when it throws, the scope's disposer rolls the transaction back.
public struct TodoHandler: Sendable {
    let repository: TodoRepository
    let changes: any ChangeLog
    let transaction: Transaction
    let log: RequestLogger

    public init(repository: TodoRepository, changes: any ChangeLog, transaction: Transaction, log: RequestLogger) {
        self.repository = repository
        self.changes = changes
        self.transaction = transaction
        self.log = log
    }

    public func list() async throws -> [Todo] {
        let todos = try await repository.all()
        try await transaction.commit()
        return todos
    }

    public func get(_ id: Int) async throws -> Todo {
        guard let todo = try await repository.find(id) else {
            throw Self.notFound(id)
        }
        try await transaction.commit()
        return todo
    }

    public func create(_ new: NewTodo) async throws -> Todo {
        try TitleRule.check(new.title)
        let todo = try await repository.insert(new)
        try await changes.record("created", todo: todo.id)
        try await transaction.commit()
        log.logger.info("todo created", metadata: ["todo": "\(todo.id)"])
        return todo
    }

    public func update(_ id: Int, with changes: TodoChanges) async throws -> Todo {
        if let title = changes.title {
            try TitleRule.check(title)
        }
        guard let todo = try await repository.update(id, with: changes) else {
            throw Self.notFound(id)
        }
        try await self.changes.record("updated", todo: id)
        try await transaction.commit()
        log.logger.info("todo updated", metadata: ["todo": "\(id)"])
        return todo
    }

    public func delete(_ id: Int) async throws {
        guard try await repository.delete(id) else {
            throw Self.notFound(id)
        }
        try await changes.record("deleted", todo: id)
        try await transaction.commit()
        log.logger.info("todo deleted", metadata: ["todo": "\(id)"])
    }

    private static func notFound(_ id: Int) -> HTTPError {
        HTTPError(.notFound, message: "no todo has id \(id)")
    }
}
