import Syringe
import SyringeTesting
import Testing

@Test(.freshContainer)
func startsEmpty() {
    #expect(!Container.shared.isRegistered(type: API.self))   // nothing from other tests
    Container.shared.register { _ in FakeAPI() as API }      // visible to this test only
}

@Suite(.container { $0.register { _ in FakeAPI() as API } })
struct ProfileTests { /* every test gets its own, configured Container.shared */ }

@Test func wiringIsComplete() {
    expectValid(AppWiring.makeContainer())   // one issue per wiring problem, at this line
}

// README "Testing with SyringeTesting". The snippet above declares tests at
// file scope, as a test file of an app would; the suites below check what it
// promises, and hold the second snippet. The app it tests is at the end.

extension ProfileTests {
    @Test func everyTestGetsTheConfiguredSharedContainer() {
        #expect(Container.shared.resolveIfRegistered(type: API.self) is FakeAPI)
    }
}

@Suite("README: Testing with SyringeTesting")
struct ReadmeTestingSnippets {
    @Test(".freshContainer: a registration into Container.shared is visible to its test only")
    func freshContainerKeepsRegistrationsToItsTest() async throws {
        let outside = Container()
        try await Container.$shared.withValue(outside) {
            let test = try #require(Test.current)
            try await ContainerTrait.freshContainer.provideScope(for: test, testCase: Test.Case.current) {
                #expect(!Container.shared.isRegistered(type: API.self), "the test starts with an empty container")
                startsEmpty()
                #expect(Container.shared.resolveIfRegistered(type: API.self) is FakeAPI)
            }
            #expect(!Container.shared.isRegistered(type: API.self))
        }
    }

    @Test("expectValid records one issue per wiring problem")
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
}

@Suite("README: Testing with SyringeTesting, production wiring plus one fake")
struct ReadmeTestingFakeSnippets {
    /// Records what it was asked: a class with mutable state, not `Sendable`.
    final class RecordingAPI: API {
        private(set) var requests: [String] = []
        func get(_ path: String) -> String {
            requests.append(path)
            return "fake \(path)"
        }
    }

    @Test func loadsProfile() throws {
        let api = RecordingAPI()                       // not Sendable
        let container = Container()
        AppWiring.register(into: container)            // the production wiring
        container.register(type: API.self, fake: api)  // replaces the live API for everyone
        _ = try container.tryResolve(type: ProfileLoader.self).load()
        #expect(api.requests == ["/profile"])
    }

    // The same for code that uses Container.shared (@Injected):
    @Test(.container(startingFrom: AppWiring.register) { $0.register(type: API.self, fake: RecordingAPI()) })
    func loadsProfileThroughShared() throws {
        let api = try #require(Container.shared.resolve(type: API.self) as? RecordingAPI)
        _ = ProfileScreen().loader.load()              // ProfileScreen's @Injected loader comes from Container.shared
        #expect(api.requests == ["/profile"])
    }

    @Test("without the fake, the production wiring's live API answers")
    func productionWiring() throws {
        let container = AppWiring.makeContainer()
        #expect(try container.tryResolve(type: ProfileLoader.self).load() == "live /profile")
    }
}

// The app the snippets test.
private protocol API {
    func get(_ path: String) -> String
}
private struct LiveAPI: API {
    func get(_ path: String) -> String { "live \(path)" }
}
private struct FakeAPI: API {
    func get(_ path: String) -> String { "fake \(path)" }
}
/// `.shared`: one per container, built with the container's API.
private final class ProfileLoader {
    let api: API
    init(api: API) { self.api = api }
    func load() -> String { api.get("/profile") }
}
private final class ProfileScreen {
    @Injected var loader: ProfileLoader
}
private enum AppWiring {
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
