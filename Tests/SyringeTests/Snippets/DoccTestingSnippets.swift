import Syringe
import SyringeTesting
import Testing

/// The Swift snippets of `Syringe.docc/Testing.md`. The `.freshContainer`
/// test, the configured suite and `loadsProfile` are the README's, run by its
/// suite; the test-target fragment is not compiled. The article's tests that
/// name its app are here, as tests of this suite, with the app nested in it.
@Suite("Guide: Testing")
struct DoccTestingSnippets {
    protocol API {
        func get(_ path: String) -> String
    }
    struct LiveAPI: API {
        func get(_ path: String) -> String { "live \(path)" }
    }
    /// Records what it was asked: a class with mutable state, not `Sendable`.
    final class RecordingAPI: API {
        private(set) var requests: [String] = []
        func get(_ path: String) -> String {
            requests.append(path)
            return "fake \(path)"
        }
    }
    final class ProfileLoader {
        let api: API
        init(api: API) { self.api = api }
        func load() -> String { api.get("/profile") }
    }
    final class ProfileScreen {
        @Injected var loader: ProfileLoader
    }
    enum AppWiring {
        @Sendable static func register(into container: Container) {
            container.register { _ in LiveAPI() as API }
            container.register(type: ProfileLoader.self) { r in ProfileLoader(api: try r.resolve()) }
        }

        static func makeContainer() -> Container {
            let container = Container()
            register(into: container)
            return container
        }
    }

    @Test func wiringIsComplete() {
        expectValid(AppWiring.makeContainer())
    }

    @Test("expectValid records one issue per problem, and returns the report")
    func expectValidRecordsProblems() {
        #expect(expectValid(AppWiring.makeContainer()).validated.count == 2)
        let unwired = Container()
        unwired.register(type: ProfileLoader.self) { r in ProfileLoader(api: try r.resolve()) }
        withKnownIssue {
            expectValid(unwired)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Syringe could not resolve API") }
        }
    }

    @Test(.container(startingFrom: AppWiring.register) { $0.register(type: API.self, fake: RecordingAPI()) })
    func profileScreenShowsTheFakeProfile() throws {
        let api = try #require(Container.shared.resolve(type: API.self) as? RecordingAPI)
        _ = ProfileScreen().loader.load()              // ProfileScreen's @Injected loader comes from Container.shared
        #expect(api.requests == ["/profile"])
    }

    @Test("A child container's fake does not reach a .shared consumer of the parent")
    func childOverrideDoesNotReachShared() {
        let app = AppWiring.makeContainer()
        let child = Container(parent: app)
        child.register(type: API.self, fake: RecordingAPI())
        #expect(child.resolve(type: ProfileLoader.self).load() == "live /profile")
    }
}
