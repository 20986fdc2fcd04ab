import Hummingbird
import Logging
import Swinject
import Synchronization
import TodoService

/// The app wired with Swinject 2.10 as servers use it: a root container
/// with the app's objects, and a child container per request holding the
/// request's. Swinject's factories cannot `await` and it disposes nothing,
/// so the transaction is begun before the handler is resolved and ended by
/// the middleware, as a Swinject user would write it.
public struct SwinjectWiringMiddleware<Context: RequestServicesContext>: RouterMiddleware {
    let root: SwinjectRoot

    public init(database: Database, logger: Logger) {
        root = SwinjectRoot(database: database, logger: logger)
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await SwinjectRequest(root: root, request: RequestInfo(id: context.id, method: request.method))
            .serve(request, context: context, next: next)
    }
}

/// Swinject's `Container` is not `Sendable`. The root is written only here,
/// before the server starts; afterwards every request resolves from it
/// through a child's `synchronize()`d resolver (see `SwinjectRequest`).
public final class SwinjectRoot: @unchecked Sendable {
    let container: Swinject.Container
    let database: Database

    public init(database: Database, logger: Logger) {
        self.database = database
        container = Swinject.Container()
        container.register(Database.self) { _ in database }.inObjectScope(.container)
        container.register(Logger.self) { _ in logger }.inObjectScope(.container)
        container.register(RequestLogger.self) { r in
            RequestLogger(base: r.resolve(Logger.self)!, request: r.resolve(RequestInfo.self)!)
        }
        container.register((any ChangeLog).self) { r in
            SQLiteChangeLog(transaction: r.resolve(Transaction.self)!, request: r.resolve(RequestInfo.self)!)
        }
        container.register(TodoRepository.self) { r in
            TodoRepository(transaction: r.resolve(Transaction.self)!)
        }
        container.register(TodoHandler.self) { r in
            TodoHandler(
                repository: r.resolve(TodoRepository.self)!,
                changes: r.resolve((any ChangeLog).self)!,
                transaction: r.resolve(Transaction.self)!,
                log: r.resolve(RequestLogger.self)!
            )
        }
    }
}

/// One request's child container. Used by one request's task at a time.
///
/// Resolves go through `synchronize()`: a plain Swinject resolve is not
/// thread-safe (the root's `.container` instances and its resolution state
/// are written without a lock), and concurrent requests crash it. The
/// synchronized resolver takes a recursive lock that a child shares with its
/// parent, so every request's resolves are serialised on it, as Swinject's
/// documentation asks of concurrent use.
public final class SwinjectRequest: EndingRequestServices, @unchecked Sendable {
    let root: SwinjectRoot
    let request: RequestInfo
    let child: Swinject.Container
    private let transaction = Mutex<Transaction?>(nil)

    public init(root: SwinjectRoot, request: RequestInfo) {
        self.root = root
        self.request = request
        child = Swinject.Container(parent: root.container)
        child.register(RequestInfo.self) { _ in request }
    }

    public func todoHandler() async throws -> TodoHandler {
        if transaction.withLock({ $0 }) == nil {
            let made = try await Transaction.begin(in: root.database, readOnly: request.isReadOnly)
            transaction.withLock { $0 = made }
            child.register(Transaction.self) { _ in made }
        }
        guard let handler = child.synchronize().resolve(TodoHandler.self) else {
            throw HTTPError(.internalServerError, message: "Swinject resolved no TodoHandler")
        }
        return handler
    }

    /// Ends the transaction, if the route asked for one.
    public func end() async {
        if let transaction = transaction.withLock({ $0 }) {
            await transaction.end()
        }
    }
}
