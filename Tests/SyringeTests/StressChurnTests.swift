import CSyringeTable
import Foundation
import Testing
import Syringe

/// A long-running service's container: registrations overwritten, removed,
/// re-added and released a million times while two threads resolve
/// throughout. Memory must stay bounded (what is replaced is freed, not
/// kept), every instance must be deinitialised exactly once, and every
/// resolve must return the instance of the key it asked for.
///
/// Not one of the `Stress` suites: it runs for about a minute and a half in a
/// debug build, longer than their time limit.
@Suite("Churn")
struct ChurnTests {
    /// Writer cycles. Each is five writer operations (overwrite, remove,
    /// re-add, release, and a callback or alias added) and a resolve.
    /// `SYRINGE_CHURN_CYCLES` overrides it, for a quicker local run; CI
    /// runs all 10⁶ plain and 2 × 10⁵ under each sanitizer (see `.ci/run`).
    static let cycles = Int(ProcessInfo.processInfo.environment["SYRINGE_CHURN_CYCLES"] ?? "") ?? 1_000_000
    /// Heap is sampled after this many cycles (everything has been
    /// allocated once) and then must stay under the sample plus `ceiling`.
    static let warmUp = min(20_000, cycles / 5)
    /// Room for what is legitimately in flight at a sample: instances
    /// and definitions a reader holds, the reclaimer's pending list,
    /// allocator slack. A leak of one registration (a few hundred bytes)
    /// per cycle would exceed it within 15 000 cycles.
    static let ceiling = 4 << 20

    /// Runs in a process of its own: the heap it bounds is the process's, and
    /// other tests running at the same time would move it.
    @Test("10⁶ register/overwrite/remove/release cycles with two readers: bounded heap, exactly-once deinit",
          .timeLimit(.minutes(15)))
    func churn() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            ChurnTests.run()
        }
        let report = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(report.contains("churn: \(ChurnTests.cycles) cycles"), "\(report)")
    }

    /// The churn itself; exits the process with a failure on the first
    /// broken expectation, saying which.
    static func run() {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition {
                FileHandle.standardError.write(Data("churn failed: \(message())\n".utf8))
                exit(1)
            }
        }
        let counter = Counter()
        let failures = StressFailures()
        let done = StressFlag()
        let c = Container()
        c.register(type: StressInstance.self, name: "stable") { _ in
            StressInstance(key: "stable", version: 0, counter: counter)
        }
        var baseline = 0
        var peak = 0
        var completed = 0
        runThreads(3) { index in
            if index > 0 {
                read(c, failures: failures, done: done)
                return
            }
            defer { done.set() }
            for cycle in 0..<cycles {
                write(c, cycle: cycle, counter: counter)
                if cycle == warmUp {
                    baseline = syr_testing_heap_in_use()
                } else if cycle > warmUp && cycle % 1_000 == 0 {
                    peak = max(peak, syr_testing_heap_in_use())
                    if peak > baseline + ceiling {
                        failures.record("heap grew from \(baseline) to \(peak) bytes by cycle \(cycle)")
                        return
                    }
                }
                completed = cycle + 1
            }
        }
        require(failures.count == 0, failures.summary)
        require(completed == cycles, "\(completed) of \(cycles) cycles")
        c.removeAll()
        require(afterReclamation { counter.alive == 0 }, "\(counter.alive) of \(counter.created) instances alive")
        require(counter.deinitialised == counter.created, "\(counter.deinitialised) deinitialised of \(counter.created)")
        FileHandle.standardError.write(Data("churn: \(cycles) cycles, heap \(baseline) → peak \(peak) bytes\n".utf8))
    }

    /// One writer cycle; `cycle` picks the variation.
    static func write(_ c: Container, cycle: Int, counter: Counter) {
        // A capture per registration, so that a factory kept after its
        // registration was replaced shows up as heap growth.
        let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: cycle), count: 64)
        c.register(type: StressInstance.self, name: "churn") { _ in
            _ = payload
            return StressInstance(key: "churn", version: cycle, counter: counter)
        }
        _ = try? c.tryResolve(type: StressInstance.self, name: "churn")
        c.remove(type: StressInstance.self, name: "gone")
        let again = c.register(type: StressInstance.self, name: "gone", in: cycle % 2 == 0 ? .shared : .weak) { _ in
            StressInstance(key: "gone", version: cycle, counter: counter)
        }
        if cycle % 2 == 0 {
            again.onResolved { _, _ in _ = payload }
        } else {
            again.implements(StressNamed.self, name: "gone")
        }
        c.releaseSharedInstances()
    }

    /// Resolves every key until `done`, checking each instance's identity.
    static func read(_ c: Container, failures: StressFailures, done: StressFlag) {
        while !done.isSet {
            for key in ["stable", "churn", "gone"] {
                do {
                    let instance = try c.tryResolve(type: StressInstance.self, name: key)
                    if instance.magic != StressInstance.expectedMagic || instance.key != key {
                        failures.record("asked for \(key), got \(instance.key)")
                    }
                } catch {
                    // "churn" and "gone" are briefly absent or replaced:
                    // only "stable" must always resolve.
                    if key == "stable" {
                        failures.record("stable failed: \(error)")
                    }
                }
            }
            if let named = c.resolveIfRegistered(type: StressNamed.self, name: "gone"), named.key != "gone" {
                failures.record("alias returned \(named.key)")
            }
        }
    }
}
