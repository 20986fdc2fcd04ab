import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Syringe
import Testing
import TodoComparison
import TodoService

/// The three wirings of the same app: every route test runs against each,
/// so the load comparison compares apps that behave alike.
enum Wiring: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case syringe, hand, swinject

    var testDescription: String { rawValue }
}

/// A database file of its own for one test, removed afterwards.
struct TestDatabase {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("todos-\(UUID().uuidString).sqlite").path
    }

    var configuration: Database.Configuration {
        Database.Configuration(path: path, connections: 4)
    }

    func remove() {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

let testLogger: Logger = {
    var logger = Logger(label: "todos-test")
    logger.logLevel = .critical
    return logger
}()

/// Runs `body` with an app of `wiring` under HummingbirdTesting's router
/// framework (or `testing`: `.live` for a server on a port), and closes what
/// the app opened afterwards. `logger` is Hummingbird's, the requests'
/// loggers' base. `configure` sees the Syringe wiring's container before
/// the app starts (to replace a registration with a fake); it is not called
/// for the other wirings.
func withApp(
    _ wiring: Wiring = .syringe,
    testing: TestingSetup = .router,
    logger: Logger = testLogger,
    configure: (Container) -> Void = { _ in },
    _ body: @Sendable (any TestClientProtocol, Database) async throws -> Void
) async throws {
    let file = TestDatabase()
    defer { file.remove() }
    let router: Router<TodoRequestContext>
    let database: Database
    let container: Container?
    switch wiring {
    case .syringe:
        let app = AppContainer.make(database: file.configuration, logger: testLogger)
        configure(app)
        database = try await app.resolveAsync()
        router = TodoApplication.router(container: app)
        container = app
    case .hand:
        database = try await Database.open(file.configuration, logger: testLogger)
        router = TodoApplication.router(requestServices: HandWiringMiddleware(database: database, logger: testLogger))
        container = nil
    case .swinject:
        database = try await Database.open(file.configuration, logger: testLogger)
        router = TodoApplication.router(requestServices: SwinjectWiringMiddleware(database: database, logger: testLogger))
        container = nil
    }
    do {
        try await Application(router: router, server: TodoApplication.server, logger: logger).test(testing) { client in
            try await body(client, database)
        }
    } catch {
        try? await close(container, database)
        throw error
    }
    try await close(container, database)
}

private func close(_ container: Container?, _ database: Database) async throws {
    if let container {
        try await container.close()
    } else {
        await database.close()
    }
}

let json: HTTPFields = [.contentType: "application/json"]

extension TestClientProtocol {
    /// Sends `body` as JSON and returns the response.
    func send(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> TestResponse {
        try await executeRequest(
            uri: uri,
            method: method,
            headers: body == nil ? [:] : json,
            body: body.map { ByteBuffer(string: $0) }
        )
    }

    /// Creates a todo and returns it.
    func create(_ title: String) async throws -> Todo {
        let response = try await send(.post, "/todos", #"{"title": "\#(title)"}"#)
        guard response.status == .created else {
            throw UnexpectedStatus(status: response.status, body: String(buffer: response.body))
        }
        return try response.decoded()
    }
}

struct UnexpectedStatus: Error {
    var status: HTTPResponse.Status
    var body: String
}

extension TestResponse {
    func decoded<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(String(buffer: body).utf8))
    }

    /// The message of Hummingbird's JSON error body.
    var errorMessage: String? {
        TodoServiceTests.errorMessage(in: String(buffer: body))
    }
}

/// The message of Hummingbird's JSON error body `body`.
func errorMessage(in body: String) -> String? {
    struct Body: Decodable {
        struct Error: Decodable { var message: String }
        var error: Error
    }
    return try? JSONDecoder().decode(Body.self, from: Data(body.utf8)).error.message
}
