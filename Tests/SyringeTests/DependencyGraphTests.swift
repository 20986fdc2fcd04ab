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
/// A type named with a raw identifier: printed between backticks.
private struct `Raw Name`: Sendable {}

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

    @Test func aRemovedDependencyIsMissingOrFoundInAParent() throws {
        let parent = Container()
        let app = Container(parent: parent)
        app.register(type: Database.self) { _ in Database() }
        app.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }
        try app.validate()
        #expect(edges(of: app.dependencyGraph()) == ["Transaction → Database (factory)"])
        app.remove(type: Database.self)
        // A resolve of Transaction would now fail: its dependency is missing.
        var graph = app.dependencyGraph()
        #expect(edges(of: graph) == ["Transaction → Database (factory)"])
        #expect(graph.nodes.map(\.kind) == [.registration, .missing])
        // Registered in the parent, it is what the request would find: its
        // edge is drawn once seen.
        parent.register(type: Database.self) { _ in Database() }
        #expect(edges(of: app.dependencyGraph()).isEmpty)
        try app.validate()
        graph = app.dependencyGraph()
        #expect(edges(of: graph) == ["Transaction → Database (factory)"])
        #expect(graph.nodes.map(\.kind) == [.registration, .registration])
        #expect(graph.nodes[1].holder == .container(level: 1))
    }

    @Test func aMissingNodeAndAScopesNodeOfOneTypeComeInAFixedOrder() async throws {
        // Each run in a process of its own: hashing is seeded per process,
        // and the tie was broken by a dictionary's order.
        var orders: Set<String> = []
        for _ in 0..<6 {
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                let app = Container()
                app.register(type: TodoHandler.self, in: .new) { r in
                    _ = try? r.resolve(type: Metrics.self)
                    return TodoHandler(repo: TodoRepository(tx: Transaction(db: Database()), log: RequestLog()), log: RequestLog())
                }
                app.trace { _ in }
                _ = try app.tryResolve(type: TodoHandler.self)   // Metrics missing
                let scope = app.makeScope()
                scope.register(type: Metrics.self) { _ in Metrics() }
                _ = try scope.tryResolve(type: TodoHandler.self)   // Metrics the scope's
                app.stopTracing()
                print(app.dependencyGraph().nodes.map { "\($0.label) \($0.kind) \($0.holder)" }.joined(separator: "; "))
            }
            orders.insert(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self))
        }
        #expect(orders == ["TodoHandler registration container(level: 0); Metrics registration scope; Metrics missing none\n"])
    }

    @Test func whatAContainerRemembersOfReplacedRegistrationsIsBounded() throws {
        let app = Container()
        app.register(type: Database.self) { _ in Database() }
        app.autoregister(in: .new, initializer: Transaction.init(db:))
        try app.validate()   // an edge is recorded: replacements are remembered from now on
        for index in 0..<(Observation.forgottenLimit + 100) {
            app.register(type: Database.self, name: "tenant \(index)") { _ in Database() }
            app.remove(type: Database.self, name: "tenant \(index)")
        }
        #expect(try #require(app.existingObservation).forgottenTimes.count <= Observation.forgottenLimit)
        #expect(edges(of: app.dependencyGraph()) == ["Transaction → Database (initializer)"])
    }

    @Test func whatATracedContainerRemembersOfMissingTargetsIsBounded() throws {
        // A factory asking for a key that comes and goes with its
        // registration (a per-tenant name): each resolve records an edge to
        // a missing node and how that node looks; the removal forgets the
        // edge, and must not leave the node's description behind.
        let app = Container()
        app.trace { _ in }
        defer { app.stopTracing() }
        for index in 0..<2_000 {
            let name = "tenant \(index)"
            app.register(type: Transaction.self, name: name, in: .new) { r in
                _ = try? r.resolve(type: Database.self, name: name)
                return Transaction(db: Database())
            }
            _ = try app.tryResolve(type: Transaction.self, name: name)
            app.remove(type: Transaction.self, name: name)
        }
        #expect(try #require(app.existingObservation).detachedCount <= 200)
        #expect(app.dependencyGraph().nodes.isEmpty)
    }

    @Test func whatValidationRemembersOfMissingTargetsIsBounded() throws {
        let app = Container()
        for index in 0..<1_000 {
            let name = "tenant \(index)"
            app.register(type: Transaction.self, name: name, in: .new) { r in
                _ = try? r.resolve(type: Database.self, name: name)
                return Transaction(db: Database())
            }
            _ = try? app.validate()
            app.remove(type: Transaction.self, name: name)
        }
        #expect(try #require(app.existingObservation).detachedCount <= 200)
        #expect(app.dependencyGraph().nodes.isEmpty)
    }

    @Test func whatRepeatedValidationRemembersIsBoundedByTheEdgeLimit() throws {
        // A factory that asks for a key made per call: every pass records
        // edges no earlier pass did. A tracer keeps at most `edgeLimit`;
        // so must the passes' edges the container absorbs.
        let app = Container()
        let calls = Locked(0)
        let perPass = 1_000
        app.register(type: Transaction.self, in: .new) { r in
            for _ in 0..<perPass {
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                _ = try? r.resolve(type: Database.self, name: "call \(call)")
            }
            return Transaction(db: Database())
        }
        for _ in 0..<(Observation.edgeLimit / perPass + 2) {
            _ = try? app.validate()
        }
        let observation = try #require(app.existingObservation)
        #expect(observation.edgeCount <= Observation.edgeLimit)
        #expect(observation.detachedCount <= 2 * Observation.edgeLimit + 64)
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

    @Test func mermaidWritesBackticksAsEntities() {
        let app = Container()
        app.register(type: `Raw Name`.self, in: .new) { _ in `Raw Name`() }
        let mermaid = app.dependencyGraph().mermaid()
        // `["` and a backtick open a Markdown string, in which Mermaid reads
        // a lone backtick as an error.
        #expect(!mermaid.contains("`"))
        // (The space between prints as a no-break space.)
        #expect(mermaid.contains(##"n0["#96;Raw"##) && mermaid.contains(##"Name#96;<br/>.new"]"##))
    }

    @Test func aScopesRegistrationIsDrawnWithItsOwnScope() throws {
        let app = Container()
        app.register(type: Transaction.self, in: .new) { r in
            _ = try r.resolve(type: Metrics.self, arguments: "request", 1)
            return Transaction(db: Database())
        }
        app.trace { _ in }
        let scope = app.makeScope()
        scope.register(type: Metrics.self) { (_: Resolver, _: String, _: Int) in Metrics() }
        _ = try scope.tryResolve(type: Transaction.self)
        app.stopTracing()
        let metrics = try #require(app.dependencyGraph().nodes.last)
        #expect(metrics.holder == .scope)
        #expect(metrics.scope == .new)
        #expect(metrics.label == "Metrics(String, Int)")
        #expect(app.dependencyGraph().dot().contains(#"n1 [label="Metrics(String, Int)\n.new""#))
    }

    @Test func theSameWiringGivesTheSameText() {
        var texts: Set<String> = []
        for _ in 0..<10 {
            let app = Container()
            app.register(type: Metrics.self, in: .new) { r in
                _ = try? r.resolve(type: Transaction.self)
                _ = try? r.resolve(type: Database.self)
                _ = try? r.resolve(type: SystemClock.self)
                _ = try? r.resolve(type: RequestLog.self)
                return Metrics()
            }
            _ = try? app.validate()
            let graph = app.dependencyGraph()
            #expect(graph.nodes.map(\.label) == ["Metrics", "Database", "RequestLog", "SystemClock", "Transaction"])
            texts.insert(graph.dot())
        }
        #expect(texts.count == 1)
    }

    @Test func aChildsGraphLosesTheEdgesOfAParentRegistrationReplacedSince() throws {
        let parent = Container()
        parent.register(type: Database.self) { _ in Database() }
        parent.register(type: RequestLog.self) { _ in RequestLog() }
        parent.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }
        let child = Container(parent: parent)
        try child.validate()
        #expect(edges(of: child.dependencyGraph()) == ["Transaction → Database (factory)"])
        parent.register(type: Transaction.self, in: .new) { r in _ = try r.resolve(type: RequestLog.self); return Transaction(db: Database()) }
        #expect(edges(of: child.dependencyGraph()).isEmpty)
        try child.validate()
        #expect(edges(of: child.dependencyGraph()) == ["Transaction → RequestLog (factory)"])
        // Seen by a tracer on the child, then removed and registered again.
        child.trace { _ in }
        _ = try child.tryResolve(type: Transaction.self)
        child.stopTracing()
        parent.remove(type: Transaction.self)
        parent.register(type: Transaction.self, in: .new) { _ in Transaction(db: Database()) }
        #expect(edges(of: child.dependencyGraph()).isEmpty)
    }

    // Needs Graphviz's `dot` (Debian's graphviz, which `.ci/run` installs and
    // requires); skipped, and says so, where it is not installed.
    @Test(.enabled(if: graphvizInstalled, "needs Graphviz's `dot`: apt-get install graphviz"))
    func dotIsAcceptedByGraphviz() throws {
        let app = exampleWiring()
        try app.validate()
        // A name with the characters DOT must escape, and control characters
        // (Graphviz rejects a NUL; the others would make its SVG no XML).
        app.register(type: Database.self, name: "quote \" backslash \\ brace { line\r\nbreak") { _ in Database() }
        app.register(type: Database.self, name: "nul \u{0} escape \u{1B} separator \u{2028} nonchar \u{FFFE}") { _ in Database() }
        let dot = app.dependencyGraph().dot()
        let svg = try runDot(dot)
        #expect(svg.contains("<svg"))
        #expect(svg.contains("TodoHandler"))
        #expect(svg.contains(#"nul \u{0} escape \u{1B} separator \u{2028} nonchar \u{FFFE}"#))
        // An entity in a name is shown as written, not decoded: SVG escapes
        // the `&` of the text "R&amp;D" once, as `&amp;amp;`.
        app.register(type: Database.self, name: "R&amp;D & co") { _ in Database() }
        #expect(try runDot(app.dependencyGraph().dot()).contains("R&amp;amp;D &amp; co"))
    }

    @Test func ampersandsInNamesAreWrittenAsThemselves() {
        let app = Container()
        app.register(type: Database.self, name: "R&amp;D & co") { _ in Database() }
        let graph = app.dependencyGraph()
        #expect(graph.dot().contains(#"n0 [label="Database[\"R&amp;amp;D &amp; co\"]\n.shared""#))
        #expect(graph.mermaid().contains(#"n0["Database[#quot;R#38;amp;D #38; co#quot;]<br/>.shared"]"#))
    }

    @Test func noMermaidClassIsAMermaidKeyword() throws {
        let app = Container()
        for scope in [Scope.new, .shared, .graph, .weak, .scoped] {
            app.register(type: Database.self, name: "\(scope)", in: scope) { _ in Database() }
        }
        app.register(type: SystemClock.self) { _ in SystemClock() }.implements((any Clock).self)
        app.register(type: Transaction.self, in: .new) { r in Transaction(db: try r.resolve()) }   // Database without a name is missing
        _ = try? app.validate()
        let mermaid = app.dependencyGraph().mermaid()
        let lines = mermaid.split(separator: "\n")
        let used = lines.compactMap { line in line.firstRange(of: ":::").map { String(line[$0.upperBound...]) } }
        let declared = lines.compactMap { line in line.firstRange(of: "classDef ").map { String(line[$0.upperBound...].prefix { $0 != " " }) } }
        #expect(Set(used) == ["syringe-new", "syringe-shared", "syringe-graph", "syringe-weak", "syringe-scoped", "syringe-alias", "syringe-missing"])
        #expect(Set(declared) == Set(used))
        // Mermaid's flowchart lexer reads these at the start of a word, up to
        // the first character that ends one, even as a class name.
        let keywords: Set = ["graph", "flowchart", "flowchart-elk", "subgraph", "end", "style", "linkStyle", "classDef", "class",
                             "click", "call", "href", "default", "interpolate", "direction", "accTitle", "accDescr",
                             "_self", "_blank", "_parent", "_top", "v"]
        for name in used {
            #expect(!keywords.contains(name) && !keywords.contains(String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" })), "\(name)")
        }
        #expect(mermaid.contains(#"n2["Database[#quot;graph#quot;]<br/>.graph"]:::syringe-graph"#))
    }

    @Test func controlCharactersInNamesAreWrittenVisibly() {
        let app = Container()
        app.register(type: Database.self, name: "a\u{0}b") { _ in Database() }
        app.register(type: RequestLog.self, name: "\u{1}\t\u{B}\u{C}\u{1B}\u{1F}\u{7F}\u{85}\u{9F}\u{2028}\u{2029}\u{FFFE}") { _ in RequestLog() }
        app.register(type: Metrics.self, name: "line\r\nbreak") { _ in Metrics() }
        let graph = app.dependencyGraph()
        for (format, text) in [("dot", graph.dot()), ("mermaid", graph.mermaid())] {
            let raw = text.unicodeScalars.filter {
                $0 != "\n" && [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                    || $0.properties.isNoncharacterCodePoint
            }
            #expect(raw.isEmpty, "\(format) writes \(raw.map { "U+\(String($0.value, radix: 16, uppercase: true))" }) raw")
        }
        #expect(graph.dot().contains(#"n0 [label="Database[\"a\\u{0}b\"]\n.shared""#))
        #expect(graph.dot().contains(#"n1 [label="RequestLog[\"\\u{1}\\u{9}\\u{B}\\u{C}\\u{1B}\\u{1F}\\u{7F}\\u{85}\\u{9F}\\u{2028}\\u{2029}\\u{FFFE}\"]\n.shared""#))
        #expect(graph.dot().contains(#"n2 [label="Metrics[\"line\nbreak\"]\n.shared""#))
        #expect(graph.mermaid().contains(#"n0["Database[#quot;a\u{0}b#quot;]<br/>.shared"]"#))
        #expect(graph.mermaid().contains(#"n1["RequestLog[#quot;\u{1}\u{9}\u{B}\u{C}\u{1B}\u{1F}\u{7F}\u{85}\u{9F}\u{2028}\u{2029}\u{FFFE}#quot;]<br/>.shared"]"#))
        #expect(graph.mermaid().contains(#"n2["Metrics[#quot;line<br/>break#quot;]<br/>.shared"]"#))
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
    n0["Database<br/>.shared"]:::syringe-shared
    n1["Transaction<br/>.scoped"]:::syringe-scoped
    n2["RequestLog<br/>.scoped"]:::syringe-scoped
    n3["TodoRepository<br/>.new"]:::syringe-new
    n4["TodoHandler<br/>.new"]:::syringe-new
    n5["SystemClock<br/>.shared"]:::syringe-shared
    n6["Clock<br/>alias"]:::syringe-alias
  end
  n7["Metrics<br/>missing"]:::syringe-missing
  n1 --> n0
  n3 --> n1
  n3 --> n2
  n4 --> n2
  n4 --> n3
  n4 --> n7
  n6 -.-> n5
  classDef syringe-new fill:#ffffff,stroke:#555555
  classDef syringe-shared fill:#dbeafe,stroke:#555555
  classDef syringe-scoped fill:#dcfce7,stroke:#555555
  classDef syringe-alias fill:#ffffff,stroke:#555555,stroke-dasharray:2 2
  classDef syringe-missing fill:#ffffff,stroke:#c0392b,color:#c0392b,stroke-dasharray:4 4

"""

/// Two types that print alike, "Config": a test module's stand-in for two
/// modules' `Config`.
enum GraphModuleA { struct Config: Sendable {} }
enum GraphModuleB { struct Config: Sendable {} }
