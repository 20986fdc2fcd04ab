import Foundation
import Syringe
import Testing

/// README "Quick start". The snippet is a whole program, as a `main.swift`
/// would hold it: an `import`, declarations, then top-level statements, which
/// no file of a test target may contain. So the README's text is kept here as
/// a program that is type-checked as written against this build's Syringe
/// module, and its statements also run here, with the declarations nested in
/// the suite, so that what they promise is checked.
@Suite("README: Quick start")
struct ReadmeQuickStartSnippets {
    static let program = """
        import Syringe

        protocol Logger { func log(_ message: String) }
        struct ConsoleLogger: Logger { func log(_ message: String) { print(message) } }

        final class Repo {
            let logger: Logger
            init(logger: Logger) { self.logger = logger }
        }

        let container = Container()
        container.register { _ in ConsoleLogger() as Logger }                    // the type comes from `as`
        container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }

        let repo = container.resolve(type: Repo.self)       // stops with a full diagnostic if it fails
        let logger: Logger = try container.tryResolve()     // or throws a ResolutionError

        """

    @Test("the quick start compiles as a program, as written")
    func compilesAsAProgram() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("syringe-quick-start-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = folder.appendingPathComponent("main.swift")
        try Self.program.write(to: main, atomically: true, encoding: .utf8)
        let (status, output) = try typecheckAgainstSyringe(main)
        #expect(status == 0, "the quick start does not compile:\n\(output)")
        #expect(!output.contains("error:"), "\(output)")
    }

    protocol Logger { func log(_ message: String) }
    struct ConsoleLogger: Logger { func log(_ message: String) { print(message) } }

    final class Repo {
        let logger: Logger
        init(logger: Logger) { self.logger = logger }
    }

    @Test("the quick start's statements resolve what they say")
    func runs() throws {
        let container = Container()
        container.register { _ in ConsoleLogger() as Logger }                    // the type comes from `as`
        container.register(type: Repo.self, in: .new) { r in Repo(logger: try r.resolve()) }

        let repo = container.resolve(type: Repo.self)       // stops with a full diagnostic if it fails
        let logger: Logger = try container.tryResolve()     // or throws a ResolutionError

        #expect(repo.logger is ConsoleLogger)
        #expect(logger is ConsoleLogger)
        #expect(container.resolve(type: Repo.self) !== repo, "Repo is registered .new: one per resolve")
        #expect(throws: ResolutionError.self) { try Container().tryResolve(type: Logger.self) }
    }
}
