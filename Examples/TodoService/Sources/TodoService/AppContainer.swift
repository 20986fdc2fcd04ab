import Logging
import Syringe

/// The app's wiring. Everything a request needs is registered here once;
/// the middleware makes a scope per request and registers the request's
/// `RequestInfo` in it.
///
/// | Registration      | Scope     | Made by                                        | Disposed          |
/// |-------------------|-----------|------------------------------------------------|-------------------|
/// | `Database`        | `.shared` | async: opens the file, migrates                | closed at shutdown|
/// | `Transaction`     | `.scoped` | async: leases a connection, begins             | rolled back unless committed |
/// | `RequestLogger`   | `.scoped` | the app logger + the request id                |                   |
/// | `any ChangeLog`   | `.scoped` | writes through the transaction                 |                   |
/// | `TodoRepository`  | `.new`    |                                                |                   |
/// | `TodoHandler`     | `.new`    | what the routes call                           |                   |
public enum AppContainer {
    public static func make(database: Database.Configuration, logger: Logger) -> Container {
        let app = Container()
        app.register(type: Database.self) { (_: Resolver) async throws in
            try await Database.open(database, logger: logger)
        }
        .onDispose { database async in await database.close() }

        app.register(type: Transaction.self, in: .scoped) { (r: Resolver) async throws in
            let request: RequestInfo = try await r.resolve()
            return try await Transaction.begin(in: r.resolve(), readOnly: request.isReadOnly)
        }
        .onDispose { transaction async in await transaction.end() }

        app.register(type: RequestLogger.self, in: .scoped) { r in
            RequestLogger(base: logger, request: try r.resolve())
        }
        app.register(type: (any ChangeLog).self, in: .scoped) { (r: Resolver) async throws in
            SQLiteChangeLog(transaction: try await r.resolve(), request: try await r.resolve())
        }
        app.register(type: TodoRepository.self, in: .new) { (r: Resolver) async throws in
            TodoRepository(transaction: try await r.resolve())
        }
        app.register(type: TodoHandler.self, in: .new) { (r: Resolver) async throws in
            TodoHandler(
                repository: try await r.resolve(),
                changes: try await r.resolve(),
                transaction: try await r.resolve(),
                log: try await r.resolve()
            )
        }
        return app
    }
}
