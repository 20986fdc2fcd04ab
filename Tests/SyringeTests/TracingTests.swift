import Testing
@testable import Syringe

private final class TLeaf: Sendable {}
private final class TMiddle: Sendable { init(leaf: TLeaf) {} }
private final class TRoot: Sendable { init(middle: TMiddle, leaf: TLeaf) {} }
private protocol TService: Sendable {}
private final class TServiceImp: TService {}

/// Collects a container's events in order.
private final class Recorder: Sendable {
    let events = Locked<[ResolutionEvent]>([])

    func start(on container: Container) {
        container.trace { event in self.events.withLock { $0.append(event) } }
    }

    /// `request scope outcome depth` per event, e.g. `TLeaf graph created 2`.
    var lines: [String] {
        events.withLock { $0 }.map { event in
            "\(event.request) \(event.scope.map { "\($0)" } ?? "-") \(event.outcome) \(event.depth)"
        }
    }
}

// Tracing is process-wide while any container traces: these tests run one
// at a time, so that each sees only its own container's events.
@Suite(.serialized) struct TracingTests {
    @Test func newAndSharedAreCreatedThenReused() throws {
        let container = Container()
        container.register(type: TLeaf.self) { _ in TLeaf() }
        container.register(type: TMiddle.self, in: .new) { r in TMiddle(leaf: try r.resolve()) }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: TMiddle.self)
        _ = try container.tryResolve(type: TMiddle.self)
        #expect(recorder.lines == [
            "TLeaf shared created 1", "TMiddle new created 0",
            "TLeaf shared reused 1", "TMiddle new created 0",
        ])
    }

    @Test func graphInstancesAreReusedWithinOneResolveOnly() throws {
        let container = Container()
        container.register(type: TLeaf.self, in: .graph) { _ in TLeaf() }
        container.register(type: TMiddle.self, in: .new) { r in TMiddle(leaf: try r.resolve()) }
        container.register(type: TRoot.self, in: .new) { r in TRoot(middle: try r.resolve(), leaf: try r.resolve()) }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: TRoot.self)
        _ = try container.tryResolve(type: TLeaf.self)
        #expect(recorder.lines == [
            "TLeaf graph created 2", "TMiddle new created 1", "TLeaf graph reused 1", "TRoot new created 0",
            "TLeaf graph created 0",
        ])
    }

    @Test func weakInstancesAreReusedWhileHeld() throws {
        let container = Container()
        container.register(type: TLeaf.self, in: .weak) { _ in TLeaf() }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        var held: TLeaf? = try container.tryResolve(type: TLeaf.self)
        _ = try container.tryResolve(type: TLeaf.self)
        withExtendedLifetime(held) {}
        held = nil
        _ = try container.tryResolve(type: TLeaf.self)
        #expect(recorder.lines == ["TLeaf weak created 0", "TLeaf weak reused 0", "TLeaf weak created 0"])
    }

    @Test func scopedInstancesAreCreatedOncePerScope() async throws {
        let app = Container()
        app.register(type: TLeaf.self, in: .scoped) { _ in TLeaf() }
        let recorder = Recorder()
        recorder.start(on: app)   // the application's tracer sees its scopes' resolves
        defer { app.stopTracing() }
        for _ in 0..<2 {
            try await app.withScope { scope in
                _ = try scope.tryResolve(type: TLeaf.self)
                _ = try scope.tryResolve(type: TLeaf.self)
            }
        }
        #expect(recorder.lines == ["TLeaf scoped created 0", "TLeaf scoped reused 0", "TLeaf scoped created 0", "TLeaf scoped reused 0"])
    }

    @Test func aliasesAndFailuresAreReported() throws {
        let container = Container()
        container.register(type: TServiceImp.self) { _ in TServiceImp() }.implements((any TService).self)
        container.register(type: TMiddle.self, in: .new) { r in TMiddle(leaf: try r.resolve()) }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: (any TService).self)
        #expect(throws: ResolutionError.self) { try container.tryResolve(type: TMiddle.self) }
        #expect(recorder.lines == ["TService - created 0", "TLeaf - failed 1", "TMiddle new failed 0"])
        let failures = recorder.events.withLock { $0 }.filter { $0.outcome == .failed }
        #expect(failures.allSatisfy { $0.error?.request == "TLeaf" })
        #expect(failures.last?.description.hasPrefix("TMiddle (.new) failed in ") == true)
    }

    @Test func onResolvedCallbacksResolveOneLevelDown() throws {
        final class Node: @unchecked Sendable { var leaf: TLeaf? }
        let container = Container()
        container.register(type: TLeaf.self, in: .new) { _ in TLeaf() }
        container.register(type: Node.self, in: .new) { _ in Node() }.onResolved { r, node in node.leaf = try r.resolve(type: TLeaf.self) }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: Node.self)
        #expect(recorder.lines == ["TLeaf new created 1", "Node new created 0"])
    }

    @Test func stoppingEndsTheEventsAndAHandlerThatResolvesIsNotReportedToItself() throws {
        let container = Container()
        container.register(type: TLeaf.self, in: .new) { _ in TLeaf() }
        let events = Locked<[String]>([])
        container.trace { event in
            _ = try? container.tryResolve(type: TLeaf.self)   // not reported: it would report itself forever
            events.withLock { $0.append(event.request) }
        }
        _ = try container.tryResolve(type: TLeaf.self)
        container.stopTracing()
        _ = try container.tryResolve(type: TLeaf.self)
        #expect(events.withLock { $0 } == ["TLeaf"])
    }

    @Test func asyncResolvesAreReported() async throws {
        let container = Container()
        container.register(type: TLeaf.self) { (_: Resolver) async throws in TLeaf() }
        container.register(type: TMiddle.self, in: .new) { (r: Resolver) async throws in TMiddle(leaf: try await r.resolve()) }
        container.register(type: TServiceImp.self, in: .new) { _ in TServiceImp() }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try await container.resolveAsync(type: TMiddle.self)
        _ = try await container.resolveAsync(type: TMiddle.self)
        _ = try await container.resolveAsync(type: TServiceImp.self)   // a synchronous registration, resolved async
        #expect(recorder.lines == [
            "TLeaf shared created 1", "TMiddle new created 0",
            "TLeaf shared reused 1", "TMiddle new created 0",
            "TServiceImp new created 0",
        ])
    }

    @Test func aChildsResolvesReachItsParentsTracer() throws {
        let parent = Container()
        parent.register(type: TLeaf.self, in: .new) { _ in TLeaf() }
        let child = Container(parent: parent)
        let recorder = Recorder()
        recorder.start(on: parent)
        defer { parent.stopTracing() }
        _ = try child.tryResolve(type: TLeaf.self)
        #expect(recorder.lines == ["TLeaf new created 0"])
        #expect(recorder.events.withLock { $0 }.allSatisfy { $0.duration >= .zero })
    }
}

@Suite struct ResolutionEventTests {
    @Test func describesItselfOnOneLine() {
        let created = ResolutionEvent(type: TLeaf.self, name: nil, argumentTypes: [], scope: .scoped, outcome: .created,
                                      depth: 1, duration: .nanoseconds(1_240), error: nil)
        #expect(created.description == "TLeaf (.scoped) created in 1.2 µs, depth 1")
        let slow = ResolutionEvent(type: TLeaf.self, name: "cache", argumentTypes: ["Int"], scope: .new, outcome: .created,
                                   depth: 0, duration: .milliseconds(64), error: nil)
        #expect(slow.description == "TLeaf named \"cache\" with arguments (Int) (.new) created in 64 ms")
        let fast = ResolutionEvent(type: TLeaf.self, name: nil, argumentTypes: [], scope: .shared, outcome: .reused,
                                   depth: 0, duration: .nanoseconds(12), error: nil)
        #expect(fast.description == "TLeaf (.shared) reused in 12 ns")
    }
}

@Suite(.serialized) struct TracingReviewTests {
    /// A handler runs once the resolve in progress has returned, so what it
    /// resolves is a resolve of its own: the instance being built is not a
    /// cycle for it.
    @Test func aHandlerThatResolvesDoesNotJoinTheResolveInProgress() throws {
        let container = Container()
        container.register(type: TLeaf.self, in: .new) { _ in TLeaf() }
        container.register(type: TMiddle.self, in: .new) { r in TMiddle(leaf: try r.resolve()) }
        let failures = Locked<[String]>([])
        let events = Locked<[String]>([])
        container.trace { [weak container] event in
            events.withLock { $0.append(event.request) }
            do {
                _ = try container?.tryResolve(type: TMiddle.self)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: TMiddle.self)
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(events.withLock { $0 } == ["TLeaf", "TMiddle"])
    }

    @Test func anAsyncAliasIsOneEvent() async throws {
        let container = Container()
        container.register(type: TServiceImp.self, in: .new) { (_: Resolver) async throws in TServiceImp() }
            .implements((any TService).self)
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try await container.resolveAsync(type: (any TService).self)
        #expect(recorder.lines == ["TService - created 0"])
    }

    @Test func anAsyncResolveOfAMainActorSingletonIsOneEvent() async throws {
        let container = Container()
        container.register(type: TLeaf.self, isolatedTo: MainActor.self) { _ in TLeaf() }
        container.register(type: TServiceImp.self, isolatedTo: MainActor.self) { _ in TServiceImp() }
            .implements((any TService).self)
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try await container.resolveAsync(type: TLeaf.self)
        _ = try await container.resolveAsync(type: TLeaf.self)
        _ = try await container.resolveAsync(type: (any TService).self)
        #expect(recorder.lines == ["TLeaf shared created 0", "TLeaf shared reused 0", "TService - created 0"])
    }

    @Test func whatACallbacksResolveResolvesIsTwoLevelsDown() throws {
        final class Node: @unchecked Sendable { var middle: TMiddle? }
        let container = Container()
        container.register(type: TLeaf.self, in: .new) { _ in TLeaf() }
        container.register(type: TMiddle.self, in: .new) { r in TMiddle(leaf: try r.resolve()) }
        container.register(type: Node.self, in: .new) { _ in Node() }.onResolved { r, node in node.middle = try r.resolve(type: TMiddle.self) }
        let recorder = Recorder()
        recorder.start(on: container)
        defer { container.stopTracing() }
        _ = try container.tryResolve(type: Node.self)
        #expect(recorder.lines == ["TLeaf new created 2", "TMiddle new created 1", "Node new created 0"])
    }
}
