#if ServiceLifecycle
import ServiceLifecycle

/// Closing a container when a swift-service-lifecycle `ServiceGroup` shuts
/// down: available with the package trait `ServiceLifecycle`.
///
/// A `ServiceGroup` shuts its services down one at a time, last first, each
/// after the one listed after it has returned. Listing the container's
/// service first therefore closes the container (disposing the database,
/// the connection pools) only once the HTTP server listed after it has
/// finished its in-flight requests.
extension Container {
    /// A `Service` that closes this container when its `ServiceGroup` shuts
    /// down, gracefully or by cancellation. List it before the services that
    /// resolve from the container, so that a graceful shutdown closes it
    /// after them. A cancelled group (a failing service, with the default
    /// policy) cancels every service at once: then the container may close
    /// while the others are still stopping. Its disposers run whole either
    /// way, not in the cancelled task.
    ///
    /// Enable the trait on the dependency:
    /// `.package(path: "../Syringe", traits: ["ServiceLifecycle"])`.
    ///
    /// ```swift
    /// let group = ServiceGroup(
    ///     services: [container.lifecycleService, app],   // the app stops first, then the container closes
    ///     gracefulShutdownSignals: [.sigterm, .sigint],
    ///     logger: logger
    /// )
    /// try await group.run()
    /// ```
    public var lifecycleService: ContainerLifecycleService {
        ContainerLifecycleService(container: self)
    }
}

/// The `Service` made by `Container.lifecycleService`: it waits for its
/// `ServiceGroup` to shut down, then closes the container. A `DisposalError`
/// from the disposers is what `run()` throws, so the group's `run()`
/// reports it.
///
/// ```swift
/// let group = ServiceGroup(services: [container.lifecycleService, app], logger: logger)
/// ```
public struct ContainerLifecycleService: Service {
    /// The container this service closes.
    public let container: Container

    /// Waits until the group shuts down, gracefully or by cancellation, then
    /// closes the container (see `Container.close()`), in a task of its own:
    /// a cancelled group's cancellation does not reach the disposers.
    ///
    /// ```swift
    /// try await container.lifecycleService.run()   // usually run by a ServiceGroup
    /// ```
    public func run() async throws {
        // Graceful shutdown returns normally; cancellation (the group's
        // cancellation signals, or another service failing) throws. Either
        // way the container is closed: disposers must run on every way out.
        try? await gracefulShutdown()
        // Not in this task: after cancellation, an async disposer that
        // awaits (a rollback, draining a pool) would see it and stop
        // half-way; a new task does not inherit it.
        let container = container
        try await Task { try await container.close() }.value
    }
}
#endif
