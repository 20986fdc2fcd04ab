import Foundation
import Synchronization
import Testing
@testable import Syringe

// What is replaced, removed or released is freed once no resolve that could
// still be using it is running: at once with nothing in flight, later
// otherwise, never never.
//
// "At once" can only be observed where nothing else runs: other tests resolve
// on other threads of this process at the same moment. Those tests run in a
// process of their own (exit tests); a failed expectation there exits with a
// failure status.

/// A class whose only job is to be watched through a weak reference.
final class Released: Sendable {}

/// Exits the (exit test's) process with a failure if `condition` is false.
private func require(_ condition: Bool, _ message: String) {
    if !condition {
        FileHandle.standardError.write(Data("requirement failed: \(message)\n".utf8))
        exit(1)
    }
}

// Serialized: most of these start a child process (an exit test), and under
// the sanitizers a dozen at once would starve the rest of the run.
@Suite("Reclamation", .serialized)
struct ReclamationTests {
    // MARK: - Freed at once, with nothing in flight (separate processes)

    @Test("strvcom's check: a released shared instance is gone when releaseSharedInstances returns")
    func releasedAtOnce() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            c.register { _ in Released() }
            weak var weakReleased: Released?
            do {
                weakReleased = c.resolve(type: Released.self)
            }
            require(weakReleased != nil, "the container holds its shared instance")
            c.releaseSharedInstances()
            require(weakReleased == nil, "the released instance is still alive")
        }
    }

    @Test("a removed registration's shared instance is gone when remove returns")
    func removedAtOnce() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            c.register(name: "s") { _ in Released() }
            weak var weakReleased: Released?
            do {
                weakReleased = c.resolve(type: Released.self, name: "s")
            }
            c.remove(type: Released.self, name: "s")
            require(weakReleased == nil, "the removed registration's instance is still alive")
        }
    }

    @Test("a removed registration's shared instance goes even if its Registration is kept")
    func removedWithRegistrationKept() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            let registration = c.register(name: "s") { _ in Released() }
            weak var weakInstance: Released?
            do {
                weakInstance = c.resolve(type: Released.self, name: "s")
            }
            c.remove(type: Released.self, name: "s")
            require(weakInstance == nil, "the kept Registration kept the instance alive")
            _ = registration
        }
    }

    @Test("a given instance goes when remove, a re-registration or removeAll retires it, even if its Registration is kept")
    func givenInstanceWithRegistrationKept() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            for retire in [
                { c.remove(type: Released.self) },
                { c.register(type: Released.self, instance: Released()) },
                { c.removeAll() },
            ] {
                weak var weakGiven: Released?
                let registration: Registration<Released>
                do {
                    let given = Released()
                    weakGiven = given
                    registration = c.register(type: Released.self, instance: given)
                }
                require(weakGiven != nil, "the container holds the given instance")
                retire()
                require(weakGiven == nil, "the kept Registration kept the given instance alive")
                _ = registration
            }
        }
    }

    @Test("a replaced registration's shared instance and its factory's captures are gone when register returns")
    func replacedAtOnce() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            weak var weakCapture: Released?
            weak var weakReleased: Released?
            do {
                let capture = Released()
                weakCapture = capture
                c.register { _ in _ = capture; return Released() }
                weakReleased = c.resolve(type: Released.self)
            }
            require(weakCapture != nil, "the factory keeps its capture while registered")
            c.register { _ in Released() }
            require(weakReleased == nil, "the replaced registration's instance is still alive")
            require(weakCapture == nil, "the replaced factory's capture is still alive")
        }
    }

    @Test("removeAll frees every registration, instance and capture when it returns")
    func removeAllAtOnce() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            weak var weakCapture: Released?
            weak var weakShared: Released?
            weak var weakAliased: Released?
            do {
                let capture = Released()
                weakCapture = capture
                c.register(name: "a") { _ in _ = capture; return Released() }
                c.register(name: "b") { _ in Released() }.implements(AnyObject.self)
                weakShared = c.resolve(type: Released.self, name: "a")
                weakAliased = c.resolve(type: AnyObject.self) as? Released
            }
            c.removeAll()
            require(weakShared == nil, "a shared instance is still alive")
            require(weakAliased == nil, "an aliased shared instance is still alive")
            require(weakCapture == nil, "a factory's capture is still alive")
        }
    }

    @Test("a removed registration's callbacks, their captures and its instance are freed when remove returns, after its alias was replaced on its own")
    func hooksAndAliasesAtOnce() async {
        await #expect(processExitsWith: .success) {
            let c = Container()
            weak var weakAliasInstance: Released?
            weak var weakCapture: Released?
            do {
                // Not kept: a `Registration` holds its definition.
                let capture = Released()
                weakCapture = capture
                c.register(name: "target") { _ in Released() }
                    .implements(AnyObject.self, name: "alias")
                    .onResolved { _, _ in _ = capture }
                    .onResolved { _, _ in }
                weakAliasInstance = c.resolve(type: AnyObject.self, name: "alias") as? Released
            }
            // The alias's key taken by a registration of its own: the alias goes.
            c.register(type: AnyObject.self, name: "alias") { _ in Released() }
            require(weakAliasInstance != nil, "the target's instance lives while the target does")
            c.remove(type: Released.self, name: "target")
            require(weakAliasInstance == nil, "the target's instance outlived it")
            require(weakCapture == nil, "a callback's capture outlived its registration")
        }
    }

    @Test("what no writer retires is freed with no writer after it: a failed async resolve's instance, validate()'s disposed one")
    func retiredOutsideWritersFreed() async {
        await #expect(processExitsWith: .success) {
            struct Refused: Error {}
            /// Waits for the reclaimer's thread (it frees within about 16 ms
            /// of being woken); no writer runs meanwhile.
            func freedSoon(_ isFreed: () -> Bool) -> Bool {
                for _ in 0..<2_000 where !isFreed() {
                    usleep(1_000)
                }
                return isFreed()
            }
            final class Watched: @unchecked Sendable {
                // Unchecked: written by one callback, read after it.
                weak var instance: Released?
                let disposed = Mutex(false)
            }
            let c = Container()
            let failed = Watched()
            c.register(type: Released.self) { (_: Resolver) async in Released() }
                .onResolved { _, instance in
                    failed.instance = instance
                    throw Refused()
                }
            _ = try? await c.resolveAsync(type: Released.self)
            require(freedSoon { failed.instance == nil }, "an async .shared instance whose onResolved threw is still alive")

            let v = Container()
            let validated = Watched()
            v.register(type: Released.self, in: .scoped) { _ in Released() }
                .onResolved { _, instance in validated.instance = instance }
                .onDispose { _ async in validated.disposed.withLock { $0 = true } }
            _ = try? v.validate()
            require(freedSoon { validated.disposed.withLock { $0 } && validated.instance == nil },
                    "validate()'s .scoped instance with an async disposer is still alive after its disposal")
        }
    }

    // MARK: - Deferred while a resolve is in flight

    @Test("an instance released while another thread's resolve is in flight waits for it, then goes with no further call")
    func deferredWhileInFlight() throws {
        let c = Container()
        c.register { _ in Released() }
        let inFactory = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        c.register(type: Int.self, in: .new) { _ in
            inFactory.signal()
            proceed.wait()
            return 1
        }
        weak var weakReleased: Released?
        do {
            weakReleased = try c.tryResolve(type: Released.self)
        }
        let finished = DispatchSemaphore(value: 0)
        let resolving = Thread {
            _ = c.resolve(type: Int.self)
            finished.signal()
        }
        resolving.start()
        defer { resolving.join() }
        inFactory.wait()
        c.releaseSharedInstances()
        // The resolve in flight may be returning the instance: kept.
        for _ in 0..<10 {
            _ = c.isRegistered(type: Released.self)
        }
        #expect(weakReleased != nil, "freed while a resolve that began before the release was in flight")
        proceed.signal()
        finished.wait()
        // No call but ordinary resolves: they poll the reclaimer.
        #expect(afterReclamation {
            _ = c.isRegistered(type: Released.self)
            return weakReleased == nil
        })
    }

    @Test("writers never wait for a factory running on another thread")
    func writersDoNotWaitForFactories() throws {
        let c = Container()
        let inFactory = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        c.register(type: Released.self) { _ in
            inFactory.signal()
            proceed.wait()
            return Released()
        }
        c.register(name: "other") { _ in Released() }
        _ = try c.tryResolve(type: Released.self, name: "other")
        let finished = DispatchSemaphore(value: 0)
        let resolving = Thread {
            _ = c.resolve(type: Released.self)
            finished.signal()
        }
        resolving.start()
        defer { resolving.join() }
        inFactory.wait()
        // Each of these returns while the factory is still blocked; were one
        // to wait for it, the semaphore below would time out.
        let wrote = DispatchSemaphore(value: 0)
        let writing = Thread {
            c.register(name: "other") { _ in Released() }
            c.remove(type: Released.self, name: "other")
            c.releaseSharedInstances()
            c.register(type: Released.self, name: "new") { _ in Released() }.onResolved { _, _ in }
            wrote.signal()
        }
        writing.start()
        #expect(wrote.wait(timeout: .now() + 30) == .success, "a writer waited for a factory")
        proceed.signal()
        finished.wait()
        writing.join()
    }

    @Test("a factory and an onResolved callback may register, remove and release: no deadlock, and what they drop goes after the resolve")
    func writersInsideAResolve() throws {
        let c = Container()
        weak var weakFirst: Released?
        c.register(name: "victim") { _ in Released() }
        do {
            weakFirst = try c.tryResolve(type: Released.self, name: "victim")
        }
        // Unowned: a factory that holds its own container strongly is a cycle.
        c.register(type: Int.self, in: .new) { [unowned c] r in
            c.releaseSharedInstances()
            c.register(name: "victim") { _ in Released() }
            c.remove(type: String.self)
            _ = try r.resolve(type: Released.self, name: "victim")
            return 1
        }
        .onResolved { [unowned c] _, _ in
            c.releaseSharedInstances()
            c.register(type: String.self) { _ in "again" }
        }
        #expect(try c.tryResolve(type: Int.self) == 1)
        #expect(afterReclamation { weakFirst == nil })
        #expect(try c.tryResolve(type: String.self) == "again")
    }

    @Test("what a factory replaces is freed after its resolve returns, with no further call")
    func replacedInsideFactoryFreedByReclaimerThread() throws {
        let c = Container()
        weak var weakOld: Released?
        c.register(name: "victim") { _ in Released() }
        do {
            weakOld = try c.tryResolve(type: Released.self, name: "victim")
        }
        c.register(type: Int.self, in: .new) { [unowned c] _ in
            c.register(name: "victim") { _ in Released() }   // inside a section: cannot free yet
            return 1
        }
        #expect(try c.tryResolve(type: Int.self) == 1)
        var waited = 0
        while weakOld != nil && waited < 30_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(weakOld == nil)
    }

    @Test("every released instance is deinitialised exactly once")
    func exactlyOnce() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }
        c.register(type: Tracked.self, name: "weak", in: .weak) { _ in Tracked(counter) }
        for round in 0..<500 {
            _ = try c.tryResolve(type: Tracked.self)
            let held = try c.tryResolve(type: Tracked.self, name: "weak")
            switch round % 3 {
            case 0: c.releaseSharedInstances()
            case 1: c.register(type: Tracked.self) { _ in Tracked(counter) }
            default: c.remove(type: Tracked.self); c.register(type: Tracked.self) { _ in Tracked(counter) }
            }
            _ = held
        }
        c.removeAll()
        #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) of \(counter.created) alive")
        #expect(counter.deinitialised == counter.created)
    }

    @Test("removing and re-adding registrations forever keeps the registry's bookkeeping small")
    func registryStaysCompact() {
        let c = Container()
        c.register(name: "stable") { _ in Released() }
        for _ in 0..<1_000 {
            c.register(name: "churn") { _ in Released() }
            c.remove(type: Released.self, name: "churn")
        }
        // Holes are compacted once they are the majority (and more than 32).
        #expect(c.registry.ordered.count <= 66, "\(c.registry.ordered.count) entries for 1 live registration")
        #expect(c.definitionsSnapshot.compactMap { $0 }.count == 1)
    }
}
