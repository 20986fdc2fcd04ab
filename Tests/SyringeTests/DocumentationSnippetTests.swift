import Foundation
import Testing

/// Every Swift snippet of the README and of the DocC articles is compiled
/// and run by the test suite: each ```swift block must appear, line for line
/// (indentation and blank lines aside), in a test file under
/// `Tests/SyringeTests/Snippets/` (or `Tests/SyringeSwinjectTests/Snippets/`
/// for SyringeSwinject's), whose tests run it. A block that cannot run
/// as written (a `Package.swift` manifest, a mistake shown for its compiler
/// error) is marked on the line before its fence with
/// `<!-- snippet: not compiled, <why> -->`.
@Suite struct DocumentationSnippetTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The documents whose snippets are checked.
    static var documents: [String] {
        var paths = ["README.md"]
        let catalog = root.appendingPathComponent("Sources/Syringe/Syringe.docc")
        let articles = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
        paths += articles.filter { $0.hasSuffix(".md") }.sorted().map { "Sources/Syringe/Syringe.docc/\($0)" }
        return paths
    }

    /// The Swift blocks of `document`, each with the line it starts on.
    static func snippets(of document: String) throws -> [(line: Int, lines: [String])] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var result: [(Int, [String])] = []
        var current: [String]?
        var start = 0
        var exempt = false
        var previous = ""
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
                start = index + 1
                exempt = previous.hasPrefix("<!-- snippet: not compiled")
            } else if current != nil, trimmed.hasPrefix("```") {
                if !exempt {
                    result.append((start, current!))
                }
                current = nil
            } else if current != nil {
                current!.append(line)
            }
            if !trimmed.isEmpty {
                previous = trimmed
            }
        }
        return result
    }

    /// Lines as compared: trimmed, blank ones dropped.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The snippet tests: Syringe's, and SyringeSwinject's (in its own test
    /// target, which can import that module).
    static var snippetSources: [[String]] {
        ["Tests/SyringeTests/Snippets", "Tests/SyringeSwinjectTests/Snippets"].flatMap { path in
            let folder = root.appendingPathComponent(path)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.filter { $0.hasSuffix(".swift") }.compactMap { file in
                (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
                    .map { normalized($0.components(separatedBy: "\n")) }
            }
        }
    }

    /// A moved or renamed catalog would drop every article from the test
    /// above without a failure: its list is read from the directory.
    @Test func theCatalogsArticlesAreChecked() {
        #expect(Self.documents.count > 10, "only \(Self.documents) found")
        #expect(Self.documents.contains("Sources/Syringe/Syringe.docc/Syringe.md"))
    }

    @Test(arguments: documents)
    func everySnippetIsInATestThatRunsIt(_ document: String) throws {
        let sources = Self.snippetSources
        for snippet in try Self.snippets(of: document) {
            let wanted = Self.normalized(snippet.lines)
            guard !wanted.isEmpty else { continue }
            let found = sources.contains { source in
                source.count >= wanted.count
                    && (0...(source.count - wanted.count)).contains { Array(source[$0..<($0 + wanted.count)]) == wanted }
            }
            #expect(found, "\(document):\(snippet.line): this Swift block is not in any test under Tests/SyringeTests/Snippets/ or Tests/SyringeSwinjectTests/Snippets/ (or mark it `<!-- snippet: not compiled, why -->`):\n\(snippet.lines.joined(separator: "\n"))")
        }
    }
}
