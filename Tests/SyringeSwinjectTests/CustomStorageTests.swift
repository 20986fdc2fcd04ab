#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import SyringeSwinject

/// A custom scope's storage drops instances while the container uses it:
/// when a graph ends, when it stores a new one, when the scope is reset or
/// replaced. The dropped instance's `deinit` may resolve, even the same
/// registration; these check that it can (it used to wait forever for the
/// registration's lock, which the container held).
///
/// Each runs in a process of its own, stopped by `alarm` should it deadlock
/// (reported as SIGALRM; a wrong result is a failed precondition's trap),
/// so that a regression fails instead of hanging the suite with a thread
/// stuck in a resolve.
@Suite("SyringeSwinject custom scopes: an instance a storage drops")
struct CustomStorageTests {
    @Test("resetObjectScope: the dropped instance's deinit may resolve its own registration")
    func resetObjectScope() async {
        await #expect(processExitsWith: .success, "a deadlock ends in SIGALRM") {
            alarm(deadlockDeadline)
            let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
            let container = Container()
            let reentry = Reentry()
            reentry.register(in: container, scope: session)
            _ = container.resolve(Farewell.self)
            container.resetObjectScope(session)
            precondition(reentry.made == 2 && reentry.resolvedInDeinit != nil, "\(reentry.made)")
            precondition(container.resolve(Farewell.self) === reentry.resolvedInDeinit, "the scope keeps the one made in the deinit")
        }
    }

    @Test("a graph's end: the instance the storage lets go may resolve its own registration, after the graph is torn down")
    func graphCompleted() async {
        await #expect(processExitsWith: .success, "a deadlock ends in SIGALRM") {
            alarm(deadlockDeadline)
            let scope = ObjectScope(storageFactory: GraphStorage.init, description: "custom graph")
            let container = Container()
            let reentry = Reentry()
            reentry.register(in: container, scope: scope)
            // Resolves the Farewell and lets it go: only the storage keeps
            // it, until the graph ends.
            container.register(Node.self) { r in
                _ = r.resolve(Farewell.self)
                return Node()
            }
            weak var node: Node?
            do {
                let resolved = container.resolve(Node.self)
                node = resolved
            }
            precondition(reentry.made == 2 && reentry.resolvedInDeinit != nil, "\(reentry.made)")
            // A resolve in the middle of the graph's teardown took the
            // state over, and the node stayed in its slot.
            precondition(node == nil, "the graph's .graph instance is let go")
        }
    }

    @Test("a graph's end inside another: the instance the storage lets go may resolve its own registration, in the enclosing graph")
    func nestedGraphCompleted() async {
        await #expect(processExitsWith: .success, "a deadlock ends in SIGALRM") {
            alarm(deadlockDeadline)
            let scope = ObjectScope(storageFactory: GraphStorage.init, description: "custom graph")
            let container = Container()
            let reentry = Reentry()
            reentry.register(in: container, scope: scope)
            container.register(Node.self, name: "inner") { r in
                _ = r.resolve(Farewell.self)
                return Node()
            }
            // The inner graph ends inside this factory, whose graph the
            // deinit's resolve then joins.
            container.register(Node.self) { r in
                Node(next: (r as! Container).withObjectGraph(GraphIdentifier()) { $0.resolve(Node.self, name: "inner") })
            }
            weak var node: Node?
            do {
                let resolved = container.resolve(Node.self)
                node = resolved
            }
            precondition(reentry.made == 2 && reentry.resolvedInDeinit != nil, "\(reentry.made)")
            precondition(node == nil, "the graphs' .graph instances are let go")
        }
    }

    @Test("setInstance: the instance a storage replaces may resolve its own registration")
    func replacedOnStore() async {
        await #expect(processExitsWith: .success, "a deadlock ends in SIGALRM") {
            alarm(deadlockDeadline)
            let scope = ObjectScope(storageFactory: LatestGraphStorage.init, description: "latest graph")
            let container = Container()
            let reentry = Reentry()
            reentry.register(in: container, scope: scope)
            _ = container.resolve(Farewell.self)
            // Another graph: made again, and storing it replaces the first.
            let second = container.resolve(Farewell.self)
            precondition(reentry.made == 2, "\(reentry.made)")
            precondition(reentry.resolvedInDeinit === second, "the deinit, in the second's graph, finds the second")
        }
    }

    @Test("inObjectScope: the storage it replaces, and its instance, may resolve their registration")
    func scopeReplaced() async {
        await #expect(processExitsWith: .success, "a deadlock ends in SIGALRM") {
            alarm(deadlockDeadline)
            let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
            let container = Container()
            let reentry = Reentry()
            let entry = reentry.register(in: container, scope: session)
            _ = container.resolve(Farewell.self)
            entry.inObjectScope(.transient)
            precondition(reentry.made == 2 && reentry.resolvedInDeinit != nil, "\(reentry.made)")
        }
    }
}

/// How long a test's process may run before `alarm` stops it: far longer
/// than any of them takes, so only a deadlock reaches it.
private let deadlockDeadline: UInt32 = 30

/// An instance that runs `onDeinit` from its `deinit`: the way an object that
/// looks a service up on its way out (to log, to unregister itself) does.
final class Farewell {
    private let onDeinit: () -> Void

    init(onDeinit: @escaping () -> Void = {}) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// A `Farewell` registration whose first instance resolves the registration
/// again from its `deinit`, and what came of it.
final class Reentry {
    var made = 0
    var resolvedInDeinit: Farewell?

    @discardableResult
    func register(in container: Container, scope: ObjectScopeProtocol) -> ServiceEntry<Farewell> {
        container.register(Farewell.self) { [unowned container] _ in
            self.made += 1
            guard self.made == 1 else {
                return Farewell()
            }
            return Farewell { self.resolvedInDeinit = container.resolve(Farewell.self) }
        }.inObjectScope(scope)
    }
}

/// Keeps the instance of the last graph that stored one, for that graph
/// only: storing another releases it.
final class LatestGraphStorage: InstanceStorage {
    var instance: Any?
    private var graph: GraphIdentifier?

    func instance(inGraph graph: GraphIdentifier) -> Any? {
        graph == self.graph ? instance : nil
    }

    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        self.instance = instance
        self.graph = graph
    }
}
