import Logging
import SQLiteNIO

/// The schema, as numbered steps. `PRAGMA user_version` records the last
/// step a database file has had, so opening an existing file runs only the
/// newer ones, each in a transaction of its own.
enum Migrations {
    static let steps: [String] = [
        """
        CREATE TABLE todos (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            completed INTEGER NOT NULL DEFAULT 0
        )
        """,
        // Every change, written in the same transaction as the change itself.
        """
        CREATE TABLE todo_changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            todo_id INTEGER NOT NULL,
            change TEXT NOT NULL,
            request_id TEXT NOT NULL
        )
        """,
    ]

    static func run(on connection: SQLiteConnection, logger: Logger) async throws {
        let rows = try await connection.query("PRAGMA user_version")
        let current = rows.first?.column("user_version")?.integer ?? 0
        for (index, step) in steps.enumerated().dropFirst(current) {
            _ = try await connection.query("BEGIN IMMEDIATE")
            do {
                _ = try await connection.query(step)
                _ = try await connection.query("PRAGMA user_version = \(index + 1)")
                _ = try await connection.query("COMMIT")
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
            logger.info("migrated", metadata: ["version": "\(index + 1)"])
        }
    }
}
