#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSyringeTable
import Dispatch
import Synchronization
import Testing
import Syringe

@Suite("Concurrency")
struct ConcurrencyTests {
    /// Every thread asks while the factory runs: the factory waits until
    /// all have counted themselves in, and a moment more, so that they are
    /// inside the resolve, waiting for this creation. Two instances (or a
    /// second factory run) mean one of them did not wait.
    @Test("eight threads that ask for a shared service while its factory runs all get the one instance it makes")
    func sharedCreatedOnce() {
        let threads = 8
        let c = Container()
        let counter = Counter()
        let asked = Atomic(0)
        c.register(type: Tracked.self) { _ in
            var waited = 0
            while asked.load(ordering: .relaxed) < threads && waited < 5_000 {
                usleep(1_000)
                waited += 1
            }
            usleep(20_000)
            return Tracked(counter)
        }
        let seen = Locked<Set<ObjectIdentifier>>([])
        let started = (0..<threads).map { _ in
            Thread {
                asked.add(1, ordering: .relaxed)
                let instance = c.resolve(type: Tracked.self)
                seen.withLock { _ = $0.insert(ObjectIdentifier(instance)) }
            }
        }
        started.forEach { $0.start() }
        started.forEach { $0.join() }
        #expect(asked.load(ordering: .relaxed) == threads)
        #expect(seen.withLock { $0.count } == 1)
        #expect(counter.created == 1)
    }

    @Test("threads released together into a slow shared factory still create once")
    func sharedUnderContention() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { _ in
            usleep(2_000)  // keep the window wide open
            return Tracked(counter)
        }
        let seen = Locked<Set<ObjectIdentifier>>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let instance = c.resolve(type: Tracked.self)
            seen.withLock { _ = $0.insert(ObjectIdentifier(instance)) }
        }
        #expect(seen.withLock { $0.count } == 1)
        #expect(counter.created == 1)
    }

    @Test("registering while other threads resolve")
    func registerWhileResolving() {
        let c = Container()
        c.register(type: Int.self, name: "stable", dependency: 42)
        let stop = Atomic(false)
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            if worker == 0 {
                for index in 0..<3_000 {
                    c.register(type: Int.self, name: "n\(index)", dependency: index)
                    if index % 3 == 0 {
                        c.remove(type: Int.self, name: "n\(index)")
                    }
                }
                stop.store(true, ordering: .releasing)
            } else {
                while !stop.load(ordering: .acquiring) {
                    if c.resolve(type: Int.self, name: "stable") != 42 {
                        wrong.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        for index in 0..<3_000 where index % 3 != 0 {
            #expect(c.resolveIfRegistered(type: Int.self, name: "n\(index)") == index)
        }
    }

    @Test("a slow shared factory does not block resolves of other keys")
    func slowFactoryBlocksNothingElse() async {
        let c = Container()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        c.register(type: String.self, name: "slow") { _ in
            entered.signal()
            release.wait()
            return "slow"
        }
        c.register(type: String.self, name: "fast", in: .new) { _ in "fast" }
        c.register(type: Int.self) { _ in 1 }
        let slow = Thread { _ = c.resolve(type: String.self, name: "slow") }
        slow.start()
        entered.wait()
        // Would hang here if a container-wide lock were held around the factory.
        #expect(c.resolve(type: String.self, name: "fast") == "fast")
        #expect(c.resolve(type: Int.self) == 1)
        c.register(type: Double.self) { _ in 2 }
        #expect(c.resolve(type: Double.self) == 2)
        release.signal()
        slow.join()
    }

    @Test("a thread waiting for a shared instance keeps waiting when another one is created meanwhile")
    func waiterIgnoresOtherCreations() {
        let c = Container()
        let counter = Counter()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        c.register(type: Tracked.self, name: "slow") { _ in
            entered.signal()
            release.wait()
            release.signal()  // a latch: a second run (the bug) must not hang
            return Tracked(counter)
        }
        c.register(type: Int.self) { _ in 7 }
        let seen = Locked<Set<ObjectIdentifier>>([])
        let resolveSlow = {
            let instance = c.resolve(type: Tracked.self, name: "slow")
            seen.withLock { _ = $0.insert(ObjectIdentifier(instance)) }
        }
        let creator = Thread(resolveSlow)
        creator.start()
        entered.wait()
        let waiter = Thread(resolveSlow)
        waiter.start()
        usleep(20_000)  // let the waiter start waiting for the creator's claim
        // Creating another instance releases another claim: this waiter must
        // not take its own claim early (and build a second instance).
        #expect(c.resolve(type: Int.self) == 7)
        usleep(20_000)
        release.signal()
        creator.join()
        waiter.join()
        #expect(counter.created == 1)
        #expect(seen.withLock { $0.count } == 1)
    }

    @Test("a shared cycle across two threads is reported, not a deadlock")
    func crossThreadCycle() {
        final class A: @unchecked Sendable {}
        final class B: @unchecked Sendable {}
        let c = Container()
        // Latches: once opened they stay open, so a factory that runs again
        // after the other side gave up does not wait forever.
        let aStarted = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        c.register(type: A.self) { r in
            aStarted.signal()
            bStarted.wait()
            bStarted.signal()
            _ = try r.resolve(type: B.self)
            return A()
        }
        c.register(type: B.self) { r in
            bStarted.signal()
            aStarted.wait()
            aStarted.signal()
            _ = try r.resolve(type: A.self)
            return B()
        }
        let outcomes = Locked<[String]>([])
        let threads = [A.self as Any.Type, B.self].map { wanted in
            Thread {
                let result: String
                do {
                    if wanted == A.self { _ = try c.tryResolve(type: A.self) } else { _ = try c.tryResolve(type: B.self) }
                    result = "resolved"
                } catch let error as ResolutionError {
                    result = ExpectedReason.cycle.matches(error.reason) ? "cycle" : "other: \(error)"
                } catch {
                    result = "untyped: \(error)"
                }
                outcomes.withLock { $0.append(result) }
            }
        }
        threads.forEach { $0.start() }
        threads.forEach { $0.join() }
        let results = outcomes.withLock { $0 }
        #expect(results == ["cycle", "cycle"], "\(results)")
    }

    @Test("a resolve made by a thread-exit destructor, after the thread's own context is released, works")
    func resolveWhileThreadExits() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        var key = pthread_key_t()
        // Destructors run in rounds while any slot is still set. Ours sets
        // itself again in the first round and resolves in the second, so it
        // runs after the thread's resolution context was released, whatever
        // the order of the keys: the resolve must make a new context, not use
        // the freed one (the ASan run of the suite reports a use after free).
        pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            let probe = Unmanaged<ExitProbe>.fromOpaque(raw)
            #else
            let probe = Unmanaged<ExitProbe>.fromOpaque(raw!)
            #endif
            let round = probe.takeUnretainedValue().rounds.add(1, ordering: .relaxed).newValue
            guard round > 1 else {
                pthread_setspecific(probe.takeUnretainedValue().key, probe.toOpaque())
                return
            }
            let owned = probe.takeRetainedValue()
            let pair = owned.container.resolve(type: Pair<Tracked>.self)
            owned.sameGraphInstance.withLock { $0 = pair.first === pair.second }
        }
        let probe = ExitProbe(container: c, key: key)
        let thread = Thread {
            _ = c.resolve(type: Pair<Tracked>.self)  // this thread's context exists first
            pthread_setspecific(key, Unmanaged.passRetained(probe).toOpaque())
        }
        thread.start()
        thread.join()
        pthread_key_delete(key)
        #expect(probe.sameGraphInstance.withLock { $0 } == true)
        #expect(counter.created == 2, "one .graph instance per top-level resolve")
        #expect(afterReclamation { counter.alive == 0 })
    }

    @Test("a resolve that finds the thread-local slot empty keeps using the thread's context")
    func emptiedSlotKeepsContext() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, in: .graph) { _ in Tracked(counter) }
        // As when a platform tears thread-locals down before a thread-exit
        // destructor resolves: the second dependency must still join the
        // graph of the resolve in progress.
        c.register(type: Pair<Tracked>.self, in: .new) { r in
            let first: Tracked = try r.resolve()
            syr_thread_set(SYR_THREAD_SLOT_ENGINE, nil)
            return Pair(first: first, second: try r.resolve())
        }
        let same = Locked<Bool?>(nil)
        let thread = Thread {
            let pair = c.resolve(type: Pair<Tracked>.self)
            same.withLock { $0 = pair.first === pair.second }
        }
        thread.start()
        thread.join()
        #expect(same.withLock { $0 } == true)
        #expect(counter.created == 1)
    }
}

/// What a thread-exit destructor needs and what it saw.
final class ExitProbe: Sendable {
    let container: Container
    let key: pthread_key_t
    let rounds = Atomic(0)
    let sameGraphInstance = Locked<Bool?>(nil)
    init(container: Container, key: pthread_key_t) {
        self.container = container
        self.key = key
    }
}

/// A joinable thread for tests that need one blocked in a factory.
final class Thread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { (raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? in
            let thread = Unmanaged<Thread>.fromOpaque(raw!).takeRetainedValue()
            thread.body()
            return nil
        }, box)
    }

    func join() {
        pthread_join(handle, nil)
    }
}
