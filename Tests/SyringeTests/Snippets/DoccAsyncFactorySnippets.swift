import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/AsyncFactories.md`. The first block
/// (registering async factories) is the README's, and is repeated here for
/// the resolves that follow it in the article.
@Suite("Guide: Async Factories")
struct DoccAsyncFactorySnippets {
    struct AppConfig: Sendable { let path: String }
    final class Pool: Sendable {
        let path: String
        private init(path: String) { self.path = path }
        static func connect(config: AppConfig) async throws -> Pool {
            await Task.yield()
            return Pool(path: config.path)
        }
        /// A factory as a function of the resolver.
        @Sendable static func open(_ r: Resolver) async throws -> Pool {
            try await connect(config: r.resolve())
        }
    }
    final class Thumbnail: Sendable {
        let path: String
        private init(path: String) { self.path = path }
        static func render(config: AppConfig) async -> Thumbnail {
            await Task.yield()
            return Thumbnail(path: config.path)
        }
    }
    final class TodoRepo: Sendable {
        let pool: Pool
        init(pool: Pool) { self.pool = pool }
    }
    final class MonthReport: Sendable {
        let month: Int
        let repo: TodoRepo
        init(month: Int, repo: TodoRepo) async {
            await Task.yield()
            self.month = month
            self.repo = repo
        }
    }
    final class Analytics: Sendable {}
    protocol Plugin: Sendable { var id: String { get } }
    struct MetricsPlugin: Plugin { let id = "metrics" }
    struct VaultPlugin: Plugin {
        let id = "vault"
        init() async { await Task.yield() }
    }

    static func registerFactories(into c: Container) {
        c.register(type: AppConfig.self) { _ in AppConfig(path: "app.sqlite") }           // synchronous, as before
        c.register(type: Pool.self) { (r: Resolver) async throws in                      // .shared, made once
            try await Pool.connect(config: r.resolve())
        }
        c.register(type: TodoRepo.self, in: .new) { (r: Resolver) async throws in TodoRepo(pool: try await r.resolve()) }
        c.register(type: MonthReport.self) { (r: Resolver, month: Int) async throws in
            try await MonthReport(month: month, repo: r.resolve())
        }
    }

    @Test("Where a factory runs")
    func whereAFactoryRuns() async throws {
        let c = Container()
        c.register(type: AppConfig.self) { _ in AppConfig(path: "app.sqlite") }

        c.register(type: Thumbnail.self, in: .new) { @concurrent (r: Resolver) async throws in
            try await Thumbnail.render(config: r.resolve())     // heavy: never on the caller's actor
        }
        c.register(type: Pool.self, factory: Pool.open)        // a function reference: the global executor

        let thumbnail = try await c.resolveAsync(type: Thumbnail.self)
        #expect(thumbnail.path == "app.sqlite")
        #expect(try await c.resolveAsync(type: Thumbnail.self) !== thumbnail, ".new")
        let pool = try await c.resolveAsync(type: Pool.self)
        #expect(pool.path == "app.sqlite")
        #expect(try await c.resolveAsync(type: Pool.self) === pool, ".shared")
    }

    @Test("Resolve asynchronously")
    func resolveAsynchronously() async throws {
        let c = Container()
        Self.registerFactories(into: c)
        c.register(type: Plugin.self, name: "metrics") { _ in MetricsPlugin() }                 // synchronous
        c.register(type: Plugin.self, name: "vault") { (_: Resolver) async throws in await VaultPlugin() }   // async

        let repo: TodoRepo = try await c.resolveAsync()
        let report = try await c.resolveAsync(type: MonthReport.self, arguments: 11)
        let analytics: Analytics? = try await c.resolveIfRegisteredAsync()
        let plugins = try await c.resolveAllAsync(type: Plugin.self)

        #expect(repo.pool.path == "app.sqlite")
        #expect(report.month == 11)
        #expect(report.repo !== repo, "TodoRepo is .new")
        #expect(report.repo.pool === repo.pool, "Pool is .shared: made once")
        #expect(analytics == nil, "nothing is registered for Analytics")
        #expect(plugins.map(\.id) == ["metrics", "vault"])
        c.register(type: Analytics.self) { _ in Analytics() }
        #expect(try await c.resolveIfRegisteredAsync(type: Analytics.self) != nil)

        // A synchronous registration resolved asynchronously is the same registration.
        let analyticsNow = try await c.resolveAsync(type: Analytics.self)
        #expect(try c.tryResolve(type: Analytics.self) === analyticsNow)
        // An async registration resolved synchronously says how to resolve it instead...
        expectResolutionError(.registeredAsync) { try c.tryResolve(type: TodoRepo.self) }
        // ...except an async .shared instance that exists, returned as any existing one.
        #expect(try c.tryResolve(type: Pool.self) === repo.pool)
    }

    final class Session: Sendable {}
    final class Profile: Sendable {
        let session: Session
        init(session: Session) { self.session = session }
    }
    final class Feed: Sendable {
        let session: Session
        init(session: Session) { self.session = session }
    }
    final class Dashboard: Sendable {
        let profile: Profile
        let feed: Feed
        init(profile: Profile, feed: Feed) {
            self.profile = profile
            self.feed = feed
        }
    }

    @Test("Share graphs across suspensions: the child tasks of a factory share its .graph instances")
    func shareGraphs() async throws {
        let c = Container()
        c.register(type: Session.self, in: .graph) { _ in Session() }                                  // synchronous
        c.register(type: Profile.self, in: .new) { (r: Resolver) async throws in
            await Task.yield()
            return Profile(session: try await r.resolve())
        }
        c.register(type: Feed.self, in: .new) { r in Feed(session: try r.resolve()) }                  // synchronous

        c.register(type: Dashboard.self, in: .new) { (r: Resolver) async throws in
            async let profile: Profile = r.resolve()
            async let feed: Feed = r.resolve()
            return try await Dashboard(profile: profile, feed: feed)
        }

        let dashboard = try await c.resolveAsync(type: Dashboard.self)
        #expect(dashboard.profile.session === dashboard.feed.session, "one Session in one graph, across both child tasks")
        let next = try await c.resolveAsync(type: Dashboard.self)
        #expect(next.profile.session !== dashboard.profile.session, "and another for the next top-level resolve")
    }

    @MainActor final class TodoListModel {
        let config: AppConfig
        init(config: AppConfig) { self.config = config }
    }

    @Test("Build main-actor objects")
    func mainActorObjects() async throws {
        let c = Container()
        Self.registerFactories(into: c)

        c.register(type: TodoListModel.self, in: .new, isolatedTo: MainActor.self) { r in
            TodoListModel(config: try r.resolve())
        }

        let model = try await c.resolveAsync(type: TodoListModel.self)      // built on the main actor

        #expect(model.config.path == "app.sqlite")
        // Off the main actor, a synchronous resolve is an error, not a crash.
        expectResolutionError(.isolatedToMainActor) { try c.tryResolve(type: TodoListModel.self) }
        // On it, the factory runs synchronously.
        let onMain = try await MainActor.run { try c.tryResolve(type: TodoListModel.self).config.path }
        #expect(onMain == "app.sqlite")
    }

    @globalActor actor Background {
        static let shared = Background()
    }
    final class Worker: Sendable {
        /// Only code isolated to `Background` can make one.
        @Background init() {}
    }

    @Test("A factory isolated to another global actor is an async one")
    func globalActorFactory() async throws {
        let c = Container()

        c.register(type: Worker.self) { @Background r async in Worker() }

        expectResolutionError(.registeredAsync) { try c.tryResolve(type: Worker.self) }
        let worker = try await c.resolveAsync(type: Worker.self)
        #expect(try await c.resolveAsync(type: Worker.self) === worker, ".shared")
    }
}
