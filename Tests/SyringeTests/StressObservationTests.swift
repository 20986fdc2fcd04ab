import Testing
import Syringe

private final class OLeaf: Sendable {}
private final class OMiddle: Sendable {
    let leaf: OLeaf
    init(leaf: OLeaf) { self.leaf = leaf }
}
private final class ORoot: Sendable {
    let middle: OMiddle
    let leaf: OLeaf
    init(middle: OMiddle, leaf: OLeaf) {
        self.middle = middle
        self.leaf = leaf
    }
}

extension StressTests {
    /// Tracing switches every resolve in the process between the fast path
    /// and the observed one (`syr_observed()`), and an observation's handler
    /// and edges are shared by every thread that reports to it: readers must
    /// see correct instances whichever path they take, and every event must
    /// describe a real resolve, while another thread turns tracing on and
    /// off, validates, and draws the graph.
    @Test("resolves while tracing is turned on and off, validation runs and the graph is drawn")
    func resolvesWhileObserved() {
        let container = Container()
        container.register(type: OLeaf.self, in: .graph) { _ in OLeaf() }
        container.register(type: OMiddle.self, in: .new) { r in OMiddle(leaf: try r.resolve()) }
        container.autoregister(in: .new, initializer: ORoot.init(middle:leaf:))
        container.register(type: OLeaf.self, name: "shared") { _ in OLeaf() }
        let failures = StressFailures()
        let events = StressCount()
        let stop = StressFlag()
        let deadline = StressDeadline(seconds: 1.5)
        runThreads(4) { index in
            if index == 0 {
                var toggles = 0
                while toggles < 100_000 && !deadline.passed {
                    container.trace { event in
                        if event.outcome != .failed && ["OLeaf", "OMiddle", "ORoot", "OLeaf named \"shared\""].contains(event.request) {
                            events.increment()
                        } else {
                            failures.record("unexpected event \(event)")
                        }
                    }
                    if toggles % 50 == 0 {
                        do {
                            try container.validate()
                        } catch {
                            failures.record("validate: \(error)")
                        }
                        if container.dependencyGraph().nodes.count != 4 {
                            failures.record("graph nodes: \(container.dependencyGraph().nodes.map(\.label))")
                        }
                    }
                    container.stopTracing()
                    toggles += 1
                }
                stop.set()
                return
            }
            while !stop.isSet {
                do {
                    let root = try container.tryResolve(type: ORoot.self)
                    if root.middle.leaf !== root.leaf {
                        failures.record("a .graph instance not shared within one resolve")
                    }
                    let shared = try container.tryResolve(type: OLeaf.self, name: "shared")
                    if shared !== (try container.tryResolve(type: OLeaf.self, name: "shared")) {
                        failures.record("two .shared instances")
                    }
                } catch {
                    failures.record("resolve: \(error)")
                }
            }
        }
        #expect(failures.count == 0, "\(failures.summary)")
        #expect(events.load > 0)
        let graph = container.dependencyGraph()
        let edges = Set(graph.edges.map { "\(graph.nodes[$0.from].label) → \(graph.nodes[$0.to].label)" })
        #expect(edges == ["OMiddle → OLeaf", "ORoot → OMiddle", "ORoot → OLeaf"])
    }
}
