import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Syringe
import UnixSignals

/// Builds the HTTP application and the service group that runs it.
public enum TodoApplication {
    /// The router: the scope middleware in front of the todo routes.
    public static func router(container: Container) -> Router<TodoRequestContext> {
        router(requestServices: RequestScopeMiddleware(container: container))
    }

    /// The router with another way of providing each request's services
    /// (the load comparison's wirings).
    public static func router(
        requestServices: some RouterMiddleware<TodoRequestContext>
    ) -> Router<TodoRequestContext> {
        // HEAD on each GET route runs the GET route (read-only, see
        // `RequestInfo`) and answers with its status and headers, no body.
        let router = Router(context: TodoRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: requestServices)
        TodoRoutes.add(to: router)
        return router
    }

    /// Opens the database before the server accepts a request (a failure to
    /// open or migrate stops start-up with its error), then runs the server
    /// until SIGTERM or SIGINT: the server stops accepting, finishes its
    /// in-flight requests, and only then is the container closed, disposing
    /// the database. `onServerRunning` gets the port the server listens on.
    public static func run(
        container: Container,
        configuration: ApplicationConfiguration,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await serviceGroup(
            container: container,
            configuration: configuration,
            logger: logger,
            onServerRunning: onServerRunning
        ).run()
    }

    /// What `run` runs: opens the database, then returns the service group
    /// of the server and the container, ready to `run()`. Shut it down with
    /// one of `gracefulShutdownSignals` or `triggerGracefulShutdown()`.
    public static func serviceGroup(
        container: Container,
        configuration: ApplicationConfiguration,
        logger: Logger,
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> ServiceGroup {
        _ = try await container.resolveAsync(type: Database.self)
        let app = Application(
            router: router(container: container),
            configuration: configuration,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // Shut down last first: the server, then the container.
                services: [container.lifecycleService, app],
                gracefulShutdownSignals: gracefulShutdownSignals,
                logger: logger
            )
        )
    }
}
