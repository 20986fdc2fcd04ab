import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
@_spi(SyringeSwinject) import Syringe
@testable import SyringeSwinject

protocol Animal: AnyObject {
    var name: String { get }
}

final class Cat: Animal {
    let name: String
    init(name: String = "cat") { self.name = name }
}

final class Owner {
    let pet: Animal
    init(pet: Animal) { self.pet = pet }
}

final class Node {
    var next: Node?
    init(next: Node? = nil) { self.next = next }
}

/// A counter factories may bump from any thread.
final class Counter: Sendable {
    private let value = Atomic(0)
    @discardableResult
    func increment(by amount: Int = 1) -> Int { value.wrappingAdd(amount, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Runs `body` on `threads` threads at once, each with its index.
func onThreads(_ threads: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: threads, execute: body)
}

/// A value guarded by Syringe's pthread lock (not `Mutex`, which
/// ThreadSanitizer does not see on Linux).
final class Guarded<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.withLock { body(&value) }
    }
}

/// Collects log lines sent to `Container.loggingFunction` while `body` runs.
///
/// The logging function is one for the whole process: captures run one at a
/// time, so that each restores what the one before it installed, and tests
/// running in parallel may still log meanwhile (the stress tests' misses), so
/// a caller looks only for lines about its own request.
func loggedLines(_ body: () -> Void) -> [String] {
    capturingLog.withLock {
        let lines = Guarded<[String]>([])
        let saved = Container.loggingFunction
        Container.loggingFunction = { line in lines.withLock { $0.append(line) } }
        defer { Container.loggingFunction = saved }
        body()
        return lines.withLock { $0 }
    }
}

/// A plain lock, not a `Guarded<Void>`: ThreadSanitizer once reported that
/// one's `inout` access to its `Void` value (which has no storage) under the
/// lock as racing with another thread's call of `withLock`.
private let capturingLog = Lock()

/// Polls Syringe's reclaimer until `isDone` holds, for at most ten seconds.
///
/// What a dropped container kept (its entries, and with them its `.container`
/// instances) is retired to the reclaimer, which frees it once no resolve
/// that may still read it is running: at once in a quiet process, a moment
/// later while tests on other threads resolve.
func untilReclaimed(_ isDone: () -> Bool) {
    for _ in 0..<10_000 where !isDone() {
        Syringe.Reclamation.poll()
        usleep(1_000)
    }
}
