import Testing
import Syringe

/// A client whose factory is async and a server whose factory is not: the
/// README's way out of a cycle (the server gets its client in `onResolved`)
/// in an app that made one of the two async.
private final class HalfAsyncClient: Sendable {
    let server: SyncServer
    init(server: SyncServer) { self.server = server }
}

private final class SyncServer: @unchecked Sendable {
    // @unchecked: set once, by the callback, before the resolve returns it.
    weak var client: HalfAsyncClient?
}

private final class Outer: Sendable {
    let inner: Tracked
    init(inner: Tracked) { self.inner = inner }
}

private final class Sibling: Sendable {}

/// The `onResolved` callbacks of a synchronous registration that an async
/// factory asks for run when the async resolve has built its whole graph,
/// as the async registrations' callbacks do, not when the synchronous part
/// returns.
@Suite("Synchronous callbacks inside an async resolve")
struct BridgedCallbackTests {
    @Test("a synchronous server's callback finds the async client that is being built: the client, not a cycle")
    func cycleBrokenAcrossKinds() async throws {
        let c = Container()
        c.register(type: HalfAsyncClient.self, in: .graph) { (r: Resolver) async throws in HalfAsyncClient(server: try await r.resolve()) }
        c.register(type: SyncServer.self, in: .graph) { _ in SyncServer() }
            .onResolved { r, server in server.client = try r.resolve(type: HalfAsyncClient.self) }
        let client = try await c.resolveAsync(type: HalfAsyncClient.self)
        #expect(client.server.client === client)
    }

    @Test("the callback runs after the async factory that asked for its instance has returned, in the order the callbacks were queued")
    func runsAtTheEnd() async throws {
        let log = Locked<[String]>([])
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self, in: .new) { _ in Tracked(counter) }
            .onResolved { _, _ in log.withLock { $0.append("inner's callback") } }
        c.register(type: Outer.self, in: .new) { (r: Resolver) async throws in
            let inner: Tracked = try await r.resolve()
            log.withLock { $0.append("outer's factory returns") }
            return Outer(inner: inner)
        }
        .onResolved { _, _ in log.withLock { $0.append("outer's callback") } }
        _ = try await c.resolveAsync(type: Outer.self)
        #expect(log.withLock { $0 } == ["outer's factory returns", "inner's callback", "outer's callback"])
    }

    @Test("a synchronous .shared instance of the app, made in its own graph for an async resolve from a scope: its callback waits for the end too, and its .graph resolves join that graph")
    func appGraphFromScope() async throws {
        let log = Locked<[String]>([])
        let app = Container()
        let counter = Counter()
        app.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        app.register(type: Outer.self) { r in Outer(inner: try r.resolve()) }
            .onResolved { r, outer in
                log.withLock { $0.append("app's callback") }
                let tracked = try r.resolve(type: Tracked.self)
                #expect(tracked === outer.inner, "the graph the instance was built in")
            }
        app.register(type: Sibling.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Outer.self)
            log.withLock { $0.append("scope's factory returns") }
            return Sibling()
        }
        let scope = app.makeScope()
        _ = try await scope.resolveAsync(type: Sibling.self)
        try await scope.close()
        #expect(log.withLock { $0 } == ["scope's factory returns", "app's callback"])
        #expect(counter.created == 1)
    }

    @Test("a synchronous callback that throws fails the async resolve, and its .shared instance is taken back")
    func throwingCallback() async throws {
        let counter = Counter()
        let fail = Locked(true)
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { _, _ in
                if fail.withLock({ $0 }) {
                    throw Failure(code: 7)
                }
            }
        c.register(type: Outer.self, in: .new) { (r: Resolver) async throws in Outer(inner: try await r.resolve()) }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 7))) { try await c.resolveAsync(type: Outer.self) }
        fail.withLock { $0 = false }
        let outer = try await c.resolveAsync(type: Outer.self)
        #expect(outer.inner.serial == 2, "the first instance was taken back")
        #expect(c.resolve(type: Tracked.self) === outer.inner)
    }

    @Test("an earlier callback that throws takes back the synchronous .shared instance whose callbacks had not run yet")
    func earlierFailureTakesBack() async throws {
        let counter = Counter()
        let innerCallbacks = Locked(0)
        let c = Container()
        c.register(type: Sibling.self, in: .new) { (_: Resolver) async in Sibling() }
            .onResolved { _, _ in throw Failure(code: 1) }
        c.register(type: Tracked.self) { _ in Tracked(counter) }
            .onResolved { _, _ in innerCallbacks.withLock { $0 += 1 } }
        c.register(type: Outer.self, in: .new) { (r: Resolver) async throws in
            _ = try await r.resolve(type: Sibling.self)
            return Outer(inner: try await r.resolve())
        }
        await expectAsyncResolutionError(.factoryFailed(Failure(code: 1))) { try await c.resolveAsync(type: Outer.self) }
        #expect(innerCallbacks.withLock { $0 } == 0)
        let inner = c.resolve(type: Tracked.self)
        #expect(inner.serial == 2, "the instance whose callbacks never ran was taken back")
        #expect(innerCallbacks.withLock { $0 } == 1)
    }

    @Test("a synchronous resolve outside any async one still runs its callbacks before it returns")
    func synchronousResolveUnchanged() throws {
        let c = Container()
        let ran = Locked(false)
        c.register(type: Sibling.self, in: .new) { _ in Sibling() }
            .onResolved { _, _ in ran.withLock { $0 = true } }
        _ = c.resolve(type: Sibling.self)
        #expect(ran.withLock { $0 })
    }
}
