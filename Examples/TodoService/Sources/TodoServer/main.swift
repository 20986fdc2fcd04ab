#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TodoComparison
import TodoService

// Prints "listening on <port>" once it accepts requests (`--port 0` picks a
// free port). SIGTERM or SIGINT shut it down gracefully: it stops
// accepting and finishes the requests in flight, for at most
// `--shutdown-timeout` seconds, after which they are cancelled; a second
// SIGTERM or SIGINT cancels them at once. Either way the database is
// closed before it exits. `--wiring` picks how each request's objects are
// made: Syringe (the app), or the load comparison's hand-written and
// Swinject wirings of the same app.

let usage = """
    usage: TodoServer [--wiring syringe|hand|swinject] [--host 127.0.0.1] [--port 8080]
                      [--database todos.sqlite] [--connections 8] [--log-level info]
                      [--shutdown-timeout 10]
    """

enum Wiring: String {
    case syringe, hand, swinject
}

struct Options {
    var wiring = Wiring.syringe
    var host = "127.0.0.1"
    var port = 8080
    var database = "todos.sqlite"
    var connections = 8
    var logLevel = Logger.Level.info
    var shutdownTimeout = TodoApplication.defaultMaximumGracefulShutdownDuration
    var help = false

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        while let flag = arguments.popFirst() {
            if flag == "--help" || flag == "-h" {
                help = true
                return
            }
            guard let value = arguments.popFirst() else {
                throw UsageError("\(flag) needs a value")
            }
            switch flag {
            case "--wiring":
                wiring = try Wiring(rawValue: value).orThrow("--wiring is syringe, hand or swinject")
            case "--host":
                host = value
            case "--port":
                // Checked here: NIO would take 65536 as port 0, any free port.
                port = try Int(value).flatMap { (0...65535).contains($0) ? $0 : nil }
                    .orThrow("--port is a number from 0 to 65535")
            case "--database":
                database = value
            case "--connections":
                connections = try Int(value).orThrow("--connections is a number")
            case "--log-level":
                logLevel = try Logger.Level(rawValue: value).orThrow("--log-level is trace, debug, info, notice, warning, error or critical")
            case "--shutdown-timeout":
                let seconds = try Double(value).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
                    .orThrow("--shutdown-timeout is a number of seconds above 0")
                shutdownTimeout = .seconds(seconds)
            default:
                throw UsageError("unknown option \(flag)")
            }
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw UsageError(message) }
        return self
    }
}

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    print("TodoServer: \(error)")
    print(usage)
    exit(2)
}
if options.help {
    print(usage)
    exit(0)
}

var logger = Logger(label: "todos")
logger.logLevel = options.logLevel
let configuration = ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "todos")
let database = Database.Configuration(path: options.database, connections: options.connections)
let announce: @Sendable (Int) async -> Void = { port in
    print("listening on \(port)")
    fflush(nil)  // a script reading the port through a pipe sees it now
}

/// Runs the server with the chosen wiring until it shuts down.
@MainActor
func serve() async throws {
    switch options.wiring {
    case .syringe:
        try await TodoApplication.run(
            container: AppContainer.make(database: database, logger: logger),
            configuration: configuration,
            logger: logger,
            maximumGracefulShutdownDuration: options.shutdownTimeout,
            onServerRunning: announce
        )
    case .hand, .swinject:
        let opened = try await Database.open(database, logger: logger)
        let router = options.wiring == .hand
            ? TodoApplication.router(requestServices: HandWiringMiddleware(database: opened, logger: logger))
            : TodoApplication.router(requestServices: SwinjectWiringMiddleware(database: opened, logger: logger))
        let app = Application(
            router: router,
            server: TodoApplication.server,
            configuration: configuration,
            onServerRunning: { channel in await announce(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        // Closes the database once the server has stopped, whether its
        // shutdown ended gracefully or was cancelled.
        let closer = ClosureService {
            try? await gracefulShutdown()
            await opened.close()
        }
        var group = ServiceGroupConfiguration(
            services: [closer, app],
            gracefulShutdownSignals: TodoApplication.shutdownSignals,
            logger: logger
        )
        group.maximumGracefulShutdownDuration = options.shutdownTimeout
        try await TodoApplication.run(ServiceGroup(configuration: group), cancelledBySecondOf: TodoApplication.shutdownSignals)
    }
}

// A failure to start or to run (a database file that cannot be opened, say)
// ends the process with its error and status 1, not a crash report.
do {
    try await serve()
} catch {
    print("TodoServer: \(error)")
    exit(1)
}
