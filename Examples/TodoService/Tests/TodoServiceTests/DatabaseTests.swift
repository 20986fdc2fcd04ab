import SQLiteNIO
import Synchronization
import Testing
import TodoService

@Suite struct DatabaseTests {
    enum Interruption: CaseIterable, Sendable {
        /// Start-up cancelled, by a signal say.
        case cancelled
        /// A connection that cannot be opened (too many open files, say).
        case failed
    }

    struct ConnectFailed: Error {}

    /// An opening stopped after two of its connections: both are closed,
    /// even in the cancelled task, where SQLiteNIO refuses to close them.
    @Test(.timeLimit(.minutes(1)), arguments: Interruption.allCases)
    func anOpeningStoppedPartWayClosesTheConnectionsItOpened(by interruption: Interruption) async throws {
        let file = TestDatabase()
        defer { file.remove() }
        let opened = Mutex<[SQLiteConnection]>([])
        let opening = Task {
            try await Database.open(file.configuration, logger: testLogger) {
                if opened.withLock({ $0.count }) == 2 {
                    switch interruption {
                    case .cancelled: withUnsafeCurrentTask { $0?.cancel() }
                    case .failed: throw ConnectFailed()
                    }
                }
                let connection = try await SQLiteConnection.open(storage: .file(path: file.path), logger: testLogger)
                opened.withLock { $0.append(connection) }
                return connection
            }
        }
        switch interruption {
        case .cancelled: await #expect(throws: CancellationError.self) { try await opening.value }
        case .failed: await #expect(throws: ConnectFailed.self) { try await opening.value }
        }
        let connections = opened.withLock { $0 }
        #expect(connections.count == 2)
        #expect(connections.allSatisfy { $0.isClosed })
        // What the opening left open, closed here: SQLiteNIO asserts that a
        // connection is closed before it is freed.
        for connection in connections where !connection.isClosed {
            try await connection.close()
        }
    }
}
