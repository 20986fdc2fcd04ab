import Syringe
import Testing

/// README "Tracing".
@Suite("README: Tracing")
struct ReadmeTracingSnippets {
    /// What the handler logs, line by line.
    final class Log: Sendable {
        private let lines = Locked<[String]>([])
        func debug(_ line: String) { lines.withLock { $0.append(line) } }
        var recorded: [String] { lines.withLock { $0 } }
    }
    struct RequestLog: Sendable {}
    struct TodoHandler: Sendable { let log: RequestLog }

    @Test("Tracing")
    func tracing() throws {
        let logger = Log()
        let app = Container()
        app.register(type: RequestLog.self, in: .scoped) { _ in RequestLog() }
        app.register(type: TodoHandler.self, in: .new) { r in TodoHandler(log: try r.resolve()) }

        app.trace { event in logger.debug("\(event)") }
        let scope = app.makeScope()   // the app's tracer sees its scopes' resolves
        _ = try scope.tryResolve(type: TodoHandler.self)
        // RequestLog (.scoped) created in 1.2 µs, depth 1
        // TodoHandler (.new) created in 6.4 µs
        app.stopTracing()

        let lines = logger.recorded
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.wholeMatch(of: /RequestLog \(\.scoped\) created in [0-9.]+ (ns|µs|ms), depth 1/) != nil, "\(lines)")
        #expect(lines.last?.wholeMatch(of: /TodoHandler \(\.new\) created in [0-9.]+ (ns|µs|ms)/) != nil, "\(lines)")
        _ = try scope.tryResolve(type: TodoHandler.self)
        #expect(logger.recorded.count == 2, "stopTracing() stopped it")
    }
}
