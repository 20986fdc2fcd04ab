import Foundation
import Syringe
import Testing

/// README "Errors", "Validation: every wiring problem at once" and "The
/// dependency graph". The snippets that only print run in a process of their
/// own, so that what they print can be compared with what their comments say.
@Suite("README: Errors, Validation, The dependency graph")
struct ReadmeDiagnosticsSnippets {
    /// `Service` and `ServiceImp` are the shared fixtures of `Fixtures.swift`.
    struct ViewModel { let service: Service }
    struct Screen { let viewModel: ViewModel }

    @Test("Errors: what print(error) shows")
    func errors() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let c = Container()
            c.register(type: Screen.self, in: .new) { r in Screen(viewModel: try r.resolve()) }
            c.register(type: ViewModel.self, in: .new) { r in ViewModel(service: try r.resolve()) }
            c.register { _ in ServiceImp() }

            do {
                _ = try c.tryResolve(type: Screen.self)
            } catch {
                print(error)
            }
            // Syringe could not resolve Service: nothing is registered for it in this container or its parents.
            //   path: Screen → ViewModel → Service
            //   did you mean:
            //     • ServiceImp, registered as its own type; if it is a Service, register it `as Service` or add `.implements(Service.self)`
        }
        let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(printed == """
            Syringe could not resolve Service: nothing is registered for it in this container or its parents.
              path: Screen → ViewModel → Service
              did you mean:
                • ServiceImp, registered as its own type; if it is a Service, register it `as Service` or add `.implements(Service.self)`

            """)
    }

    @Test("Errors: what dump(container) shows")
    func dumpedContainer() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let app = Container()
            app.register(type: Database.self) { _ in Database() }
            app.register(type: Transaction.self, in: .scoped) { r in Transaction(db: try r.resolve()) }
            dump(app)
            // ▿ Syringe.Container #0
            //   ▿ registrations: 2 elements
            //     - "Database (.shared)"
            //     - "Transaction (.scoped)"
            //   - isScope: false
            //   - isClosed: false
            //   - parent: nil
        }
        let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(printed == """
            ▿ Syringe.Container #0
              ▿ registrations: 2 elements
                - "Database (.shared)"
                - "Transaction (.scoped)"
              - isScope: false
              - isClosed: false
              - parent: nil

            """)
    }

    @Test("Errors: localizedDescription is the same full text")
    func localizedDescription() {
        let c = Container()
        c.register(type: Screen.self, in: .new) { r in Screen(viewModel: try r.resolve()) }
        let error = #expect(throws: ResolutionError.self) { try c.tryResolve(type: Screen.self) }
        #expect(error?.localizedDescription == error?.description)
        #expect(error?.description.hasPrefix("Syringe could not resolve ViewModel: nothing is registered") == true)
    }

    // An app of 41 registrations: two with problems (Repo needs a Logger
    // nobody registered; a `.shared` Cache would capture a `.scoped` Session).
    protocol Logger: Sendable {}
    final class Repo: Sendable {
        init(logger: Logger) {}
    }
    final class Session: Sendable {}
    final class Cache: Sendable {
        init(session: Session) {}
    }
    struct Setting: Sendable { let index: Int }

    static func registerBrokenApp(into app: Container) {
        app.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }
        app.register(type: Cache.self) { r in Cache(session: try r.resolve()) }
        app.register(type: Session.self, in: .scoped) { _ in Session() }
        for index in 1...38 {
            app.register(type: Setting.self, name: "setting \(index)", dependency: Setting(index: index))
        }
    }

    @Test("Validation: what print(error) shows")
    func validation() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let app = Container()
            ReadmeDiagnosticsSnippets.registerBrokenApp(into: app)

            do {
                try app.validate()   // at start-up, or in a test
            } catch {
                print(error)
            }
            // Syringe found 2 problems in 41 validated registrations:
            //
            // 1. Syringe could not resolve Logger: nothing is registered for it in this container or its parents.
            //      path: Repo → Logger
            //
            // 2. Syringe could not resolve Session: it is registered .scoped, and Cache, registered .shared, depends on it: …
            //      path: Cache → Session
        }
        let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let expected = [
            "Syringe found 2 problems in 41 validated registrations:",
            "",
            "1. Syringe could not resolve Logger: nothing is registered for it in this container or its parents.",
            "     path: Repo → Logger",
            "",
            "2. Syringe could not resolve Session: it is registered .scoped, and Cache, registered .shared, depends on it: …",
            "     path: Cache → Session",
        ]
        let lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == expected.count + 1 && lines.last == "", "\(printed)")
        for (line, wanted) in zip(lines, expected) {
            // The README elides the end of a long line with "…".
            let matches = wanted.hasSuffix("…") ? line.hasPrefix(wanted.dropLast()) : line == wanted
            #expect(matches, "printed \(line)\nREADME  \(wanted)")
        }
    }

    struct Endpoint: Sendable { let url: String; let port: Int; let secure: Bool }
    final class Pool: Sendable {
        static func connect() async throws -> Pool {
            await Task.yield()
            return Pool()
        }
    }

    @Test("Validation: validateAsync with sample arguments")
    func validateAsync() async throws {
        let app = Container()
        app.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }
        app.register(type: Pool.self) { (_: Resolver) async throws in try await Pool.connect() }
        for index in 1...39 {
            app.register(type: Setting.self, name: "setting \(index)", dependency: Setting(index: index))
        }
        // Without samples and synchronously, those two are listed as not validated.
        let synchronous = try app.validate()
        #expect(synchronous.validated.count == 39)
        #expect(Set(synchronous.skipped.map(\.reason)) == [.runtimeArguments, .asyncFactory])

        var samples = SampleArguments()
        samples.add(for: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
        let report = try await app.validateAsync(samples: samples)
        print(report)   // 41 registrations validated

        #expect(report.description == "41 registrations validated")
        #expect(report.skipped.isEmpty)
    }

    final class Database: Sendable {}
    final class Transaction: Sendable {
        init(db: Database) {}
    }
    final class TodoHandler: Sendable {
        init(tx: Transaction) {}
    }

    static func registerApp(into app: Container) {
        app.register(type: Database.self) { _ in Database() }
        app.register(type: Transaction.self, in: .scoped) { r in Transaction(db: try r.resolve()) }
        app.register(type: TodoHandler.self, in: .new) { r in TodoHandler(tx: try r.resolve()) }
    }

    @Test("The dependency graph: written as DOT, printed as Mermaid")
    func dependencyGraph() async throws {
        // A process of its own: the snippet writes wiring.dot in the current directory.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syringe-wiring-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            precondition(FileManager.default.changeCurrentDirectoryPath(folder.path))
            let app = Container()
            ReadmeDiagnosticsSnippets.registerApp(into: app)

            try app.validate()
            let graph = app.dependencyGraph()
            try graph.dot().write(toFile: "wiring.dot", atomically: true, encoding: .utf8)   // dot -Tsvg wiring.dot -o wiring.svg
            print(graph.mermaid())

            let written = try String(contentsOfFile: folder.appendingPathComponent("wiring.dot").path, encoding: .utf8)
            precondition(written == graph.dot(), "wiring.dot is not the graph's DOT")
            precondition(written.contains("->"), "the DOT has no edges:\n\(written)")
        }
        // The same wiring, validated here, draws the same graph.
        let app = Container()
        Self.registerApp(into: app)
        try app.validate()
        let mermaid = app.dependencyGraph().mermaid()
        #expect(mermaid.contains("-->"), "validate() recorded the edges")
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == mermaid + "\n")
    }
}
