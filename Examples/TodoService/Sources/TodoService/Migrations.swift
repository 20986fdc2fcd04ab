import Logging
import SQLiteNIO

/// The schema, as numbered steps. `PRAGMA user_version` records the last
/// step a database file has had, so opening an existing file runs only the
/// newer ones, each in a write transaction of its own that reads the
/// version it starts from.
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
        // The version is read inside the write transaction, not before it:
        // two servers opening a new file at once both see version 0 outside
        // it, and the second would then run the steps the first has just
        // committed ("table todos already exists"). Inside it, the second
        // waits for the first's lock and then sees what is left to do.
        while true {
            _ = try await connection.query("BEGIN IMMEDIATE")
            let version: Int
            do {
                let rows = try await connection.query("PRAGMA user_version")
                let current = rows.first?.column("user_version")?.integer ?? 0
                guard current < steps.count else {
                    _ = try await connection.query("COMMIT")
                    return
                }
                version = current + 1
                _ = try await connection.query(steps[current])
                _ = try await connection.query("PRAGMA user_version = \(version)")
                _ = try await connection.query("COMMIT")
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
            logger.info("migrated", metadata: ["version": "\(version)"])
        }
    }
}
