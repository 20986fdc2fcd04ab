import Hummingbird
import HummingbirdTesting
import Synchronization
import Syringe
import Testing
import TodoService

/// A change log that fails: the request that writes through it fails after
/// its todo was inserted, in the same transaction.
struct FailingChangeLog: ChangeLog {
    struct Failure: Error {}

    func record(_ change: String, todo id: Int) async throws {
        throw Failure()
    }
}

/// A change log that signals it was reached, then waits until its request
/// is cancelled: a request caught mid-flight, its todo already inserted.
struct WaitForCancellationChangeLog: ChangeLog {
    let reached: AsyncStream<Void>.Continuation

    func record(_ change: String, todo id: Int) async throws {
        reached.yield()
        try await Task.sleep(for: .seconds(86_400))
    }
}

/// Counts disposals of a `.scoped` registration.
final class DisposalCounter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
    }
}

/// The request scope: one transaction per request, committed by the
/// handler, rolled back by the scope's disposer when the request failed,
/// and every scope closed whatever the outcome.
@Suite struct RequestScopeTests {
    @Test func aFailingRequestRollsItsTransactionBack() async throws {
        try await withApp(configure: { app in
            app.register(type: (any ChangeLog).self, in: .scoped) { _ in FailingChangeLog() }
        }) { client, database in
            let response = try await client.send(.post, "/todos", #"{"title": "never kept"}"#)
            #expect(response.status == .internalServerError)

            // The insert ran before the change log failed: only the
            // rollback keeps it out of the list.
            let list = try await client.send(.get, "/todos")
            #expect(try list.decoded(as: TodoList.self).todos.isEmpty)
            let statistics = database.statistics
            #expect(statistics.rollbacks == 1)
            #expect(statistics.commits == 1)  // the list
            #expect(statistics.leased == 0)
        }
    }

    @Test func aRequestThatThrowsAfterResolvingRollsBackToo() async throws {
        try await withApp { client, database in
            let made = try await client.create("stays")
            // The handler (and its transaction) is resolved before the id is
            // read, so the bad id fails a request that holds a transaction.
            #expect(try await client.send(.get, "/todos/abc").status == .badRequest)
            #expect(try await client.send(.patch, "/todos/\(made.id)", #"{"title": ""}"#).status == .badRequest)
            let statistics = database.statistics
            #expect(statistics.commits == 1)
            #expect(statistics.rollbacks == 2)
            #expect(statistics.leased == 0)
            let read = try await client.send(.get, "/todos/\(made.id)")
            #expect(try read.decoded(as: Todo.self).title == "stays")
        }
    }

    @Test(arguments: Wiring.allCases)
    func everyRequestEndsItsTransaction(wiring: Wiring) async throws {
        try await withApp(wiring) { client, database in
            var expected = 0
            for index in 0..<5 {
                let made = try await client.create("todo \(index)")
                _ = try await client.send(.get, "/todos/\(made.id)")
                _ = try await client.send(.patch, "/todos/\(made.id)", #"{"completed": true}"#)
                expected += 3
            }
            _ = try await client.send(.get, "/todos")
            _ = try await client.send(.get, "/todos/404")
            _ = try await client.send(.delete, "/todos/1")
            _ = try await client.send(.post, "/todos", #"{"title": ""}"#)
            expected += 4
            let statistics = database.statistics
            #expect(statistics.leases == expected)
            #expect(statistics.commits + statistics.rollbacks == expected)
            #expect(statistics.rollbacks == 2)
            #expect(statistics.leased == 0)
        }
    }

    @Test func everyRequestScopeIsClosed() async throws {
        let disposed = DisposalCounter()
        try await withApp(configure: { app in
            app.register(type: RequestLogger.self, in: .scoped) { r in
                RequestLogger(base: testLogger, request: try r.resolve())
            }
            .onDispose { _ in disposed.increment() }
        }) { client, _ in
            let made = try await client.create("one")
            _ = try await client.send(.get, "/todos")
            _ = try await client.send(.get, "/todos/\(made.id)")
            _ = try await client.send(.get, "/todos/999")                          // 404
            _ = try await client.send(.post, "/todos", #"{"title": "  "}"#)       // 400 from the handler
            _ = try await client.send(.delete, "/todos/\(made.id)")
            #expect(disposed.value == 6)
            // A request that fails before it resolves anything has nothing
            // of its scope to dispose.
            _ = try await client.send(.post, "/todos", "not json")
            #expect(disposed.value == 6)
        }
    }

    @Test func theRequestIdReachesTheLogAndTheChangeLog() async throws {
        try await withApp { client, database in
            _ = try await client.create("traced")
            let transaction = try await Transaction.begin(in: database, readOnly: true)
            let rows = try await transaction.query("SELECT change, request_id FROM todo_changes")
            await transaction.end()
            #expect(rows.count == 1)
            #expect(rows.first?.column("change")?.string == "created")
            let id = try #require(rows.first?.column("request_id")?.string)
            #expect(!id.isEmpty)
        }
    }

    @Test func aScopeResolvesOneTransactionForEverything() async throws {
        let file = TestDatabase()
        defer { file.remove() }
        let app = AppContainer.make(database: file.configuration, logger: testLogger)
        let database: Database = try await app.resolveAsync()
        let scope = app.makeScope()
        scope.register(type: RequestInfo.self, dependency: RequestInfo(id: "r1", method: .post))
        let first: TodoHandler = try await scope.resolveAsync()
        let second: TodoHandler = try await scope.resolveAsync()
        #expect(database.statistics.leases == 1)
        _ = (first, second)
        try await scope.close()
        #expect(database.statistics.leased == 0)
        #expect(database.statistics.rollbacks == 1)
        try await app.close()
        #expect(database.statistics.isClosed)
    }

    /// A request cancelled after its write (its client went away, a
    /// timeout): its scope still rolls the transaction back, in SQLite too,
    /// and the writer connection it gives back serves the next request.
    @Test(.timeLimit(.minutes(2))) func aCancelledRequestIsRolledBackAndItsConnectionReused() async throws {
        let (reached, reachedContinuation) = AsyncStream<Void>.makeStream()
        let first = Mutex(true)
        try await withApp(configure: { app in
            app.register(type: (any ChangeLog).self, in: .scoped) { (r: Resolver) async throws -> any ChangeLog in
                if first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) {
                    return WaitForCancellationChangeLog(reached: reachedContinuation)
                }
                return SQLiteChangeLog(transaction: try await r.resolve(), request: try await r.resolve())
            }
        }) { client, database in
            let inflight = Task { try await client.send(.post, "/todos", #"{"title": "cancelled"}"#) }
            var iterator = reached.makeAsyncIterator()
            _ = await iterator.next()
            inflight.cancel()
            _ = try? await inflight.value
            let next = try await client.send(.post, "/todos", #"{"title": "after"}"#)
            #expect(next.status == .created)
            let list = try await client.send(.get, "/todos")
            #expect(!String(buffer: list.body).contains("cancelled"))
            #expect(String(buffer: list.body).contains("after"))
            #expect(database.statistics.leased == 0)
        }
    }

    /// What every wiring's end of a request calls, in a cancelled task.
    @Test(.timeLimit(.minutes(2))) func endingATransactionInACancelledTaskRollsBack() async throws {
        let file = TestDatabase()
        defer { file.remove() }
        let database = try await Database.open(file.configuration, logger: testLogger)
        try await Task {
            let transaction = try await Transaction.begin(in: database, readOnly: false)
            _ = try await transaction.query("INSERT INTO todos (title) VALUES ('ghost')")
            withUnsafeCurrentTask { $0?.cancel() }
            await transaction.end()
        }.value
        let next = try await Transaction.begin(in: database, readOnly: false)
        let ghosts = try await next.query("SELECT title FROM todos WHERE title = 'ghost'")
        #expect(ghosts.isEmpty)
        await next.end()
        await database.close()
    }
}
