import Syringe
import SyringeTesting
import Testing

extension MigrationGuideApp {
    /// The Syringe snippets of `Syringe.docc/MigratingFromResolver.md`, as written
    /// there. The worked example's types are nested here, so that their natural
    /// names (`HTTPClient`, `AppWiring`, `ProfileScreen`) shadow, inside this suite
    /// only, any type of the same name elsewhere in the test module.
    @Suite("Guide: Migrating from Resolver")
    struct MigrationResolverSnippets {
        // The article's Syringe wiring.
        enum AppWiring {
            static func register(into container: Container) {
                container.register(type: HTTPClient.self) { _ in                      // was .application
                    URLSessionHTTPClient(baseURL: "https://api.example.org")
                }
                container.register(type: TokenStore.self, name: "keychain") { _ in KeychainTokenStore() }
                container.register(type: TokenStore.self, name: "memory") { _ in InMemoryTokenStore() }
                container.register(type: AuthService.self, in: .graph) { r in           // Resolver's default, spelled out
                    AuthService(http: try r.resolve(), tokens: try r.resolve(name: "keychain"))
                }
                container.register(type: ArticleViewModel.self) { (r: Resolver, articleID: Int) in
                    ArticleViewModel(articleID: articleID, http: try r.resolve())
                }
                container.register(type: AppCoordinator.self) { r in AppCoordinator(settings: try r.resolve()) }
                    .onResolved { _, app in app.settings.parent = app }
                container.register(type: SettingsCoordinator.self, in: .graph) { _ in SettingsCoordinator() }
            }
        }

        final class ProfileScreen {
            @Injected var auth: AuthService                  // from Container.shared, when the screen is made
            @LazyInjected var coordinator: AppCoordinator    // on first access
            let analytics = Container.shared.resolveIfRegistered(type: Analytics.self)   // was @OptionalInjected
        }

        @Test("The worked example: launch, then resolve", .freshContainer)
        func workedExample() {
            // once, at launch, before anything resolves (what registerAllServices() was for)
            AppWiring.register(into: Container.shared)

            let screen = ProfileScreen()
            let article = Container.shared.resolve(type: ArticleViewModel.self, arguments: 42)

            // What the article says of each line.
            #expect(screen.auth.http is URLSessionHTTPClient)
            #expect(screen.auth.tokens === Container.shared.resolve(type: TokenStore.self, name: "keychain"))
            #expect(Container.shared.resolve(type: TokenStore.self, name: "memory") is InMemoryTokenStore)
            #expect(ProfileScreen().auth !== screen.auth, "AuthService is .graph: new for each top-level resolve")
            #expect(screen.coordinator === Container.shared.resolve(type: AppCoordinator.self), "AppCoordinator is .shared")
            #expect(screen.coordinator.settings.parent === screen.coordinator, "onResolved closed the cycle")
            #expect(screen.analytics == nil, "nothing registered: nil")
            #expect(article.articleID == 42 && article.http is URLSessionHTTPClient)
        }

        // The article's Syringe test.
        @Test func signInStoresTheToken() {
            let app = Container()
            AppWiring.register(into: app)
            let mock = Container(parent: app)                    // Resolver(child: main)
            mock.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }
            Container.$shared.withValue(mock) {                  // Resolver.root = mock, for this task only
                let screen = ProfileScreen()
                #expect(screen.auth.signIn() == "token-123")
                #expect(Container.shared.resolve(type: TokenStore.self, name: "keychain").token == "token-123")
            }
        }

        @Test("The child's override does not reach a .shared service of the parent")
        func childOverrideAndShared() {
            final class Feed {
                let http: HTTPClient
                init(http: HTTPClient) { self.http = http }
            }
            let app = Container()
            AppWiring.register(into: app)
            app.register(type: Feed.self) { r in Feed(http: try r.resolve()) }   // .shared, like .application
            let mock = Container(parent: app)
            mock.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }
            #expect(mock.resolve(type: AuthService.self).http is StubHTTPClient)
            #expect(mock.resolve(type: Feed.self).http is URLSessionHTTPClient)
            // Overriding in the same container reaches it, and the trait does that for Container.shared.
            let same = Container()
            AppWiring.register(into: same)
            same.register(type: Feed.self) { r in Feed(http: try r.resolve()) }
            same.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }
            #expect(same.resolve(type: Feed.self).http is StubHTTPClient)
        }

        @Test("Resolver's documented cycle, CyclicA → B → C ⇢ A, with onResolved in place of resolveProperties")
        func resolversCyclicExample() {
            final class CyclicA {
                var b: CyclicB
                init(_ b: CyclicB) { self.b = b }
            }
            final class CyclicB {
                var c: CyclicC
                init(_ c: CyclicC) { self.c = c }
            }
            final class CyclicC {
                weak var a: CyclicA?
            }
            let c = Container()
            c.register(type: CyclicA.self, in: .graph) { r in CyclicA(try r.resolve()) }
                .onResolved { r, a in try r.resolve(type: CyclicC.self).a = a }
            c.register(type: CyclicB.self, in: .graph) { r in CyclicB(try r.resolve()) }
            c.register(type: CyclicC.self, in: .graph) { _ in CyclicC() }
            let a = c.resolve(type: CyclicA.self)
            #expect(a.b.c.a === a, "onResolved resolves inside the same graph")
        }

        @Test("Optional resolve and arguments, as the table says")
        func table() {
            final class Tracker: Analytics { func track(_ event: String) {} }
            let c = Container()
            AppWiring.register(into: c)
            #expect(c.resolveIfRegistered(type: Analytics.self) == nil)
            c.register(type: Analytics.self) { _ in Tracker() }
            #expect(c.resolveIfRegistered(type: Analytics.self) is Tracker)
            // Wrong argument types are a ResolutionError listing the registered ones, not a crash.
            expectResolutionError(.argumentMismatch(registered: ["(Int)"])) {
                try c.tryResolve(type: ArticleViewModel.self, arguments: "42")
            }
            // Two arguments: typed, in order, no dictionary keys.
            c.register(type: ArticleViewModel.self, name: "draft") { (r: Resolver, articleID: Int, draft: Bool) in
                ArticleViewModel(articleID: draft ? -articleID : articleID, http: try r.resolve())
            }
            #expect(c.resolve(type: ArticleViewModel.self, name: "draft", arguments: 42, true).articleID == -42)
            // A constructor cycle is a ResolutionError, not a stack overflow.
            c.register(type: SettingsCoordinator.self) { r in
                _ = try r.resolve(type: AppCoordinator.self)
                return SettingsCoordinator()
            }
            expectResolutionError(.cycle) { try c.tryResolve(type: AppCoordinator.self) }
        }

        @Test("Qualified names, for files that import both libraries", .freshContainer)
        func qualifiedNames() {
            final class CheckoutScreen {
                @Syringe.Injected var auth: AuthService
            }
            let container: Syringe.Container = Syringe.Container.shared
            AppWiring.register(into: container)
            container.register(type: ArticleViewModel.self, name: "q") { (r: Syringe.Resolver, articleID: Int) in
                ArticleViewModel(articleID: articleID, http: try r.resolve())
            }
            #expect(CheckoutScreen().auth.http is URLSessionHTTPClient)
            #expect(container.resolve(type: ArticleViewModel.self, name: "q", arguments: 3).articleID == 3)
        }
    }
}
