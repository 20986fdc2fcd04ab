import Foundation
import Testing
@testable import Syringe

// The README's example service.
private final class Database: Sendable {}
private final class Transaction: Sendable { init(db: Database) {} }
private final class RequestLog: Sendable {}
private final class TodoRepository: Sendable { init(tx: Transaction, log: RequestLog) {} }
private final class TodoHandler: Sendable { init(repo: TodoRepository, log: RequestLog) {} }
private protocol Clock: Sendable {}
private final class SystemClock: Clock {}
private final class Metrics: Sendable {}

/// The README's wiring: a closure registration (TodoHandler), autoregistered
/// ones, an alias, and a dependency that is missing.
private func exampleWiring() -> Container {
    let app = Container()
    app.register(type: Database.self) { _ in Database() }
    app.autoregister(in: .scoped, initializer: Transaction.init(db:))
    app.register(type: RequestLog.self, in: .scoped) { _ in RequestLog() }
    app.autoregister(in: .new, initializer: TodoRepository.init(tx:log:))
    app.register(type: TodoHandler.self, in: .new) { r in
        _ = try? r.resolve(type: Metrics.self)   // optional: not registered in this example
        return TodoHandler(repo: try r.resolve(), log: try r.resolve())
    }
    app.register(type: SystemClock.self) { _ in SystemClock() }.implements((any Clock).self)
    return app
}

@Suite struct DependencyGraphTests {
    @Test func autoregisteredInitialisersGiveEdgesWithoutRunningAnything() {
        let graph = exampleWiring().dependencyGraph()
        #expect(graph.nodes.map(\.label) == ["Database", "Transaction", "RequestLog", "TodoRepository", "TodoHandler", "SystemClock", "Clock"])
        #expect(edges(of: graph) == [
            "Transaction → Database (initializer)",
            "TodoRepository → Transaction (initializer)",
            "TodoRepository → RequestLog (initializer)",
            "Clock → SystemClock (alias)",
        ])
    }

    @Test func validationAddsWhatFactoriesResolveAndWhatIsMissing() throws {
        let app = exampleWiring()
        try app.validate()
        let graph = app.dependencyGraph()
        #expect(edges(of: graph) == [
            "Transaction → Database (initializer)",
            "TodoRepository → Transaction (initializer)",
            "TodoRepository → RequestLog (initializer)",
            "TodoHandler → RequestLog (factory)",
            "TodoHandler → TodoRepository (factory)",
            "TodoHandler → Metrics (factory)",
            "Clock → SystemClock (alias)",
        ])
        let metrics = try #require(graph.nodes.first { $0.label == "Metrics" })
        #expect(metrics.kind == .missing && metrics.holder == .none && metrics.scope == nil)
        #expect(graph.nodes.first { $0.label == "Transaction" }?.scope == .scoped)
    }

    @Test func tracedResolvesAddEdgesAcrossContainers() throws {
        let parent = Container()
        parent.register(type: Database.self) { _ in Database() }
        let child = Container(parent: parent)
        child.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }
        #expect(child.dependencyGraph().edges.isEmpty)
        child.trace { _ in }
        _ = try child.tryResolve(type: Transaction.self)
        child.stopTracing()
        let graph = child.dependencyGraph()
        #expect(graph.nodes.map(\.holder) == [.container(level: 0), .container(level: 1)])
        #expect(edges(of: graph) == ["Transaction → Database (factory)"])
    }

    @Test func aReplacedRegistrationLosesTheEdgesItsPredecessorMade() throws {
        let app = Container()
        app.register(type: Database.self) { _ in Database() }
        app.register(type: RequestLog.self) { _ in RequestLog() }
        app.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }
        try app.validate()
        #expect(edges(of: app.dependencyGraph()) == ["Transaction → Database (factory)"])
        app.register(type: Transaction.self, in: .new) { r in _ = try r.resolve(type: RequestLog.self); return Transaction(db: Database()) }
        #expect(edges(of: app.dependencyGraph()).isEmpty)
        try app.validate()
        #expect(edges(of: app.dependencyGraph()) == ["Transaction → RequestLog (factory)"])
    }

    @Test func aMissingNodeGoesOnceItsKeyIsRegistered() throws {
        let app = Container()
        app.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }
        _ = try? app.validate()
        #expect(edges(of: app.dependencyGraph()) == ["Transaction → Database (factory)"])
        #expect(app.dependencyGraph().nodes.last?.kind == .missing)
        app.register(type: Database.self) { _ in Database() }
        // Registered, but no resolve has been seen making the edge yet.
        #expect(edges(of: app.dependencyGraph()).isEmpty)
        #expect(!app.dependencyGraph().nodes.contains { $0.kind == .missing })
        try app.validate()
        let graph = app.dependencyGraph()
        #expect(edges(of: graph) == ["Transaction → Database (factory)"])
        #expect(graph.nodes.map(\.kind) == [.registration, .registration])
    }

    @Test func typesThatPrintAlikeGetLabelsWithTheirModule() {
        let app = Container()
        app.register(type: Database.self) { _ in Database() }
        app.register(type: GraphModuleA.Config.self) { _ in GraphModuleA.Config() }
        app.register(type: GraphModuleB.Config.self) { _ in GraphModuleB.Config() }
        #expect(app.dependencyGraph().nodes.map(\.label) == ["Database", "SyringeTests.GraphModuleA.Config", "SyringeTests.GraphModuleB.Config"])
    }

    @Test func perRequestValuesAreOneScopeNode() throws {
        let app = Container()
        app.register(type: RequestLog.self, in: .scoped) { r in _ = try r.resolve(type: Metrics.self); return RequestLog() }
        app.trace { _ in }
        defer { app.stopTracing() }
        for _ in 0..<3 {
            let scope = app.makeScope()
            scope.register(type: Metrics.self, dependency: Metrics())
            _ = try scope.tryResolve(type: RequestLog.self)
        }
        let graph = app.dependencyGraph()
        #expect(graph.nodes.map(\.label) == ["RequestLog", "Metrics"])
        #expect(graph.nodes.last?.holder == .scope)
        #expect(edges(of: graph) == ["RequestLog → Metrics (factory)"])
    }

    // Needs Graphviz's `dot` (Debian's graphviz, which `.ci/run` installs and
    // requires); skipped, and says so, where it is not installed.
    @Test(.enabled(if: graphvizInstalled, "needs Graphviz's `dot`: apt-get install graphviz"))
    func dotIsAcceptedByGraphviz() throws {
        let app = exampleWiring()
        try app.validate()
        // A name with the characters DOT must escape.
        app.register(type: Database.self, name: "quote \" backslash \\ brace { line\r\nbreak") { _ in Database() }
        let dot = app.dependencyGraph().dot()
        let svg = try runDot(dot)
        #expect(svg.contains("<svg"))
        #expect(svg.contains("TodoHandler"))
    }

    @Test func dotMatchesTheCheckedInRendering() throws {
        let app = exampleWiring()
        try app.validate()
        #expect(app.dependencyGraph().dot() == expectedDOT)
    }

    @Test func mermaidMatchesTheCheckedInRendering() throws {
        let app = exampleWiring()
        try app.validate()
        #expect(app.dependencyGraph().mermaid() == expectedMermaid)
    }

    private func edges(of graph: DependencyGraph) -> [String] {
        graph.edges.map { "\(graph.nodes[$0.from].label) → \(graph.nodes[$0.to].label) (\($0.origin))" }
    }

    /// Runs Graphviz's `dot` on `source`; fails the test if it rejects it.
    private func runDot(_ source: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["dot", "-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let diagnostics = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "dot: \(String(decoding: diagnostics, as: UTF8.self))\n\(source)")
        #expect(diagnostics.isEmpty, "dot: \(String(decoding: diagnostics, as: UTF8.self))")
        return String(decoding: svg, as: UTF8.self)
    }
}

/// Whether Graphviz's `dot` is on the path.
private let graphvizInstalled: Bool = {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/dot") }
}()

/// `Documentation/dependency-graph.dot`, rendered to the README's picture by
/// `dot -Tsvg Documentation/dependency-graph.dot -o Documentation/dependency-graph.svg`.
private let expectedDOT = (try? String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/SyringeTests/DependencyGraphTests.swift", with: "Documentation/dependency-graph.dot"), encoding: .utf8)) ?? "missing Documentation/dependency-graph.dot"

/// The Mermaid text the README shows.
private let expectedMermaid = """
flowchart LR
  subgraph c0 ["container"]
    n0["Database<br/>.shared"]:::shared
    n1["Transaction<br/>.scoped"]:::scoped
    n2["RequestLog<br/>.scoped"]:::scoped
    n3["TodoRepository<br/>.new"]:::new
    n4["TodoHandler<br/>.new"]:::new
    n5["SystemClock<br/>.shared"]:::shared
    n6["Clock<br/>alias"]:::alias
  end
  n7["Metrics<br/>missing"]:::missing
  n1 --> n0
  n3 --> n1
  n3 --> n2
  n4 --> n2
  n4 --> n3
  n4 --> n7
  n6 -.-> n5
  classDef new fill:#ffffff,stroke:#555555
  classDef shared fill:#dbeafe,stroke:#555555
  classDef scoped fill:#dcfce7,stroke:#555555
  classDef alias fill:#ffffff,stroke:#555555,stroke-dasharray:2 2
  classDef missing fill:#ffffff,stroke:#c0392b,color:#c0392b,stroke-dasharray:4 4

"""

/// Two types that print alike, "Config": a test module's stand-in for two
/// modules' `Config`.
enum GraphModuleA { struct Config: Sendable {} }
enum GraphModuleB { struct Config: Sendable {} }
