import Synchronization
import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/Assemblies.md`. The two assemblies and
/// their `apply` are the README's, run by its suite; they are repeated here
/// for the article's last block, which validates what they registered.
@Suite("Guide: Assemblies")
struct DoccAssemblySnippets {
    protocol APIClient: Sendable { var baseURL: String { get } }
    struct LiveAPIClient: APIClient { let baseURL: String }
    final class ProfileStore: Sendable {
        let api: APIClient
        private let warm = Atomic(false)
        init(api: APIClient) { self.api = api }
        var isWarm: Bool { warm.load(ordering: .relaxed) }
        func warmUp() { warm.store(true, ordering: .relaxed) }
    }
    final class SearchIndex: Sendable {
        init(api: APIClient) {}
    }

    struct NetworkAssembly: Assembly {
        let baseURL: String
        func assemble(into container: Container) {
            container.register { _ in LiveAPIClient(baseURL: baseURL) as APIClient }
        }
    }

    struct ProfileAssembly: Assembly {
        func assemble(into container: Container) {
            container.register(type: ProfileStore.self) { r in ProfileStore(api: try r.resolve()) }
        }
        func loaded(_ container: Container) {   // optional: once every assembly has registered
            container.resolve(type: ProfileStore.self).warmUp()
        }
    }

    /// A second feature module, for a problem in each of two modules.
    struct SearchAssembly: Assembly {
        func assemble(into container: Container) {
            container.register(type: SearchIndex.self) { r in SearchIndex(api: try r.resolve()) }
        }
    }

    @Test("Validate what the assemblies registered")
    func validateWhatTheAssembliesRegistered() throws {
        let app = Container()
        app.apply(NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly())
        try app.validate()   // every missing registration, across modules, at once

        let report = try app.validate()
        #expect(report.validated.count == 2 && report.skipped.isEmpty, "\(report)")
        #expect(app.resolve(type: ProfileStore.self).isWarm)
    }

    @Test("Validation lists every missing registration, across modules, at once")
    func everyProblemAcrossModules() {
        // Without the network module, the profile and search modules each miss
        // the APIClient. (Their assemble(into:) only: ProfileAssembly's loaded
        // would stop the program resolving a ProfileStore that cannot be built.)
        let app = Container()
        for assembly: any Assembly in [ProfileAssembly(), SearchAssembly()] {
            assembly.assemble(into: app)
        }
        let error = #expect(throws: ValidationError.self) { try app.validate() }
        let paths = error?.problems.map { $0.path.joined(separator: " → ") }.sorted()
        #expect(paths == ["ProfileStore → APIClient", "SearchIndex → APIClient"], "\(String(describing: error))")
    }

    @Test("apply: every assemble(into:) in order, then every loaded(_:); a later assembly's registration replaces an earlier one's")
    func applyOrder() {
        let app = Container()
        app.apply(NetworkAssembly(baseURL: "https://api.example.org"), ProfileAssembly(),
                  NetworkAssembly(baseURL: "https://staging.example.org"))
        let store = app.resolve(type: ProfileStore.self)
        #expect(store.isWarm)
        #expect(store.api.baseURL == "https://staging.example.org",
                "ProfileAssembly's loaded ran after the last assembly had registered")
    }
}
