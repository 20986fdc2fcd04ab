import Syringe
import Testing

extension MigrationGuideApp {
    /// The Syringe snippets of `Syringe.docc/MigratingFromSwinject.md`, as written
    /// there. The worked example's types are nested here, so that their natural
    /// names (`HTTPClient`, `AuthService`) shadow, inside this suite only, any
    /// type of the same name elsewhere in the test module.
    @Suite("Guide: Migrating from Swinject")
    struct MigrationSwinjectSnippets {
        // The article's Syringe wiring.
        struct NetworkAssembly: Assembly {
            func assemble(into container: Container) {
                container.register(type: HTTPClient.self) { _ in                        // .shared is the default
                    URLSessionHTTPClient(baseURL: "https://api.example.org")
                }
            }
        }

        struct AppAssembly: Assembly {
            func assemble(into container: Container) {
                container.register(type: TokenStore.self, name: "keychain") { _ in KeychainTokenStore() }
                container.register(type: TokenStore.self, name: "memory") { _ in InMemoryTokenStore() }
                container.register(type: AuthService.self, in: .graph) { r in           // Swinject's default, spelled out
                    AuthService(http: try r.resolve(), tokens: try r.resolve(name: "keychain"))
                }
                container.register(type: ArticleViewModel.self) { (r: Resolver, articleID: Int) in
                    ArticleViewModel(articleID: articleID, http: try r.resolve())
                }
                container.register(type: AppCoordinator.self) { r in
                    AppCoordinator(settings: try r.resolve())
                }
                container.register(type: SettingsCoordinator.self, in: .graph) { _ in SettingsCoordinator() }
                    .onResolved { r, settings in
                        settings.parent = try r.resolve(type: AppCoordinator.self)
                    }
            }
        }

        @Test("The worked example: the wiring, resolved")
        func workedExample() {
            let container = Container()
            container.apply(NetworkAssembly(), AppAssembly())

            let auth = container.resolve(type: AuthService.self)
            let article = container.resolve(type: ArticleViewModel.self, arguments: 42)
            let app = container.resolve(type: AppCoordinator.self)

            // What the article says of each line.
            #expect(auth.http is URLSessionHTTPClient)
            #expect(auth.tokens is KeychainTokenStore, "the \"keychain\" TokenStore")
            #expect(auth.tokens === container.resolve(type: TokenStore.self, name: "keychain"), "named registrations are .shared")
            #expect(container.resolve(type: TokenStore.self, name: "memory") is InMemoryTokenStore)
            #expect(container.resolve(type: AuthService.self) !== auth, ".graph resolved at the top is a new instance each time")
            #expect(article.articleID == 42 && article.http is URLSessionHTTPClient)
            #expect(container.resolve(type: ArticleViewModel.self, arguments: 42) !== article, "arguments: a new instance every time")
            #expect(app === container.resolve(type: AppCoordinator.self), "AppCoordinator is .shared: the singleton")
            #expect(app.settings.parent === app, "the cycle is closed by onResolved, with the same AppCoordinator")
        }

        @Test("onResolved runs after the graph is built: no factory runs twice")
        func noFactoryRunsTwice() {
            let calls = Locked(0)   // AppCoordinator factory runs
            let container = Container()
            container.apply(NetworkAssembly(), AppAssembly())
            container.register(type: AppCoordinator.self) { r in
                calls.withLock { $0 += 1 }
                return AppCoordinator(settings: try r.resolve())
            }
            let app = container.resolve(type: AppCoordinator.self)
            #expect(app.settings.parent === app)
            #expect(calls.withLock { $0 } == 1)
        }

        // The article's Syringe test, with Swift Testing.
        @Test func signInStoresTheToken() {
            let container = Container()
            container.apply(NetworkAssembly(), AppAssembly())
            container.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }   // replaces the live client
            let auth = container.resolve(type: AuthService.self)
            #expect(auth.signIn() == "token-123")
            #expect(container.resolve(type: TokenStore.self, name: "keychain").token == "token-123")
        }

        @Test("When something is missing: the error names its path")
        func missingRegistration() {
            let printed = Locked<[String]>([])
            func print(_ value: Any) { printed.withLock { $0.append("\(value)") } }

            let incomplete = Container()
            incomplete.register(type: AuthService.self, in: .graph) { r in
                AuthService(http: try r.resolve(), tokens: try r.resolve(name: "keychain"))
            }
            do {
                _ = try incomplete.tryResolve(type: AuthService.self)
            } catch {
                print(error.path)   // ["AuthService", "HTTPClient"]
                print(error)
                // Syringe could not resolve HTTPClient: nothing is registered for it in this container or its parents.
                //   path: AuthService → HTTPClient
            }

            #expect(printed.withLock { $0 } == [
                #"["AuthService", "HTTPClient"]"#,
                "Syringe could not resolve HTTPClient: nothing is registered for it in this container or its parents.\n"
                    + "  path: AuthService → HTTPClient",
            ])
        }

        @Test("A child's registration reaches .graph services resolved through it, not a parent's .shared ones")
        func childOverrides() {
            final class Session {
                let http: HTTPClient
                init(http: HTTPClient) { self.http = http }
            }
            let app = Container()
            app.apply(NetworkAssembly(), AppAssembly())
            app.register(type: Session.self) { r in Session(http: try r.resolve()) }   // .shared
            let child = Container(parent: app)
            child.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "token-123") }
            #expect(child.resolve(type: AuthService.self).http is StubHTTPClient)
            #expect(child.resolve(type: Session.self).http is URLSessionHTTPClient)
        }

        @Test("Qualified names, for files that import both libraries")
        func qualifiedNames() {
            let container: Syringe.Container = Syringe.Container()
            container.register(type: HTTPClient.self) { _ in StubHTTPClient(response: "ok") }
            #expect(container.resolve(type: HTTPClient.self).get("/") == "ok")
        }

        @Test("What the table says")
        func table() throws {
            let c = Container()
            // An instance registered with dependency: is built on the first resolve, then shared.
            let built = Locked(0)
            c.register(type: KeychainTokenStore.self, dependency: { built.withLock { $0 += 1 }; return KeychainTokenStore() }())
            #expect(built.withLock { $0 } == 0)
            #expect(c.resolve(type: KeychainTokenStore.self) === c.resolve(type: KeychainTokenStore.self))
            #expect(built.withLock { $0 } == 1)
            // Names compare as Swift strings compare.
            c.register(type: TokenStore.self, name: "caf\u{E9}") { _ in InMemoryTokenStore() }
            #expect(c.isRegistered(type: TokenStore.self, name: "cafe\u{301}"))
            // resolveIfRegistered: nil only when nothing is registered.
            #expect(c.resolveIfRegistered(type: AuthService.self) == nil)
            // .weak: a class instance is shared while held.
            c.register(type: InMemoryTokenStore.self, in: .weak) { _ in InMemoryTokenStore() }
            let held = c.resolve(type: InMemoryTokenStore.self)
            #expect(c.resolve(type: InMemoryTokenStore.self) === held)
            // An alias whose instance is not of its type is a ResolutionError, not a crash.
            c.register(type: KeychainTokenStore.self, name: "k") { _ in KeychainTokenStore() }.implements(HTTPClient.self, name: "k")
            expectResolutionError(.incompatibleAlias(instanceType: "KeychainTokenStore")) {
                try c.tryResolve(type: HTTPClient.self, name: "k")
            }
            // A constructor cycle is a ResolutionError too.
            c.register(type: AppCoordinator.self) { r in AppCoordinator(settings: try r.resolve()) }
            c.register(type: SettingsCoordinator.self) { r in
                _ = try r.resolve(type: AppCoordinator.self)
                return SettingsCoordinator()
            }
            expectResolutionError(.cycle) { try c.tryResolve(type: AppCoordinator.self) }
        }
    }
}
