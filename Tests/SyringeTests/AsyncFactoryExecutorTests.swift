import Dispatch
import Synchronization
import Testing
import Syringe

/// Runs its jobs on a serial dispatch queue marked with `key`, so that code
/// can tell, without trapping, whether it runs here.
private final class MarkedQueueExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `queue` is a `let` of a thread-safe type.
    static let key = DispatchSpecificKey<Bool>()
    private let queue = DispatchQueue(label: "syringe.tests.marked-queue")

    init() {
        queue.setSpecific(key: Self.key, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// Whether the caller runs on this executor's queue.
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) ?? false
    }
}

/// Suspends its waiters until it is opened; no waiter spins. Its state is
/// `Locked`, not in a `Mutex`, for ThreadSanitizer (see `Locked`).
final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Opens `all` once `expected` resolves have started.
private final class Arrivals: Sendable {
    private let count = Locked(0)
    private let expected: Int
    let all = Gate()

    init(expected: Int) {
        self.expected = expected
    }

    func arrive() {
        if count.withLock({ count in count += 1; return count }) == expected { all.open() }
    }
}

/// An actor on a `MarkedQueueExecutor`.
private actor QueueActor {
    let executor = MarkedQueueExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Resolves `type` on this actor, first counting the call in `arrivals`
    /// if given (no suspension between the two).
    func resolve<T: Sendable>(_ type: T.Type, from container: Container, arrivals: Arrivals? = nil) async throws -> (onActorBefore: Bool, value: T) {
        arrivals?.arrive()
        return (MarkedQueueExecutor.isCurrent, try await container.resolveAsync(type: type))
    }

    /// Validates `container` on this actor.
    func validate(_ container: Container) async throws {
        try await container.validateAsync()
    }

    func resolveAlias(from container: Container) async throws -> (onActorBefore: Bool, value: Bool) {
        (MarkedQueueExecutor.isCurrent, try await container.resolveAsync(type: Bool.self, name: "alias"))
    }

    func resolve<T: Sendable>(_ type: T.Type, from container: Container, argument: Int) async throws -> (onActorBefore: Bool, value: T) {
        (MarkedQueueExecutor.isCurrent, try await container.resolveAsync(type: type, arguments: argument))
    }
}

/// Marks the main queue, the main actor's executor, so that a factory can
/// tell without trapping whether it runs on the main actor.
private enum MainQueueMark {
    static let key = DispatchSpecificKey<Bool>()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) ?? false
    }
}

/// A factory passed as a function reference: a plain `@Sendable` async
/// function, which runs on the global executor.
private func isOnMarkedQueue(_: Resolver) async -> Bool {
    MarkedQueueExecutor.isCurrent
}

/// `isOnMarkedQueue` with a runtime argument.
private func isOnMarkedQueue(_: Resolver, _: Int) async -> Bool {
    MarkedQueueExecutor.isCurrent
}

/// Where a factory ran, and the argument it was given.
private struct Ran: Sendable, Equatable {
    let onActor: Bool
    let argument: Int
}

/// Where an async factory runs: the README's "Where a factory runs".
@Suite("Async factories' executor")
struct AsyncFactoryExecutorTests {
    @Test("a trailing-closure async factory runs on the executor of the actor that resolves it")
    func onTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new) { (_: Resolver) async in MarkedQueueExecutor.isCurrent }
        let actor = QueueActor()
        let resolved = try await actor.resolve(Bool.self, from: c)
        #expect(resolved.onActorBefore)
        #expect(resolved.value)
    }

    @Test("a traced container runs a trailing-closure async factory on the resolver's actor too")
    func tracedOnTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new) { (_: Resolver) async in MarkedQueueExecutor.isCurrent }
        let events = Locked(0)
        c.trace { _ in events.withLock { $0 += 1 } }
        defer { c.stopTracing() }
        let resolved = try await QueueActor().resolve(Bool.self, from: c)
        #expect(resolved.onActorBefore)
        #expect(resolved.value, "tracing moved the factory off the resolver's actor")
        #expect(events.withLock { $0 } == 1)
    }

    @Test("validateAsync runs a trailing-closure async factory on the actor that validates")
    func validatedOnTheResolversActor() async throws {
        let c = Container()
        let ranOnActor = Locked<[Bool]>([])
        c.register(type: Int.self, in: .new) { (_: Resolver) async in
            ranOnActor.withLock { $0.append(MarkedQueueExecutor.isCurrent) }
            return 1
        }
        try await QueueActor().validate(c)
        #expect(ranOnActor.withLock { $0 } == [true])
    }

    @Test("a factory a trailing-closure factory resolves runs there too, however deep")
    func nestedOnTheResolversActor() async throws {
        struct Inner: Sendable { let onActor: Bool }
        struct Outer: Sendable { let onActor: Bool; let inner: Inner }
        let c = Container()
        c.register(type: Inner.self, in: .new) { (_: Resolver) async in Inner(onActor: MarkedQueueExecutor.isCurrent) }
        c.register(type: Outer.self, in: .new) { (r: Resolver) async throws in
            let inner: Inner = try await r.resolve()
            return Outer(onActor: MarkedQueueExecutor.isCurrent, inner: inner)
        }
        let resolved = try await QueueActor().resolve(Outer.self, from: c)
        #expect(resolved.value.onActor)
        #expect(resolved.value.inner.onActor)
    }

    @Test("an async factory passed with factory: runs on the global executor, not on the resolver's actor")
    func labeledClosureOffTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new, factory: { (_: Resolver) async in MarkedQueueExecutor.isCurrent })
        let resolved = try await QueueActor().resolve(Bool.self, from: c)
        // The marker reads true on the actor, so a false from the factory
        // means it ran elsewhere.
        #expect(resolved.onActorBefore)
        #expect(resolved.value == false)
    }

    @Test("a function reference passed with factory: runs on the global executor")
    func functionReferenceOffTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new, factory: isOnMarkedQueue)
        let resolved = try await QueueActor().resolve(Bool.self, from: c)
        #expect(resolved.onActorBefore)
        #expect(resolved.value == false)
    }

    @Test("a trailing-closure async factory with runtime arguments runs on the resolver's actor; one passed with factory: does not")
    func withArguments() async throws {
        let c = Container()
        c.register(type: Ran.self) { (_: Resolver, argument: Int) async in Ran(onActor: MarkedQueueExecutor.isCurrent, argument: argument) }
        c.register(type: Bool.self, factory: isOnMarkedQueue as @Sendable (Resolver, Int) async -> Bool)
        let actor = QueueActor()
        let trailing = try await actor.resolve(Ran.self, from: c, argument: 7)
        #expect(trailing.onActorBefore)
        #expect(trailing.value == Ran(onActor: true, argument: 7))
        let labelled = try await actor.resolve(Bool.self, from: c, argument: 7)
        #expect(labelled.onActorBefore)
        #expect(labelled.value == false)
    }

    @Test("a synchronous closure with runtime arguments stays a synchronous registration")
    func synchronousWithArguments() throws {
        let c = Container()
        c.register(type: Ran.self) { (_: Resolver, argument: Int) in Ran(onActor: false, argument: argument) }
        #expect(try c.tryResolve(type: Ran.self, arguments: 3) == Ran(onActor: false, argument: 3))
    }

    @Test("a synchronous factory generic over its arguments' pack stays a synchronous registration")
    func synchronousGenericPack() throws {
        func register<each A>(in c: Container, _ make: @escaping @Sendable (Resolver, repeat each A) throws -> Ran) {
            c.register(type: Ran.self, factory: make)
        }
        let c = Container()
        register(in: c) { (_: Resolver, argument: Int) in Ran(onActor: false, argument: argument) }
        #expect(try c.tryResolve(type: Ran.self, arguments: 5) == Ran(onActor: false, argument: 5))
    }

    @Test("an alias of a trailing-closure async factory runs it on the resolver's actor")
    func aliasOnTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new) { (_: Resolver) async in MarkedQueueExecutor.isCurrent }
            .implements(Bool.self, name: "alias")
        let actor = QueueActor()
        let resolved = try await actor.resolveAlias(from: c)
        #expect(resolved.onActorBefore)
        #expect(resolved.value)
    }

    @Test("a trailing closure marked @concurrent runs on the global executor")
    func concurrentClosureOffTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new) { @concurrent (_: Resolver) async in MarkedQueueExecutor.isCurrent }
        let resolved = try await QueueActor().resolve(Bool.self, from: c)
        #expect(resolved.onActorBefore)
        #expect(resolved.value == false)
    }

    @Test("a trailing-closure async factory resolved from the main actor runs on the main actor")
    @MainActor
    func onTheMainActor() async throws {
        DispatchQueue.main.setSpecific(key: MainQueueMark.key, value: true)
        defer { DispatchQueue.main.setSpecific(key: MainQueueMark.key, value: nil) }
        let c = Container()
        c.register(type: Bool.self, in: .new) { (_: Resolver) async in MainQueueMark.isCurrent }
        #expect(MainQueueMark.isCurrent)
        #expect(try await c.resolveAsync(type: Bool.self))
        // The same factory resolved off the main actor does not run there.
        let offMain = try await Task.detached { try await c.resolveAsync(type: Bool.self) }.value
        #expect(offMain == false)
    }

    @Test("an async .shared factory awaited from two actors at once is created once, on the executor of the actor that creates it",
          // Minutes, as the suite's other limits: in the full suite the
          // cooperative pool's two threads can spend a minute blocked in
          // Swift Testing's exit tests (reading their child processes'
          // output), and this test waits for them like every other.
          .timeLimit(.minutes(5)))
    func sharedAwaitedFromTwoActors() async throws {
        final class Made: Sendable {
            let onActor: Bool
            init(onActor: Bool) { self.onActor = onActor }
        }
        let creations = Atomic(0)
        let gate = Gate()
        let c = Container()
        c.register(type: Made.self) { (_: Resolver) async in
            creations.add(1, ordering: .relaxed)
            // Suspends (on the creating actor) until the other actor's
            // resolve has had time to find the creation in progress.
            await gate.wait()
            return Made(onActor: MarkedQueueExecutor.isCurrent)
        }
        let first = QueueActor(), second = QueueActor()
        let arrivals = Arrivals(expected: 2)
        async let a = first.resolve(Made.self, from: c, arrivals: arrivals)
        async let b = second.resolve(Made.self, from: c, arrivals: arrivals)
        // However this ends, the factory is let go.
        defer { gate.open() }
        // Both resolves have asked; the one that does not create finds the
        // creation in progress and waits for it, with no suspension
        // between its arrival and that wait, well within the sleep.
        await arrivals.all.wait()
        try await Task.sleep(for: .milliseconds(20))
        #expect(creations.load(ordering: .relaxed) == 1)
        gate.open()
        let (x, y) = try await (a, b)
        #expect(x.onActorBefore && y.onActorBefore)
        #expect(x.value === y.value)
        #expect(x.value.onActor)
        #expect(creations.load(ordering: .relaxed) == 1)
    }
}
