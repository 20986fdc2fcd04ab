import Testing
import Syringe
import SyringeTesting

// A small app's production wiring, and a test double that is not Sendable.
protocol StoryAPI {
    func get(_ path: String) -> String
}
struct StoryLiveAPI: StoryAPI, Sendable {
    func get(_ path: String) -> String { "live \(path)" }
}
final class StoryProfileLoader: Sendable {
    private let fetch: @Sendable () -> String
    init(api: any StoryAPI & Sendable) { fetch = { api.get("/profile") } }
    init(unchecked api: any StoryAPI) {
        let box = StoryUnchecked(api)
        fetch = { box.value.get("/profile") }
    }
    func load() -> String { fetch() }
}
private final class StoryUnchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
enum StoryWiring {
    @Sendable static func register(into container: Container) {
        container.register { _ in StoryLiveAPI() as any StoryAPI }
        // `.shared`: the case a child container's override cannot reach.
        container.register(type: StoryProfileLoader.self) { r in StoryProfileLoader(unchecked: try r.resolve(type: (any StoryAPI).self)) }
    }
}

/// Records what it was asked: a class with mutable state, not `Sendable`.
final class RecordingAPI: StoryAPI {
    private(set) var requests: [String] = []
    func get(_ path: String) -> String {
        requests.append(path)
        return "fake \(path)"
    }
}

@Suite struct TestingStoryTests {
    @Test func aNonSendableFakeReplacesOneServiceOfTheProductionWiring() throws {
        let api = RecordingAPI()
        let container = Container()
        StoryWiring.register(into: container)
        container.register(type: (any StoryAPI).self, fake: api)   // no unsafe annotation
        let loader = try container.tryResolve(type: StoryProfileLoader.self)
        #expect(loader.load() == "fake /profile")
        #expect(api.requests == ["/profile"])
    }

    @Test func aChildContainersOverrideDoesNotReachAParentsSharedService() throws {
        let app = Container()
        StoryWiring.register(into: app)
        let child = Container(parent: app)
        child.register(type: (any StoryAPI).self, fake: RecordingAPI())
        // By design: the parent's `.shared` loader resolves from the parent.
        #expect(try child.tryResolve(type: StoryProfileLoader.self).load() == "live /profile")
        #expect(try child.tryResolve(type: (any StoryAPI).self).get("/x") == "fake /x")
    }

    @Test(.container(startingFrom: StoryWiring.register) { $0.register(type: (any StoryAPI).self, fake: RecordingAPI()) })
    func theTraitStartsFromTheProductionWiring() throws {
        #expect(try Container.shared.tryResolve(type: StoryProfileLoader.self).load() == "fake /profile")
        let api = try #require(try Container.shared.tryResolve(type: (any StoryAPI).self) as? RecordingAPI)
        #expect(api.requests == ["/profile"])
    }

    /// What the trait's closure builds at once (an assembly's `loaded`)
    /// injects from the test's container, not the default one.
    @Test(.container { c in configureSawItsOwnContainer.withLock { $0 = Container.shared === c } })
    func theTraitsClosureRunsWithItsContainerShared() {
        #expect(configureSawItsOwnContainer.withLock { $0 } == true)
    }

    @Test(.container(startingFrom: StoryWiring.register))
    func withoutOverridesTheTraitIsTheProductionWiring() throws {
        #expect(try Container.shared.tryResolve(type: StoryProfileLoader.self).load() == "live /profile")
    }
}

/// Set by `theTraitsClosureRunsWithItsContainerShared`'s trait.
private let configureSawItsOwnContainer = Locked<Bool?>(nil)
