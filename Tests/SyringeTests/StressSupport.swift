#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Syringe

// Helpers for StressTests, HostileInputTests and LeakTests.
//
// Stress tests are bounded in count AND in time: every loop stops after a
// fixed number of iterations or at a deadline, whichever comes first, so the
// same sizes work in a debug build and under TSan/ASan (where everything is
// several times slower). They assert correctness, never speed.

/// A point in time after which a bounded loop stops.
struct StressDeadline: Sendable {
    private let end: ContinuousClock.Instant

    init(seconds: Double) {
        end = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1_000)))
    }

    var passed: Bool { ContinuousClock.now >= end }
}

/// A small deterministic generator, one per thread.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// A flag shared by threads.
final class StressFlag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A shared integer.
final class StressCount: Sendable {
    private let value: Atomic<Int>
    init(_ initial: Int = 0) { value = Atomic(initial) }
    var load: Int { value.load(ordering: .acquiring) }
    func store(_ new: Int) { value.store(new, ordering: .releasing) }
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .acquiringAndReleasing).newValue }
    func add(_ amount: Int) { value.add(amount, ordering: .acquiringAndReleasing) }
}

/// Problems seen by worker threads, asserted on the test's own thread
/// afterwards (calling `#expect` millions of times from workers would be slow).
final class StressFailures: Sendable {
    private let state = Locked<(count: Int, first: [String])>((0, []))

    func record(_ message: @autoclosure () -> String) {
        let text = message()
        state.withLock {
            $0.count += 1
            if $0.first.count < 20 { $0.first.append(text) }
        }
    }

    var count: Int { state.withLock { $0.count } }
    var summary: String { state.withLock { "\($0.count) failures; first: \($0.first.joined(separator: " | "))" } }
}

/// Runs `count` real threads (not tasks), released together by a start
/// barrier, and waits for all of them. `body` gets the thread's index.
func runThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
    let arrived = StressCount()
    let threads = (0..<count).map { index in
        Thread {
            arrived.increment()
            while arrived.load < count {
                sched_yield()
            }
            body(index)
        }
    }
    threads.forEach { $0.start() }
    threads.forEach { $0.join() }
}

/// What every stress registration returns: the key it was registered under,
/// which registration (version) made it, and in which container (owner), so
/// that a resolve can check it got the instance of the key it asked for.
/// Holds a `Tracked` so that `Counter.alive` sees it live and die.
/// An alias type (`implements`) of `StressInstance`.
protocol StressNamed: AnyObject, Sendable {
    var key: String { get }
}

final class StressInstance: StressNamed {
    static let expectedMagic: UInt64 = 0x5354_5245_5353_0001
    let magic = StressInstance.expectedMagic
    let key: String
    let version: Int
    let owner: Int
    let tracked: Tracked

    init(key: String, version: Int, owner: Int = 0, counter: Counter) {
        self.key = key
        self.version = version
        self.owner = owner
        tracked = Tracked(counter)
    }
}

/// A second class registered under the same names as `StressInstance`: a
/// resolve of one type must never yield the other's registration.
final class StressOther: Sendable {
    static let expectedMagic: UInt64 = 0x4F54_4845_5200_0002
    let magic = StressOther.expectedMagic
    let key: String
    let version: Int
    let tracked: Tracked

    init(key: String, version: Int, counter: Counter) {
        self.key = key
        self.version = version
        tracked = Tracked(counter)
    }
}

/// Counts factory runs per registration (key and version), and how many of
/// them ran at the same time, for `.shared` and `.weak` factories which must
/// never run twice at once.
final class CreationLedger: Sendable {
    struct Entry: Sendable {
        var created = 0
        var inFlight = 0
        var maxInFlight = 0
        /// How many `releaseSharedInstances` calls preceded the registration.
        var releasesBefore = 0
    }

    private let entries = Locked<[String: Entry]>([:])

    static func id(_ key: String, _ version: Int) -> String { "\(key)#\(version)" }

    func enter(_ id: String) {
        entries.withLock {
            $0[id, default: Entry()].created += 1
            $0[id, default: Entry()].inFlight += 1
            $0[id]!.maxInFlight = Swift.max($0[id]!.maxInFlight, $0[id]!.inFlight)
        }
    }

    func installed(_ id: String, releasesBefore: Int) {
        entries.withLock { $0[id, default: Entry()].releasesBefore = releasesBefore }
    }

    func leave(_ id: String) {
        entries.withLock { $0[id]!.inFlight -= 1 }
    }

    func created(_ id: String) -> Int { entries.withLock { $0[id]?.created ?? 0 } }
    var snapshot: [String: Entry] { entries.withLock { $0 } }
}
