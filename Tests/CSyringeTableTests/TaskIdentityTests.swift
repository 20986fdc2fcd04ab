import CSyringeTable
import Testing

/// `syr_current_task` (include/syringe_task.h): the running task's address,
/// which the async engine compares to tell a task that waits for its own
/// claim from one that waits for another's.
@Suite("The running task's identity")
struct TaskIdentityTests {
    private static func current() -> UInt {
        UInt(bitPattern: syr_current_task())
    }

    @Test("Outside any task there is none")
    func noTaskOnAPlainThread() {
        #expect(onNewThread { Self.current() } == 0)
    }

    @Test("A task sees one identity, the same as withUnsafeCurrentTask's, across its suspensions")
    func stableWithinATask() async {
        let reported = withUnsafeCurrentTask { task in UInt(bitPattern: unsafeBitCast(task, to: UnsafeRawPointer?.self)) }
        let before = Self.current()
        await Task.yield()
        try? await Task.sleep(nanoseconds: 1_000_000)
        let after = Self.current()
        #expect(before != 0)
        #expect(before == reported)
        #expect(after == before, "resumed, perhaps on another thread, the task is the same task")
    }

    @Test("Tasks alive at once have different identities")
    func distinctAcrossTasks() async {
        let mine = Self.current()
        // Each child stays alive until all have reported, so no address is
        // freed and reused by a later child.
        let others = await withTaskGroup(of: UInt.self) { group in
            let gate = AsyncGate(count: 8)
            for _ in 0..<8 {
                group.addTask {
                    let identity = Self.current()
                    await gate.arriveAndWait()
                    return identity
                }
            }
            var seen: [UInt] = []
            for await identity in group {
                seen.append(identity)
            }
            return seen
        }
        #expect(others.count == 8)
        #expect(Set(others).count == 8)
        #expect(!others.contains(mine))
        #expect(!others.contains(0))
    }
}

/// Lets `count` tasks through only once all of them have arrived.
private actor AsyncGate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let count: Int

    init(count: Int) {
        self.count = count
    }

    func arriveAndWait() async {
        if waiting.count + 1 == count {
            waiting.forEach { $0.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
