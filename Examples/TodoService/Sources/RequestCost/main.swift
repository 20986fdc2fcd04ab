#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Logging
import Syringe
import TodoComparison
import TodoService

// RequestCost <syringe|hand|swinject> <requests> [database path] [--in-flight <n>]
//
// What one read request (GET /todos/42) costs each wiring without HTTP:
// makes the request's objects exactly as the wiring's middleware does, reads
// the todo, ends the request, `requests` times, and prints the mean time per
// request. The requests run one after another, or `--in-flight` of them at
// once (child tasks, started in batches), as a server's concurrent
// connections run them. Under callgrind (request-cost.sh) the difference
// between two request counts is the instructions per request, which, unlike
// wrk's numbers, does not move with the machine's load.

let usage = "usage: RequestCost syringe|hand|swinject <requests> [database path] [--in-flight <n>]"
/// `--in-flight <n>` (1 if absent) and the other arguments, in order.
let (inFlight, arguments): (Int, [String]) = {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let flag = arguments.firstIndex(of: "--in-flight") else {
        return (1, arguments)
    }
    guard flag + 1 < arguments.count, let value = Int(arguments[flag + 1]), value > 0 else {
        print(usage)
        exit(2)
    }
    arguments.removeSubrange(flag...(flag + 1))
    return (value, arguments)
}()
guard arguments.count >= 2, let requests = Int(arguments[1]), ["syringe", "hand", "swinject"].contains(arguments[0]) else {
    print(usage)
    exit(2)
}
let wiring = arguments[0]
let path = arguments.count > 2 ? arguments[2] : "request-cost-\(getpid()).sqlite"

let logger: Logger = {
    var logger = Logger(label: "request-cost")
    logger.logLevel = .critical
    return logger
}()

/// One request's objects, made and ended as the wiring's middleware does.
@Sendable func read(_ id: Int, services: any RequestServices) async throws {
    _ = try await services.todoHandler().get(id)
}

func measure(wiring: String, requests: Int, inFlight: Int, path: String, logger: Logger) async throws {
    defer {
        for suffix in ["", "-wal", "-shm"] {
            unlink(path + suffix)
        }
    }
    let app = AppContainer.make(database: Database.Configuration(path: path, connections: 4), logger: logger)
    let database: Database = try await app.resolveAsync()
    let seed = try await Transaction.begin(in: database, readOnly: false)
    for index in 1...100 {
        _ = try await TodoRepository(transaction: seed).insert(NewTodo(title: "todo \(index)"))
    }
    try await seed.commit()
    await seed.end()

    let swinject = SwinjectRoot(database: database, logger: logger)
    let clock = ContinuousClock()
    let start = clock.now
    @Sendable func request(_ index: Int) async throws {
        let request = RequestInfo(id: "request-\(index)", method: .get)
        switch wiring {
        case "syringe":
            try await app.withScope { scope in
                scope.register(type: RequestInfo.self, instance: request)
                try await read(42, services: scope)
            }
        case "hand":
            let services = HandWiredRequest(database: database, logger: logger, request: request)
            try await read(42, services: services)
            await services.end()
        default:
            let services = SwinjectRequest(root: swinject, request: request)
            try await read(42, services: services)
            await services.end()
        }
    }
    var started = 0
    while started < requests {
        let first = started
        let batch = min(inFlight, requests - first)
        if batch == 1 {
            try await request(first)
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in first..<(first + batch) {
                    group.addTask { try await request(index) }
                }
                try await group.waitForAll()
            }
        }
        started += batch
    }
    let elapsed = clock.now - start
    print("\(wiring): \(requests) requests, \(elapsed / max(requests, 1)) each")
    try await app.close()
}

// Not an async main: its dispatch_main waits in sigsuspend, which
// valgrind 3.19 cannot run. The work runs detached (top-level code is on
// the main actor, which the semaphore blocks) and the main thread waits.
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        try await measure(wiring: wiring, requests: requests, inFlight: inFlight, path: path, logger: logger)
    } catch {
        print("RequestCost: \(error)")
        exit(1)
    }
    done.signal()
}
done.wait()
