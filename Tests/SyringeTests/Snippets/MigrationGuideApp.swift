/// The app of the three migration guides' worked example (their "The app"
/// block: plain Swift, the same under every library), shared by their
/// snippet suites, which are nested here so that these natural names
/// (`HTTPClient`, `AuthService`) shadow, inside them only, any type of the
/// same name elsewhere in the test module.
enum MigrationGuideApp {
    // The article's "The app" block: plain Swift, the same under both libraries.
    protocol HTTPClient {
        func get(_ path: String) -> String
    }

    struct URLSessionHTTPClient: HTTPClient {
        let baseURL: String
        func get(_ path: String) -> String { "GET \(baseURL)\(path)" }   // the real one uses URLSession
    }

    struct StubHTTPClient: HTTPClient {   // for tests
        let response: String
        func get(_ path: String) -> String { response }
    }

    protocol TokenStore: AnyObject {
        var token: String? { get set }
    }

    final class KeychainTokenStore: TokenStore { var token: String? }
    final class InMemoryTokenStore: TokenStore { var token: String? }

    final class AuthService {
        let http: HTTPClient
        let tokens: TokenStore
        init(http: HTTPClient, tokens: TokenStore) {
            self.http = http
            self.tokens = tokens
        }
        func signIn() -> String {
            let token = http.get("/login")
            tokens.token = token
            return token
        }
    }

    final class ArticleViewModel {
        let articleID: Int
        let http: HTTPClient
        init(articleID: Int, http: HTTPClient) {
            self.articleID = articleID
            self.http = http
        }
    }

    final class AppCoordinator {
        let settings: SettingsCoordinator
        init(settings: SettingsCoordinator) { self.settings = settings }
    }

    final class SettingsCoordinator {
        weak var parent: AppCoordinator?   // a back reference: the cycle
    }

    protocol Analytics {   // optional: registered in some builds only
        func track(_ event: String)
    }
}
