import Logging
import SQLiteNIO
import Synchronization

/// The SQLite database: a file in WAL mode, one connection that writes and
/// a pool of connections that only read.
///
/// SQLite lets one transaction write at a time, and WAL lets readers run
/// beside it. Write transactions therefore queue here, for the one writer
/// connection, instead of in SQLite: a second writer inside SQLite would
/// wait in its busy handler on one of the few threads SQLiteNIO runs
/// statements on, where it can starve the writer it waits for of a thread
/// (seen under load as requests stalled until `busy_timeout` failed them).
/// Read-only transactions get a reader connection each. A request that
/// finds its kind of connection all leased waits for one (first come, first
/// served) without holding a thread.
///
/// Registered `.shared` with an async factory that opens it and migrates
/// the schema, and disposed (closed) when the app container closes.
public final class Database: Sendable {
    /// Where the database lives and how many connections to keep.
    public struct Configuration: Sendable {
        public var path: String
        /// All connections: one writer, the rest readers (at least one).
        public var connections: Int

        /// `path` is a file; `":memory:"` is not allowed (each connection
        /// would get a database of its own).
        public init(path: String, connections: Int = 8) {
            self.path = path
            self.connections = max(2, connections)
        }
    }

    /// What the database has done, for tests and for the shutdown log.
    public struct Statistics: Sendable, Equatable {
        /// Connections handed to transactions, in all.
        public var leases = 0
        /// Connections held by a transaction right now.
        public var leased = 0
        public var commits = 0
        public var rollbacks = 0
        public var isClosed = false
    }

    public enum Failure: Error, CustomStringConvertible {
        case closed
        case inMemory

        public var description: String {
            switch self {
            case .closed: "the database is closed"
            case .inMemory: "a pooled database must be a file: each connection to :memory: is a database of its own"
            }
        }
    }

    /// Which connections a transaction leases from.
    enum Role: Int {
        case reader = 0
        case writer = 1
    }

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<SQLiteConnection, any Error>
    }

    /// The idle connections and the waiters of one role.
    private struct Pool {
        var idle: [SQLiteConnection]
        var waiters: [Waiter] = []
    }

    private struct State {
        /// Indexed by `Role.rawValue`.
        var pools: [Pool]
        /// Leases under way that have not started waiting yet, so that a
        /// cancellation arriving before the waiter is queued is not lost.
        var starting: Set<UInt64> = []
        var cancelledBeforeWaiting: Set<UInt64> = []
        var nextID: UInt64 = 0
        var statistics = Statistics()

        /// An idle connection of `role`, counted as leased; nil if none is.
        mutating func takeIdle(_ role: Role) -> SQLiteConnection? {
            guard let connection = pools[role.rawValue].idle.popLast() else {
                return nil
            }
            statistics.leases += 1
            statistics.leased += 1
            return connection
        }
    }

    private let state: Mutex<State>
    private let logger: Logger

    private init(writer: SQLiteConnection, readers: [SQLiteConnection], logger: Logger) {
        self.state = Mutex(State(pools: [Pool(idle: readers), Pool(idle: [writer])]))
        self.logger = logger
    }

    /// Opens the connections and brings the schema up to date.
    public static func open(_ configuration: Configuration, logger: Logger) async throws -> Database {
        try await open(configuration, logger: logger) {
            try await SQLiteConnection.open(storage: .file(path: configuration.path), logger: logger)
        }
    }

    /// `open(_:logger:)` with `connect` making each connection: a test's
    /// stops the opening part-way, failing or cancelling it.
    package static func open(
        _ configuration: Configuration,
        logger: Logger,
        connect: () async throws -> SQLiteConnection
    ) async throws -> Database {
        guard configuration.path != ":memory:" else {
            throw Failure.inMemory
        }
        var connections: [SQLiteConnection] = []
        do {
            for _ in 0..<configuration.connections {
                let connection = try await connect()
                connections.append(connection)
                // Another process writing the file makes a writer wait up
                // to 5 s for its lock instead of failing at once.
                _ = try await connection.query("PRAGMA busy_timeout = 5000")
                if connections.count == 1 {
                    try await enableWAL(on: connection)
                    _ = try await connection.query("PRAGMA synchronous = NORMAL")
                    try await Migrations.run(on: connection, logger: logger)
                } else {
                    // A reader that tried to write would fail, not queue
                    // for the write lock inside SQLite.
                    _ = try await connection.query("PRAGMA query_only = 1")
                }
            }
        } catch {
            // Outside the cancellation: when start-up is cancelled part-way,
            // SQLiteNIO would refuse to close them in this task.
            for connection in connections {
                try? await outsideCancellation { try await connection.close() }
            }
            throw error
        }
        logger.info("database opened", metadata: ["path": "\(configuration.path)", "connections": "\(connections.count)"])
        return Database(writer: connections[0], readers: Array(connections.dropFirst()), logger: logger)
    }

    /// `PRAGMA journal_mode = WAL`, retried for as long as the busy timeout
    /// would wait: on a new file, while another connection (another server
    /// starting on the same file) is in a transaction, SQLite answers busy
    /// at once instead of waiting in the busy handler.
    private static func enableWAL(on connection: SQLiteConnection) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                _ = try await connection.query("PRAGMA journal_mode = WAL")
                return
            } catch let error as SQLiteError {
                guard case .busy = error.reason, ContinuousClock.now < deadline else {
                    throw error
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// A snapshot of the counters.
    public var statistics: Statistics {
        state.withLock { $0.statistics }
    }

    /// Takes a connection of `role`, waiting (first come, first served)
    /// while all are leased. Give it back with `release(_:role:committed:)`.
    func lease(_ role: Role) async throws -> SQLiteConnection {
        enum Taken {
            case connection(SQLiteConnection)
            case wait(UInt64)
            case failure(any Error)
        }
        let taken = state.withLock { state -> Taken in
            if state.statistics.isClosed {
                return .failure(Failure.closed)
            }
            if let connection = state.takeIdle(role) {
                return .connection(connection)
            }
            let id = state.nextID
            state.nextID += 1
            state.starting.insert(id)
            return .wait(id)
        }
        switch taken {
        case .connection(let connection):
            return connection
        case .failure(let error):
            throw error
        case .wait(let id):
            return try await waitForConnection(role, id: id)
        }
    }

    private func waitForConnection(_ role: Role, id: UInt64) async throws -> SQLiteConnection {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SQLiteConnection, any Error>) in
                let outcome = state.withLock { state -> Result<SQLiteConnection, any Error>? in
                    state.starting.remove(id)
                    if state.cancelledBeforeWaiting.remove(id) != nil {
                        return .failure(CancellationError())
                    }
                    if state.statistics.isClosed {
                        return .failure(Failure.closed)
                    }
                    // A connection may have come back since `lease` looked.
                    if let connection = state.takeIdle(role) {
                        return .success(connection)
                    }
                    state.pools[role.rawValue].waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let index = state.pools[role.rawValue].waiters.firstIndex(where: { $0.id == id }) {
                    return state.pools[role.rawValue].waiters.remove(at: index)
                }
                if state.starting.contains(id) {
                    state.cancelledBeforeWaiting.insert(id)
                }
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a leased connection back: to the longest waiter for its role,
    /// or to its pool. After `close()`, the connection is closed instead.
    func release(_ connection: SQLiteConnection, role: Role, committed: Bool) async {
        enum Next {
            case handOver(Waiter)
            case pooled
            case close
        }
        let next = state.withLock { state -> Next in
            if committed {
                state.statistics.commits += 1
            } else {
                state.statistics.rollbacks += 1
            }
            if state.statistics.isClosed {
                state.statistics.leased -= 1
                return .close
            }
            if !state.pools[role.rawValue].waiters.isEmpty {
                // The lease passes to the waiter: `leased` stays as it is.
                state.statistics.leases += 1
                return .handOver(state.pools[role.rawValue].waiters.removeFirst())
            }
            state.statistics.leased -= 1
            state.pools[role.rawValue].idle.append(connection)
            return .pooled
        }
        switch next {
        case .handOver(let waiter):
            waiter.continuation.resume(returning: connection)
        case .pooled:
            break
        case .close:
            try? await outsideCancellation { try await connection.close() }   // see `Transaction.end()`
        }
    }

    /// Closes the idle connections and fails the waiters; a connection still
    /// leased is closed when its transaction gives it back. Run by the app
    /// container's `close()` at shutdown, after the server has finished its
    /// requests.
    public func close() async {
        let (idle, waiters) = state.withLock { state -> ([SQLiteConnection], [Waiter]) in
            guard !state.statistics.isClosed else {
                return ([], [])
            }
            state.statistics.isClosed = true
            defer {
                for role in state.pools.indices {
                    state.pools[role] = Pool(idle: [])
                }
            }
            return (state.pools.flatMap(\.idle), state.pools.flatMap(\.waiters))
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: Failure.closed)
        }
        for connection in idle {
            try? await outsideCancellation { try await connection.close() }
        }
        logger.notice("database closed", metadata: ["statistics": "\(statistics)"])
    }
}
