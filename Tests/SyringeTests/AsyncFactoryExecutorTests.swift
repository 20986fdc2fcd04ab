import Dispatch
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

/// An actor on a `MarkedQueueExecutor`.
private actor QueueActor {
    let executor = MarkedQueueExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    func resolve<T: Sendable>(_ type: T.Type, from container: Container) async throws -> (onActorBefore: Bool, value: T) {
        (MarkedQueueExecutor.isCurrent, try await container.resolveAsync(type: type))
    }
}

/// Where an async factory runs: the README's "Where a factory runs".
@Suite("Async factories' executor")
struct AsyncFactoryExecutorTests {
    @Test("an async factory runs on the global executor, not on the actor of the code that resolves it")
    func offTheResolversActor() async throws {
        let c = Container()
        c.register(type: Bool.self, in: .new) { (_: Resolver) async in MarkedQueueExecutor.isCurrent }
        let actor = QueueActor()
        let resolved = try await actor.resolve(Bool.self, from: c)
        // The marker reads true on the actor, so a false from the factory
        // means it ran elsewhere.
        #expect(resolved.onActorBefore)
        #expect(resolved.value == false)
    }
}
