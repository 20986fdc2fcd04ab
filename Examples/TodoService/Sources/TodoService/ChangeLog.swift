import SQLiteNIO

/// Records every change to a todo, in the same transaction as the change:
/// a change is logged exactly when it commits.
public protocol ChangeLog: Sendable {
    func record(_ change: String, todo id: Int) async throws
}

/// The change log in the `todo_changes` table. Registered `.scoped` (it
/// writes through the request's transaction).
public struct SQLiteChangeLog: ChangeLog {
    let transaction: Transaction
    let request: RequestInfo

    public init(transaction: Transaction, request: RequestInfo) {
        self.transaction = transaction
        self.request = request
    }

    public func record(_ change: String, todo id: Int) async throws {
        _ = try await transaction.query(
            "INSERT INTO todo_changes (todo_id, change, request_id) VALUES (?, ?, ?)",
            [.integer(id), .text(change), .text(request.id)]
        )
    }
}
