import Foundation
import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/DiagnosingErrors.md`. The error, the
/// validation, `validateAsync`, the graph and the trace of a scope's resolve
/// are the README's, run by its suites; the rest is here.
@Suite("Guide: Diagnosing Errors")
struct DoccDiagnosticsSnippets {
    struct RequestID: Sendable {
        let value: String
        init(_ value: String) { self.value = value }
    }
    final class Database: Sendable {}
    final class RequestLog: Sendable {
        let id: RequestID
        init(id: RequestID) { self.id = id }
    }
    final class TodoHandler: Sendable {
        init(db: Database, log: RequestLog) {}
    }

    static func registerApp(into app: Container) {
        app.register(type: Database.self) { _ in Database() }
        app.register(type: RequestLog.self, in: .scoped) { r in RequestLog(id: try r.resolve(type: RequestID.self)) }
        app.register(type: TodoHandler.self, in: .new) { r in TodoHandler(db: try r.resolve(), log: try r.resolve()) }
    }

    @Test("Validate a scope that has sample per-request values")
    func validateAScope() throws {
        let app = Container()
        Self.registerApp(into: app)
        // The per-request value is missing from the application container itself.
        let error = #expect(throws: ValidationError.self) { try app.validate() }
        #expect(error?.problems.map(\.path) == [["RequestLog", "RequestID"]], "\(String(describing: error))")

        let scope = app.makeScope()
        scope.register(type: RequestID.self, instance: RequestID("sample"))
        try scope.validate()

        let report = try scope.validate()
        #expect(report.validated.count == 4, "the app's three registrations and the scope's own: \(report)")
    }

    final class Slow: Sendable {
        // Well above the threshold below, which is well above a quick
        // creation even on a loaded machine under AddressSanitizer (8 ms
        // was seen for UsesSlow with a threshold of 5 ms, failing the test).
        init() { usleep(250_000) }   // 250 ms
    }
    final class Fast: Sendable {}
    final class UsesSlow: Sendable {
        init(slow: Slow) {}
    }

    static func registerSlowAndFast(into container: Container) {
        container.register(type: Slow.self) { _ in Slow() }
        container.register(type: Fast.self, in: .new) { _ in Fast() }
        container.register(type: UsesSlow.self, in: .new) { r in UsesSlow(slow: try r.resolve()) }
    }

    @Test("Filter trace events to find what is slow")
    func findWhatIsSlow() async {
        // A process of its own: what the handler prints is compared, and
        // tracing puts every resolve of the process on its observed path.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let container = Container()
            DoccDiagnosticsSnippets.registerSlowAndFast(into: container)

            container.trace { event in
                if event.outcome == .created, event.duration > .milliseconds(100) {
                    print("slow factory: \(event.request) took \(event.duration)")
                }
            }

            _ = try container.tryResolve(type: Fast.self)       // created quickly: not printed
            _ = try container.tryResolve(type: UsesSlow.self)   // Slow, then UsesSlow, whose time includes Slow's
            _ = try container.tryResolve(type: UsesSlow.self)   // Slow is reused, UsesSlow quick: nothing printed
            container.stopTracing()
        }
        let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let lines = printed.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(printed)")
        #expect(lines.first?.wholeMatch(of: /slow factory: Slow took [0-9.e-]+ seconds/) != nil, "\(printed)")
        #expect(lines.last?.wholeMatch(of: /slow factory: UsesSlow took [0-9.e-]+ seconds/) != nil, "\(printed)")
    }
}
