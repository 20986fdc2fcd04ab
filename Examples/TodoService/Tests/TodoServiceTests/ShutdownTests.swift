#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Syringe
import Testing
import TodoService
import UnixSignals

/// A change log that holds its request until the test opens the gate, so
/// that a shutdown can begin while the request is in flight.
final class GatedChangeLog: ChangeLog {
    private let entered: AsyncStream<Void>.Continuation
    private let gate: Gate

    init(entered: AsyncStream<Void>.Continuation, gate: Gate) {
        self.entered = entered
        self.gate = gate
    }

    func record(_ change: String, todo id: Int) async throws {
        entered.yield()
        await gate.wait()
    }
}

/// Opens once; whoever waits before then waits until it opens.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen {
                    state.waiters.append(continuation)
                }
                return state.isOpen
            }
            if isOpen {
                continuation.resume()
            }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }
}

/// The app as `TodoServer` runs it, in a `ServiceGroup` on a real port:
/// a graceful shutdown lets the request in flight finish, then closes the
/// container, which closes the database.
@Suite struct ShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func gracefulShutdownFinishesTheRequestThenClosesTheDatabase() async throws {
        let file = TestDatabase()
        defer { file.remove() }
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let gate = Gate()
        let app = AppContainer.make(database: file.configuration, logger: testLogger)
        app.register(type: (any ChangeLog).self, in: .scoped) { _ in
            GatedChangeLog(entered: enteredContinuation, gate: gate)
        }
        let group = try await TodoApplication.serviceGroup(
            container: app,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            logger: testLogger,
            gracefulShutdownSignals: [],
            onServerRunning: { port in portContinuation.yield(port) }
        )
        let database: Database = try await app.resolveAsync()
        let running = Task { try await group.run() }

        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())
        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(30)))
        client.connect()
        let response = Task {
            try await client.post("/todos", headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"title": "in flight"}"#))
        }

        var enteredIterator = entered.makeAsyncIterator()
        _ = await enteredIterator.next()
        await group.triggerGracefulShutdown()
        // The request still holds its transaction: nothing is closed yet,
        // however long the shutdown has had to (wrongly) go ahead.
        try await Task.sleep(for: .milliseconds(200))
        #expect(database.statistics.isClosed == false)
        #expect(database.statistics.leased == 1)

        gate.open()
        let finished = try await response.value
        #expect(finished.status == .created)
        try await running.value
        try await client.shutdown()

        let statistics = database.statistics
        #expect(statistics.isClosed)
        #expect(statistics.commits == 1)
        #expect(statistics.leased == 0)
        // Closed means closed: a lease now fails.
        await #expect(throws: Database.Failure.self) {
            try await Transaction.begin(in: database, readOnly: true)
        }
    }
}

/// A service that fails as soon as it runs: with the default policy its
/// group cancels every other service.
struct FailingService: Service {
    struct Failed: Error {}
    func run() async throws { throw Failed() }
}

@Suite struct CancelledShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func aCancelledGroupStillRunsTheContainersAsyncDisposersWhole() async throws {
        final class Resource: Sendable {}
        let finished = Mutex(false)
        let container = Container()
        container.register(type: Resource.self) { _ in Resource() }
            .onDispose { _ async throws in
                // A disposer that awaits, as a rollback does: in a cancelled
                // task, this sleep throws.
                try await Task.sleep(for: .milliseconds(20))
                finished.withLock { $0 = true }
            }
        _ = try container.tryResolve(type: Resource.self)
        let group = ServiceGroup(services: [container.lifecycleService, FailingService()], logger: Logger(label: "test"))
        await #expect(throws: FailingService.Failed.self) { try await group.run() }
        #expect(container.isClosed)
        #expect(finished.withLock { $0 })
    }
}

/// A client that sends a request's head and part of its body, then nothing,
/// holding its connection open: the server's graceful shutdown waits for
/// that request.
func holdRequestHalfSent(port: Int) async throws -> any Channel {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port).get()
    let head = "POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    try await channel.writeAndFlush(ByteBuffer(string: head + #"{"title""#)).get()
    return channel
}

/// The app in a `ServiceGroup` on a real port, a request held half-sent.
struct StalledApp {
    let container: Container
    let database: Database
    let group: ServiceGroup
    /// The group, run by `run`.
    let running: Task<Void, any Error>
    let client: any Channel

    init(
        _ file: TestDatabase,
        gracefulShutdownSignals: [UnixSignal] = [],
        maximumGracefulShutdownDuration: Duration?,
        run: (ServiceGroup) -> Task<Void, any Error>
    ) async throws {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        container = AppContainer.make(database: file.configuration, logger: testLogger)
        group = try await TodoApplication.serviceGroup(
            container: container,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            logger: testLogger,
            gracefulShutdownSignals: gracefulShutdownSignals,
            maximumGracefulShutdownDuration: maximumGracefulShutdownDuration,
            onServerRunning: { port in portContinuation.yield(port) }
        )
        database = try await container.resolveAsync()
        running = run(group)
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())
        client = try await holdRequestHalfSent(port: port)
        // Time for the server to read the head: the request is in flight.
        try await Task.sleep(for: .milliseconds(200))
    }
}

/// Awaits `task`, cancelling it if the test is cancelled (its time limit).
func value<T>(of task: Task<T, any Error>) async throws -> T {
    try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
}

@Suite struct BoundedShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func aGracefulShutdownThatCannotFinishIsCancelledAfterItsBoundAndTheContainerClosed() async throws {
        let file = TestDatabase()
        defer { file.remove() }
        let app = try await StalledApp(file, maximumGracefulShutdownDuration: .milliseconds(500)) { group in
            Task { try await group.run() }
        }

        let clock = ContinuousClock()
        let start = clock.now
        await app.group.triggerGracefulShutdown()
        // The bound's cancellation ends the server's services; how the
        // group reports it does not matter here, only that it ends.
        _ = try? await value(of: app.running)
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(500))
        #expect(elapsed < .seconds(10))
        #expect(app.container.isClosed)
        #expect(app.database.statistics.isClosed)
        try? await app.client.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aSecondSignalCancelsTheGracefulShutdownAndTheContainerIsClosed() async throws {
        let file = TestDatabase()
        defer { file.remove() }
        // SIGUSR2 stands in for SIGTERM: no other test uses it. Trapped from
        // before the app starts to after it ends (by the group and by `run`),
        // so that raising it cannot end the test process.
        let app = try await StalledApp(file, gracefulShutdownSignals: [.sigusr2], maximumGracefulShutdownDuration: nil) { group in
            Task { try await TodoApplication.run(group, cancelledBySecondOf: [.sigusr2]) }
        }

        kill(getpid(), UnixSignal.sigusr2.rawValue)
        // Graceful, and unbounded here: the half-sent request holds it up.
        try await Task.sleep(for: .milliseconds(300))
        #expect(app.container.isClosed == false)
        #expect(app.database.statistics.isClosed == false)

        kill(getpid(), UnixSignal.sigusr2.rawValue)
        await #expect(throws: TodoApplication.ShutdownCancelled.self) { try await value(of: app.running) }
        #expect(app.container.isClosed)
        #expect(app.database.statistics.isClosed)
        try? await app.client.close()
    }
}
