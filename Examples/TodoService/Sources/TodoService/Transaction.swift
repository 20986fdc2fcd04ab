import SQLiteNIO
import Synchronization

/// One request's database transaction, on a connection leased from the
/// pool. Registered `.scoped`: everything the request resolves shares it.
///
/// The handler commits when the request succeeds; the scope's disposer,
/// `end()`, rolls back whatever was not committed (the request threw, or
/// never got to commit) and gives the connection back.
public final class Transaction: Sendable {
    private enum Phase {
        case open
        case committed
        case ended
    }

    private let database: Database
    private let connection: SQLiteConnection
    private let role: Database.Role
    private let phase = Mutex(Phase.open)

    private init(database: Database, connection: SQLiteConnection, role: Database.Role) {
        self.database = database
        self.connection = connection
        self.role = role
    }

    /// Leases a connection and begins. A read-only request leases a reader
    /// and takes no lock (`BEGIN`); one that may write leases the writer and
    /// takes the write lock at once (`BEGIN IMMEDIATE`), so that a write
    /// after a read in the same transaction cannot fail on a lock.
    public static func begin(in database: Database, readOnly: Bool) async throws -> Transaction {
        let role: Database.Role = readOnly ? .reader : .writer
        let connection = try await database.lease(role)
        do {
            _ = try await connection.query(readOnly ? "BEGIN" : "BEGIN IMMEDIATE")
        } catch {
            await database.release(connection, role: role, committed: false)
            throw error
        }
        return Transaction(database: database, connection: connection, role: role)
    }

    /// Runs one statement in the transaction.
    public func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        guard phase.withLock({ $0 == .open }) else {
            throw TransactionError.notOpen
        }
        return try await connection.query(sql, binds)
    }

    /// Commits. If COMMIT fails the transaction stays open, and `end()` rolls
    /// it back.
    public func commit() async throws {
        guard phase.withLock({ $0 == .open }) else {
            throw TransactionError.notOpen
        }
        _ = try await connection.query("COMMIT")
        phase.withLock { $0 = .committed }
    }

    /// Whether `commit()` succeeded.
    public var isCommitted: Bool {
        phase.withLock { $0 == .committed }
    }

    /// The disposer: rolls back unless committed and returns the connection
    /// to the pool. A second call does nothing.
    public func end() async {
        let before = phase.withLock { phase -> Phase in
            defer { phase = .ended }
            return phase
        }
        switch before {
        case .ended:
            return
        case .committed:
            await database.release(connection, role: role, committed: true)
        case .open:
            // A failed ROLLBACK leaves nothing to undo: SQLite has already
            // rolled back when a statement's error ended the transaction.
            // Outside the request's cancellation: in a cancelled task
            // SQLiteNIO fails a query before running it, and the connection
            // would go back to the pool inside the transaction.
            let connection = connection
            _ = try? await outsideCancellation { _ = try await connection.query("ROLLBACK") }
            await database.release(connection, role: role, committed: false)
        }
    }
}

/// Using a transaction after it committed or ended.
public enum TransactionError: Error, CustomStringConvertible {
    case notOpen

    public var description: String {
        "the request's transaction has already committed or ended"
    }
}

/// Runs `body` where the current task's cancellation does not reach it (in
/// a task of its own when the current one is cancelled, else here): what
/// ends a request's transaction or closes a connection must run whatever
/// became of the request, and SQLiteNIO fails a query or a close in a
/// cancelled task before starting it.
func outsideCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    guard Task.isCancelled else {
        return try await body()
    }
    return try await Task { try await body() }.value
}
