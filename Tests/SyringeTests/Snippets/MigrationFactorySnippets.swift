import Syringe
import SyringeTesting
import Testing

extension MigrationGuideApp {
    /// The Syringe snippets of `Syringe.docc/MigratingFromFactory.md`, as written
    /// there. The worked example's types are nested here, so that their natural
    /// names (`HTTPClient`, `AppWiring`, `ProfileScreen`) shadow, inside this suite
    /// only, any type of the same name elsewhere in the test module.
    @Suite("Guide: Migrating from Factory")
    struct MigrationFactorySnippets {
        // The article's Syringe wiring.
        enum AppWiring {
            static func register(into container: Container) {
                container.register(type: HTTPClient.self) { _ in                      // was .singleton
                    URLSessionHTTPClient(baseURL: "https://api.example.org")
                }
                container.register(type: TokenStore.self, name: "keychain") { _ in KeychainTokenStore() }   // was .cached
                container.register(type: TokenStore.self, name: "memory") { _ in InMemoryTokenStore() }
                container.register(type: AuthService.self, in: .new) { r in             // Factory's default, spelled out
                    AuthService(http: try r.resolve(), tokens: try r.resolve(name: "keychain"))
                }
                container.register(type: ArticleViewModel.self) { (r: Resolver, articleID: Int) in
                    ArticleViewModel(articleID: articleID, http: try r.resolve())
                }
                container.register(type: AppCoordinator.self) { r in                    // was .cached
                    let app = AppCoordinator(settings: try r.resolve())
                    app.settings.parent = app
                    return app
                }
                container.register(type: SettingsCoordinator.self, in: .new) { _ in SettingsCoordinator() }
            }
        }

        final class ProfileScreen {
            @Injected var auth: AuthService                  // from Container.shared, when the screen is made
            @LazyInjected var coordinator: AppCoordinator    // on first access
        }

        @Test("The worked example: launch, then resolve", .freshContainer)
        func workedExample() {
            // once, at launch, before anything resolves (what AutoRegistering did)
            AppWiring.register(into: Container.shared)

            let screen = ProfileScreen()
            let article = Container.shared.resolve(type: ArticleViewModel.self, arguments: 42)

            // What the article says of each line.
            #expect(screen.auth.http is URLSessionHTTPClient)
            #expect(screen.auth.tokens === Container.shared.resolve(type: TokenStore.self, name: "keychain"))
            #expect(Container.shared.resolve(type: TokenStore.self, name: "memory") is InMemoryTokenStore)
            #expect(ProfileScreen().auth !== screen.auth, "AuthService is .new, as it was .unique")
            #expect(screen.coordinator === Container.shared.resolve(type: AppCoordinator.self), "AppCoordinator is .shared")
            #expect(screen.coordinator.settings.parent === screen.coordinator, "the cycle closed in the factory")
            #expect(article.articleID == 42 && article.http is URLSessionHTTPClient)
            #expect(Container.shared.resolve(type: ArticleViewModel.self, arguments: 7).articleID == 7,
                    "a registration with arguments never caches: each resolve gets its own arguments")
        }

        // The article's Syringe test.
        @Test(.container(startingFrom: AppWiring.register) {
            $0.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }
        })
        func signInStoresTheToken() {
            let screen = ProfileScreen()
            #expect(screen.auth.signIn() == "token-123")
            #expect(Container.shared.resolve(type: TokenStore.self, name: "keychain").token == "token-123")
        }

        // The article's check of the whole wiring, in place of compile-time key
        // paths: it passes only if expectValid records no issue.
        @Test func wiringIsComplete() {
            let container = Container()
            AppWiring.register(into: container)
            var samples = SampleArguments()
            samples.add(for: ArticleViewModel.self, arguments: 42)
            expectValid(container, samples: samples)   // one test issue per wiring problem
        }

        @Test("What the article says of wiringIsComplete")
        func wiringIsCompleteChecks() {
            let container = Container()
            AppWiring.register(into: container)
            var samples = SampleArguments()
            samples.add(for: ArticleViewModel.self, arguments: 42)
            let report = expectValid(container, samples: samples)
            #expect(report.validated.count == 7 && report.skipped.isEmpty == true, "every registration ran, ArticleViewModel's too")

            // Without the sample, ArticleViewModel is reported as not validated, not as a problem.
            let unsampled = expectValid(container)
            #expect(unsampled.validated.count == 6)
            #expect(unsampled.skipped.map(\.registration).contains { $0.contains("ArticleViewModel") })

            // One issue per problem, naming it.
            let unwired = Container()
            unwired.register(type: AuthService.self, in: .new) { r in
                AuthService(http: try r.resolve(), tokens: try r.resolve(name: "keychain"))
            }
            withKnownIssue {
                expectValid(unwired)
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("Syringe could not resolve HTTPClient") }
            }
        }

        @Test("@Injected properties initialised inside a factory join its resolve, as in Factory's resolution cycle")
        func injectedJoinsTheGraph() {
            final class Shared {}
            final class Holder {
                @Injected var a: Shared
                @Injected var b: Shared
            }
            let c = Container()
            c.register(type: Shared.self, in: .graph) { _ in Shared() }
            c.register(type: Holder.self, in: .new) { _ in Holder() }
            Container.$shared.withValue(c) {
                let built = c.resolve(type: Holder.self)
                #expect(built.a === built.b, "one graph: the factory's resolve")
                let direct = Holder()
                #expect(direct.a !== direct.b, "two top-level resolves, one per property")
            }
        }

        @Test("Factory's .singleton: one instance across containers only if they share the registration's container")
        func singletonAcrossContainers() {
            let app = Container()
            AppWiring.register(into: app)
            let feature = Container(parent: app)
            #expect(feature.resolve(type: AppCoordinator.self) === app.resolve(type: AppCoordinator.self))
            let other = Container()
            AppWiring.register(into: other)
            #expect(other.resolve(type: AppCoordinator.self) !== app.resolve(type: AppCoordinator.self))
        }

        @Test("A re-registration replaces the earlier one for good; a fresh container per test restores it")
        func reRegistrationIsPermanent() {
            let c = Container()
            AppWiring.register(into: c)
            c.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "stub") }
            #expect(c.resolve(type: AuthService.self).http is StubHTTPClient)
            AppWiring.register(into: c)
            #expect(c.resolve(type: AuthService.self).http is URLSessionHTTPClient)
        }

        @Test("Main-actor factories: Factory's @MainActor factories")
        @MainActor func mainActorFactory() async throws {
            @MainActor final class ContentViewModel {
                let auth: AuthService
                init(auth: AuthService) { self.auth = auth }
            }
            let c = Container()
            AppWiring.register(into: c)
            c.register(type: ContentViewModel.self, in: .new, isolatedTo: MainActor.self) { r in
                ContentViewModel(auth: try r.resolve())
            }
            let model = c.resolve(type: ContentViewModel.self)
            #expect(model.auth.http is URLSessionHTTPClient)
        }

        @Test("Qualified names, for files that import both libraries", .freshContainer)
        func qualifiedNames() {
            final class CheckoutScreen {
                @Syringe.Injected var auth: AuthService
                @Syringe.LazyInjected var coordinator: AppCoordinator
            }
            let container: Syringe.Container = Syringe.Container.shared
            AppWiring.register(into: container)
            let screen = CheckoutScreen()
            #expect(screen.auth.http is URLSessionHTTPClient)
            #expect(screen.coordinator.settings.parent === screen.coordinator)
        }
    }
}
