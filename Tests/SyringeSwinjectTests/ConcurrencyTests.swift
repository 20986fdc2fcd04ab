import Foundation
import Dispatch
import Synchronization
import Testing
@testable import SyringeSwinject

/// Swinject needs `synchronize()` to be used from several threads (its
/// issues #361 #377 #389 #448 #539 #574); this container must not.
@Suite("SyringeSwinject from many threads")
struct ConcurrencyTests {
    @Test("a .container instance is made once however many threads ask for it at once")
    func containerInstanceOnce() {
        for _ in 0..<20 {
            let made = Counter()
            let container = Container()
            container.register(Animal.self) { _ in
                made.increment()
                // Long enough for the other threads to arrive meanwhile.
                for _ in 0..<20_000 { _ = made.count }
                return Cat()
            }.inObjectScope(.container)
            let seen = Guarded<Set<ObjectIdentifier>>([])
            onThreads(8) { _ in
                let cat = container.resolve(Animal.self)!
                seen.withLock { _ = $0.insert(ObjectIdentifier(cat)) }
            }
            #expect(made.count == 1)
            #expect(seen.withLock { $0.count } == 1)
        }
    }

    @Test("through synchronize(), a thread waits for the resolve in progress to run a .container instance's initCompleted, as in Swinject")
    func synchronizedResolveWaitsForInitCompleted() {
        let container = Container()
        container.register(Node.self, name: "leaf") { _ in Node() }
        container.register(Node.self) { _ in Node() }
            .inObjectScope(.container)
            .initCompleted { r, node in
                usleep(300_000)
                node.next = r.resolve(Node.self, name: "leaf")
            }
        nonisolated(unsafe) let resolver = container.synchronize()
        let complete = Guarded<[Bool]>([])
        onThreads(2) { worker in
            if worker == 1 {
                usleep(100_000)   // while the other thread's initCompleted runs
            }
            let node = resolver.resolve(Node.self)!
            complete.withLock { $0.append(node.next != nil) }
        }
        #expect(complete.withLock { $0 } == [true, true])
    }

    @Test("resolves, registrations, resetObjectScope and assembler loads race on one container without synchronize()")
    func mixedStress() {
        let container = Container()
        let onceMade = Counter()
        container.register(Owner.self) { _ in
            onceMade.increment()
            return Owner(pet: Cat(name: "once"))
        }.inObjectScope(.container)
        container.register(Animal.self) { _ in Cat() }
        container.register(Animal.self, name: "shared") { _ in Cat(name: "shared") }.inObjectScope(.container)
        container.register(Animal.self, name: "weak") { _ in Cat(name: "weak") }.inObjectScope(.weak)
        container.register(Node.self) { r in Node(next: r.resolve(Node.self, name: "leaf")) }
        container.register(Node.self, name: "leaf") { _ in Node() }
        let assembler = Assembler(container: container)
        let failures = Counter()
        let iterations = 400
        onThreads(6) { worker in
            for index in 0..<iterations {
                switch worker {
                case 0:
                    // Registrations of new keys and replacements of old ones.
                    container.register(Animal.self, name: "w\(index % 16)") { _ in Cat(name: "w\(index)") }
                case 1:
                    container.resetObjectScope(.container, serviceType: Animal.self)
                    container.resetObjectScope(ObjectScope.weak)
                case 2:
                    assembler.apply(assembly: NamedCats(prefix: "a\(index % 8)"))
                default:
                    let owner = container.resolve(Owner.self)
                    let cat = container.resolve(Animal.self)
                    let shared = container.resolve(Animal.self, name: "shared")
                    let weak = container.resolve(Animal.self, name: "weak")
                    let node = container.resolve(Node.self)
                    let dynamic = container.resolve(Animal.self, name: "w\(index % 16)")
                    let assembled = container.resolve(Animal.self, name: "a\(index % 8)")
                    if owner == nil || cat == nil || shared?.name != "shared" || weak?.name != "weak" || node?.next == nil {
                        failures.increment()
                    }
                    // Registered by a racing thread: nil until it is, then right.
                    if let dynamic, !dynamic.name.hasPrefix("w") { failures.increment() }
                    if let assembled, !assembled.name.hasPrefix("a") { failures.increment() }
                }
            }
        }
        #expect(failures.count == 0)
        #expect(onceMade.count == 1)
    }

    @Test("synchronize() runs factories one at a time")
    func synchronizeSerialises() {
        let container = Container()
        let running = Counter()
        let most = Guarded(0)
        container.register(Animal.self) { _ in
            let now = running.increment()
            most.withLock { $0 = max($0, now) }
            // Long enough for the other threads to arrive meanwhile.
            for _ in 0..<100_000 { _ = running.count }
            running.decrement()
            return Cat()
        }
        let synchronized = container.synchronize() as! Container
        onThreads(8) { _ in
            for _ in 0..<5 { _ = synchronized.resolve(Animal.self) }
        }
        #expect(most.withLock { $0 } == 1)
        #expect(synchronized !== container)
    }

    @Test("each thread builds its own graph: .graph instances are shared within a resolve, never across threads")
    func graphsPerThread() {
        let container = Container()
        container.register(Node.self, name: "shared") { _ in Node() }
        container.register(Owner.self) { r in
            let first = r.resolve(Node.self, name: "shared")!
            let second = r.resolve(Node.self, name: "shared")!
            return Owner(pet: Cat(name: first === second ? "same" : "different"))
        }
        let identifiers = Guarded<Set<GraphIdentifier>>([])
        container.register(Cat.self) { r in
            identifiers.withLock { _ = $0.insert((r as! Container).currentObjectGraph!) }
            return Cat()
        }
        let wrong = Counter()
        onThreads(8) { _ in
            for _ in 0..<100 {
                if container.resolve(Owner.self)?.pet.name != "same" { wrong.increment() }
                _ = container.resolve(Cat.self)
            }
        }
        #expect(wrong.count == 0)
        #expect(identifiers.withLock { $0.count } == 800)
    }
}

private struct NamedCats: Assembly {
    let prefix: String
    func assemble(container: Container) {
        container.register(Animal.self, name: prefix) { _ in Cat(name: prefix) }
    }
    func loaded(resolver: Resolver) {
        _ = resolver.resolve(Animal.self, name: prefix)
    }
}

extension Counter {
    func decrement() { _ = increment(by: -1) }
}
