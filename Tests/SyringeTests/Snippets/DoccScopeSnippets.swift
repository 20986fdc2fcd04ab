import Synchronization
import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/ScopesAndLifetimes.md`. Releasing
/// shared instances, the request scope and `withScope` are the README's
/// blocks, run by its suites; the rest is here. `Pair` is the shared fixture
/// of `Fixtures.swift`.
@Suite("Guide: Scopes and Lifetimes")
struct DoccScopeSnippets {
    protocol Clock: AnyObject {}
    final class SystemClock: Clock {}
    final class Request {}
    final class UnitOfWork {}
    /// Numbered, to tell a new instance from an old one at the same address.
    final class Cache {
        static let made = Atomic(0)
        let serial = Cache.made.add(1, ordering: .relaxed).newValue
    }
    final class Cart {}

    @Test("Pick a scope")
    func pickAScope() {
        let c = Container()
        c.register(type: Clock.self, in: .shared) { _ in SystemClock() }     // one per container (the default)
        c.register(type: Request.self, in: .new) { _ in Request() }          // one per resolve
        c.register(type: UnitOfWork.self, in: .graph) { _ in UnitOfWork() }  // one per top-level resolve
        c.register(type: Cache.self, in: .weak) { _ in Cache() }             // shared while somebody holds it
        c.register(type: Cart.self, in: .scoped) { _ in Cart() }             // one per request scope

        #expect(c.resolve(type: Clock.self) === c.resolve(type: Clock.self))
        #expect(Container(parent: c).resolve(type: Clock.self) === c.resolve(type: Clock.self),
                "one per container that holds the registration")
        #expect(c.resolve(type: Request.self) !== c.resolve(type: Request.self))

        c.register(type: Pair<UnitOfWork>.self, in: .new) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        let pair = c.resolve(type: Pair<UnitOfWork>.self)
        #expect(pair.first === pair.second, "one UnitOfWork within a top-level resolve")
        #expect(c.resolve(type: UnitOfWork.self) !== pair.first, "and another for the next one")

        var cache: Cache? = c.resolve(type: Cache.self)
        let serial = cache?.serial
        #expect(c.resolve(type: Cache.self).serial == serial, "shared while held")
        cache = nil
        #expect(c.resolve(type: Cache.self).serial != serial, "made anew once nobody holds it")

        let scope = c.makeScope()
        #expect(scope.resolve(type: Cart.self) === scope.resolve(type: Cart.self))
        #expect(scope.resolve(type: Cart.self) !== c.makeScope().resolve(type: Cart.self))
        expectResolutionError(.noScope) { try c.tryResolve(type: Cart.self) }
    }

    /// What the article's `Connection` closes, found through the `socket`
    /// that this file gives every `Disposable` class (the article's
    /// `Connection` is all of its class there is): closing it records the
    /// owner's identity.
    struct Socket {
        static let closed = Locked<[ObjectIdentifier]>([])
        let owner: AnyObject
        func close() throws { Socket.closed.withLock { $0.append(ObjectIdentifier(owner)) } }
        static func wasClosed(_ owner: AnyObject) -> Bool {
            closed.withLock { $0.contains(ObjectIdentifier(owner)) }
        }
    }

    @Test("A Disposable instance needs no disposer, whatever type it was registered as")
    func disposable() async throws {
        let container = Container()
        final class Connection: Disposable {
            func dispose() throws { try socket.close() }
        }
        container.register(type: Connection.self, in: .scoped) { _ in Connection() }

        container.register(type: AnyObject.self, name: "link", in: .scoped) { _ in Connection() }
        let scope = container.makeScope()
        let connection = scope.resolve(type: Connection.self)
        let link = scope.resolve(type: AnyObject.self, name: "link")
        #expect(!Socket.wasClosed(connection) && !Socket.wasClosed(link))
        try await scope.close()
        #expect(Socket.wasClosed(connection), "the scope's close() disposed of its Connection")
        #expect(Socket.wasClosed(link), "registered as AnyObject, disposed of as the Disposable it is")
    }

    final class Database: Sendable {}
    final class Repo: Sendable {
        init(db: Database) {}
    }

    @Test("Shut down: close() disposes of the .shared instances, newest first")
    func shutDown() async throws {
        let disposed = Locked<[String]>([])
        let app = Container()
        app.register(type: Database.self) { _ in Database() }
            .onDispose { _ in disposed.withLock { $0.append("Database") } }
        app.register(type: Repo.self) { r in Repo(db: try r.resolve()) }
            .onDispose { _ in disposed.withLock { $0.append("Repo") } }
        _ = app.resolve(type: Repo.self)   // makes the Database first, then the Repo

        try await app.close()

        #expect(disposed.withLock { $0 } == ["Repo", "Database"], "the database goes last, as it was made first")
        #expect(app.isClosed)
        expectResolutionError(.closed) { try app.tryResolve(type: Database.self) }
    }
}

/// The socket the article's `Connection` closes; see `DoccScopeSnippets.Socket`.
fileprivate extension Disposable where Self: AnyObject {
    var socket: DoccScopeSnippets.Socket { DoccScopeSnippets.Socket(owner: self) }
}
