import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Syringe
import UnixSignals

/// Builds the HTTP application and the service group that runs it.
public enum TodoApplication {
    /// The router: the error and scope middleware in front of the todo routes.
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
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: requestServices)
        TodoRoutes.add(to: router)
        return router
    }

    /// HTTP/1.1, with a handler on each connection that gives the 400 for a
    /// request that is not valid HTTP the routes' JSON error body.
    public static var server: HTTPServerBuilder {
        .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [ParseErrorBodyHandler()]))
    }

    /// How long a graceful shutdown may take before what is still running
    /// is cancelled. Without a bound, one client holding a request half-sent
    /// (headers promising a body it never sends) kept the server from ever
    /// exiting.
    public static let defaultMaximumGracefulShutdownDuration: Duration = .seconds(10)

    /// The signals that shut the server down.
    public static let shutdownSignals: [UnixSignal] = [.sigterm, .sigint]

    /// Opens the database before the server accepts a request (a failure to
    /// open or migrate stops start-up with its error), then runs the server
    /// until SIGTERM or SIGINT: the server stops accepting, finishes its
    /// in-flight requests, and only then is the container closed, disposing
    /// the database. Requests still running after
    /// `maximumGracefulShutdownDuration`, or when a second signal comes, are
    /// cancelled, and the container is closed all the same.
    /// `onServerRunning` gets the port the server listens on.
    public static func run(
        container: Container,
        configuration: ApplicationConfiguration,
        logger: Logger,
        maximumGracefulShutdownDuration: Duration = defaultMaximumGracefulShutdownDuration,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let group = try await serviceGroup(
            container: container,
            configuration: configuration,
            logger: logger,
            maximumGracefulShutdownDuration: maximumGracefulShutdownDuration,
            onServerRunning: onServerRunning
        )
        try await run(group, cancelledBySecondOf: shutdownSignals)
    }

    /// What `run` runs: opens the database, then returns the service group
    /// of the server and the container, ready to `run()`. Shut it down with
    /// one of `gracefulShutdownSignals` or `triggerGracefulShutdown()`; it
    /// is cancelled if its graceful shutdown takes longer than
    /// `maximumGracefulShutdownDuration` (nil: no limit).
    public static func serviceGroup(
        container: Container,
        configuration: ApplicationConfiguration,
        logger: Logger,
        gracefulShutdownSignals: [UnixSignal] = shutdownSignals,
        maximumGracefulShutdownDuration: Duration? = defaultMaximumGracefulShutdownDuration,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> ServiceGroup {
        _ = try await container.resolveAsync(type: Database.self)
        let app = Application(
            router: router(container: container),
            server: server,
            configuration: configuration,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        var groupConfiguration = ServiceGroupConfiguration(
            // Shut down last first: the server, then the container. The
            // container's service closes it after a cancellation too.
            services: [container.lifecycleService, app],
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = maximumGracefulShutdownDuration
        return ServiceGroup(configuration: groupConfiguration)
    }

    /// Thrown by `run(_:cancelledBySecondOf:)` when a second signal
    /// cancelled the graceful shutdown.
    public struct ShutdownCancelled: Error, CustomStringConvertible {
        public var description: String { "a second signal cancelled the graceful shutdown" }
    }

    /// Runs `group`; a second one of `signals` while it runs (the first
    /// having started its graceful shutdown) cancels it, as the group's own
    /// `cancellationSignals` would, which must be other signals than its
    /// graceful ones. Throws `ShutdownCancelled` then, once the group has
    /// ended.
    public static func run(_ group: ServiceGroup, cancelledBySecondOf signals: [UnixSignal]) async throws {
        // Trapped before the group runs, so that no signal is missed; the
        // group traps them too, and each trap sees every signal.
        let trapped = await UnixSignalsSequence(trapping: signals)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                var caught = trapped.makeAsyncIterator()
                // nil: the group has ended and this task is cancelled.
                guard await caught.next() != nil, await caught.next() != nil else { return }
                throw ShutdownCancelled()
            }
            // The group's end, or the second signal: leaving the task group
            // cancels the other task and waits for it (for the group, until
            // its services have ended and the container is closed).
            _ = try await tasks.next()
            tasks.cancelAll()
        }
    }
}
