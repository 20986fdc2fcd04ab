import Hummingbird
import Logging
import Synchronization
import TodoService

/// The app with no container: each request's objects constructed in code,
/// as `AppContainer` would, and the transaction ended after the route. The
/// load comparison's baseline: what the container costs is the difference.
public struct HandWiringMiddleware<Context: RequestServicesContext>: RouterMiddleware {
    let database: Database
    let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await HandWiredRequest(
            database: database,
            logger: logger,
            request: RequestInfo(id: context.id, method: request.method)
        )
        .serve(request, context: context, next: next)
    }
}

/// One request's objects, made when the route asks, the transaction once.
public final class HandWiredRequest: EndingRequestServices {
    let database: Database
    let logger: Logger
    let request: RequestInfo
    private let transaction = Mutex<Transaction?>(nil)

    public init(database: Database, logger: Logger, request: RequestInfo) {
        self.database = database
        self.logger = logger
        self.request = request
    }

    public func todoHandler() async throws -> TodoHandler {
        let transaction: Transaction
        if let existing = self.transaction.withLock({ $0 }) {
            transaction = existing
        } else {
            // A route asks once. Were two of its tasks to ask at the same
            // time, the loser's transaction would be ended at once, but only
            // for a read: a write request's second `begin` waits for the
            // writer connection the first holds, until the request ends.
            // (Syringe's `.scoped` claim makes the second task wait for the
            // first one's transaction instead.)
            let made = try await Transaction.begin(in: database, readOnly: request.isReadOnly)
            let kept = self.transaction.withLock { slot -> Transaction in
                if let winner = slot {
                    return winner
                }
                slot = made
                return made
            }
            if kept !== made {
                await made.end()
            }
            transaction = kept
        }
        return TodoHandler(
            repository: TodoRepository(transaction: transaction),
            changes: SQLiteChangeLog(transaction: transaction, request: request),
            transaction: transaction,
            log: RequestLogger(base: logger, request: request)
        )
    }

    /// Ends the transaction, if the route asked for one.
    public func end() async {
        if let transaction = transaction.withLock({ $0 }) {
            await transaction.end()
        }
    }
}
