import GraphG1
import GraphG2
import GraphG3
import GraphWorkloads
import ManyTypeSupport
import ManyTypesA
import ManyTypesB
import Swinject
import SwinjectShapes
import Syringe
import SyringeOnDictionary
import SyringeSwinjectShapes

/// The 1 000 generated types of S7, R and M.
let manyTypes = manyTypesA + manyTypesB

// MARK: - The services

protocol Service: AnyObject {}

final class ServiceImpl: Service {
    init() {}
}

final class NumberedService: Service {
    let number: Int
    init(number: Int) { self.number = number }
}

// S5's chain: A needs B needs C needs D needs E.
final class E { init() {} }
final class D { let e: E; init(e: E) { self.e = e } }
final class C { let d: D; init(d: D) { self.d = d } }
final class B { let c: C; init(c: C) { self.c = c } }
final class A { let b: B; init(b: B) { self.b = b } }

// MARK: - Contenders

enum Contender: String, CaseIterable {
    case syringe
    /// No container: the graph rows' objects made by direct initialiser calls.
    case byHand
    case swiftLocked
    case swiftFrozen
    case swinject
    /// Swinject's API on Syringe's engine: W1–W6's source compiled against
    /// SyringeSwinject (the Swinject column's runs the same source against Swinject).
    case syringeSwinject

    var title: String {
        switch self {
        case .syringe: "Syringe"
        case .byHand: "By hand"
        case .swiftLocked: "Swift dict + lock"
        case .swiftFrozen: "Swift dict, frozen"
        case .swinject: "Swinject 2.10.0"
        case .syringeSwinject: "SyringeSwinject"
        }
    }
}

// MARK: - Scenarios

enum Unit: String {
    case nsPerOp = "ns/op"
    case mopsPerSecond = "Mops/s"
    case nsPerRegistration = "ns/registration"
    case bytesPerRegistration = "bytes/registration"

    /// Whether a smaller value is better.
    var lowerIsBetter: Bool { self != .mopsPerSecond }
}

struct Scenario {
    let id: String
    let title: String
    let unit: Unit
    /// Syringe's goal, in `unit`; nil when there is none.
    let target: Double?
    /// Syringe's goal as a multiple of the by-hand column, for graph rows.
    var byHandLimit: Double? = nil
    /// The row this row's goal is a ratio to (A2 / S5): its Syringe cell is
    /// measured again in this row's rounds, so that the ratio divides two
    /// medians of the same rounds rather than of two moments of the run.
    var pairedWith: String? = nil
}

let scenarios: [Scenario] = [
    Scenario(id: "S1", title: ".new resolve, class behind a protocol", unit: .nsPerOp, target: 40),
    Scenario(id: "S2", title: ".shared resolve (instance exists)", unit: .nsPerOp, target: 15),
    Scenario(id: "S3", title: "named .new resolve among 3 names", unit: .nsPerOp, target: 45),
    Scenario(id: "S4", title: "one Int runtime argument", unit: .nsPerOp, target: 50),
    Scenario(id: "S5", title: "5-level .new chain A→B→C→D→E", unit: .nsPerOp, target: 220, pairedWith: "S1"),
    Scenario(id: "S6", title: ".shared resolve on 2 threads at once, per thread", unit: .nsPerOp, target: nil),
    Scenario(id: "S6", title: ".shared resolve on 2 threads at once, total", unit: .mopsPerSecond, target: 30),
    Scenario(id: "S7", title: "1 000 .shared types, pseudo-random order", unit: .nsPerOp, target: 40),
    Scenario(id: "G1", title: "100-node .graph DAG (194 edges), resolve the root", unit: .nsPerOp, target: nil, byHandLimit: 2),
    Scenario(id: "G2", title: "1 000-node .graph DAG (2 058 edges), resolve the root", unit: .nsPerOp, target: nil, pairedWith: "G1"),
    Scenario(id: "G3", title: "100 nodes: 20 .shared, .graph and .new mixed (230 objects)", unit: .nsPerOp, target: nil),
    Scenario(id: "SC1", title: "a request: makeScope, register, resolve .scoped, close", unit: .nsPerOp, target: 200),
    Scenario(id: "SC2", title: ".scoped resolve (instance exists in the scope)", unit: .nsPerOp, target: nil, pairedWith: "S2"),
    Scenario(id: "A1", title: "async resolve, .shared async registration (instance exists)", unit: .nsPerOp, target: nil, pairedWith: "S2"),
    Scenario(id: "A2", title: "async resolve, 5-level .new chain of async factories", unit: .nsPerOp, target: nil, pairedWith: "S5"),
    Scenario(id: "A3", title: "async resolve, 100-level chain of async .graph factories", unit: .nsPerOp, target: nil),
    Scenario(id: "W1", title: "Swinject API: .transient resolve behind a protocol", unit: .nsPerOp, target: nil),
    Scenario(id: "W2", title: "Swinject API: .container resolve (instance exists)", unit: .nsPerOp, target: nil),
    Scenario(id: "W3", title: "Swinject API: named .transient resolve among 3 names", unit: .nsPerOp, target: nil),
    Scenario(id: "W4", title: "Swinject API: one Int runtime argument", unit: .nsPerOp, target: nil),
    Scenario(id: "W5", title: "Swinject API: 5-level .transient chain A→B→C→D→E", unit: .nsPerOp, target: nil),
    Scenario(id: "W6", title: "Swinject API: G1's 100-node .graph DAG, resolve the root", unit: .nsPerOp, target: nil),
    Scenario(id: "R", title: "register 10 000 services", unit: .nsPerRegistration, target: nil),
    Scenario(id: "M", title: "heap bytes per registration", unit: .bytesPerRegistration, target: nil),
]

/// Runs every scenario whose id or title contains `filter` and returns the
/// samples per scenario index and contender.
struct Runner {
    let method: Method
    var progress: (String) -> Void

    /// ops per repetition for a contender, given a loop that performs n ops.
    func ops(_ contender: Contender, _ body: (Int) -> Void) -> Int {
        contender == .swinject
            ? calibratedOps(seconds: method.swinjectSecondsPerRep, cap: method.opsPerRep, body)
            : method.opsPerRep
    }

    func time(_ contender: Contender, _ body: (Int) -> Void) -> Sample {
        measure(ops: ops(contender, body), repetitions: method.repetitions, body)
    }

    // MARK: S1 — .new resolve of a class behind a protocol

    func s1(_ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            container.register(type: Service.self, in: .new) { _ in ServiceImpl() }
            return time(contender) { loopS1(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            container.register(type: Service.self, in: .new) { _ in ServiceImpl() }
            if contender == .swiftFrozen { container.freeze() }
            return time(contender) { loopS1(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            container.register(Service.self) { _ in ServiceImpl() }.inObjectScope(.transient)
            return time(contender) { loopS1(container, $0) }
        }
    }

    // MARK: S2 — .shared resolve, instance already created

    func s2(_ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let container = sharedSyringe()
            return time(contender) { loopS2(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = sharedOnDictionary(frozen: contender == .swiftFrozen)
            return time(contender) { loopS2(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = sharedSwinject()
            return time(contender) { loopS2(container, $0) }
        }
    }

    func sharedSyringe() -> Syringe.Container {
        let container = Syringe.Container()
        container.register(type: Service.self, in: .shared) { _ in ServiceImpl() }
        _ = container.resolve(type: Service.self)
        return container
    }

    func sharedOnDictionary(frozen: Bool) -> SyringeOnDictionary.Container {
        let container = SyringeOnDictionary.Container()
        container.register(type: Service.self, in: .shared) { _ in ServiceImpl() }
        if frozen { container.freeze() }
        _ = container.resolve(type: Service.self)
        return container
    }

    func sharedSwinject() -> Swinject.Container {
        let container = Swinject.Container()
        container.register(Service.self) { _ in ServiceImpl() }.inObjectScope(.container)
        _ = container.resolve(Service.self)
        return container
    }

    // MARK: S3 — named .new resolve among 3 names

    func s3(_ contender: Contender) -> Sample? {
        let names = ["alpha", "beta", "gamma"]
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            for name in names {
                container.register(type: Service.self, name: name, in: .new) { _ in ServiceImpl() }
            }
            return time(contender) { loopS3(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            for name in names {
                container.register(type: Service.self, name: name, in: .new) { _ in ServiceImpl() }
            }
            if contender == .swiftFrozen { container.freeze() }
            return time(contender) { loopS3(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            for name in names {
                container.register(Service.self, name: name) { _ in ServiceImpl() }.inObjectScope(.transient)
            }
            return time(contender) { loopS3(container, $0) }
        }
    }

    // MARK: S4 — one Int runtime argument

    func s4(_ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            container.register(type: Service.self) { (_: Syringe.Resolver, number: Int) in NumberedService(number: number) }
            return time(contender) { loopS4(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            container.register(type: Service.self) { (_: SyringeOnDictionary.Resolver, number: Int) in NumberedService(number: number) }
            if contender == .swiftFrozen { container.freeze() }
            return time(contender) { loopS4(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            container.register(Service.self) { (_: Swinject.Resolver, number: Int) in NumberedService(number: number) }
                .inObjectScope(.transient)
            return time(contender) { loopS4(container, $0) }
        }
    }

    // MARK: S5 — five-level .new chain

    func s5(_ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            container.register(type: E.self, in: .new) { _ in E() }
            container.register(type: D.self, in: .new) { r in D(e: try r.resolve()) }
            container.register(type: C.self, in: .new) { r in C(d: try r.resolve()) }
            container.register(type: B.self, in: .new) { r in B(c: try r.resolve()) }
            container.register(type: A.self, in: .new) { r in A(b: try r.resolve()) }
            return time(contender) { loopS5(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            container.register(type: E.self, in: .new) { _ in E() }
            container.register(type: D.self, in: .new) { r in D(e: try r.resolve()) }
            container.register(type: C.self, in: .new) { r in C(d: try r.resolve()) }
            container.register(type: B.self, in: .new) { r in B(c: try r.resolve()) }
            container.register(type: A.self, in: .new) { r in A(b: try r.resolve()) }
            if contender == .swiftFrozen { container.freeze() }
            return time(contender) { loopS5(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            container.register(E.self) { _ in E() }.inObjectScope(.transient)
            container.register(D.self) { r in D(e: r.resolve(E.self)!) }.inObjectScope(.transient)
            container.register(C.self) { r in C(d: r.resolve(D.self)!) }.inObjectScope(.transient)
            container.register(B.self) { r in B(c: r.resolve(C.self)!) }.inObjectScope(.transient)
            container.register(A.self) { r in A(b: r.resolve(B.self)!) }.inObjectScope(.transient)
            return time(contender) { loopS5(container, $0) }
        }
    }

    // MARK: S6 — S2 from two threads at once

    func s6(_ contender: Contender) -> (perOp: Sample, throughput: Sample)? {
        switch contender {
        case .syringe:
            let container = sharedSyringe()
            let ops = method.opsPerRep
            return measureTwoThreads(ops: ops, repetitions: method.repetitions) { loopS2(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = sharedOnDictionary(frozen: contender == .swiftFrozen)
            let ops = method.opsPerRep
            return measureTwoThreads(ops: ops, repetitions: method.repetitions) { loopS2(container, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            // Swinject's documented way to resolve from several threads.
            let resolver = UncheckedSendable(sharedSwinject().synchronize())
            let ops = calibratedOps(seconds: method.swinjectSecondsPerRep, cap: method.opsPerRep) { loopS2(resolver.value, $0) }
            return measureTwoThreads(ops: ops, repetitions: method.repetitions) { loopS2(resolver.value, $0) }
        }
    }

    // MARK: S7 — 1 000 distinct .shared types in a fixed pseudo-random order

    func s7(_ contender: Contender) -> Sample? {
        let order = fixedPermutation(of: manyTypes.count)
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            for type in manyTypes { type.registerSyringe(container, nil) }
            let calls = order.map { manyTypes[$0].resolveSyringe }
            return time(contender) { loopS7(container, calls, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            for type in manyTypes { type.registerOnDictionary(container, nil) }
            if contender == .swiftFrozen { container.freeze() }
            let calls = order.map { manyTypes[$0].resolveOnDictionary }
            return time(contender) { loopS7(container, calls, $0) }
        case .byHand:
            return nil  // the S rows have no hand-written column
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            for type in manyTypes { type.registerSwinject(container, nil) }
            let calls = order.map { manyTypes[$0].resolveSwinject }
            return time(contender) { loopS7(container, calls, $0) }
        }
    }

    // MARK: G1–G3 — whole object graphs

    /// A graph resolve takes from microseconds (G1) to a millisecond (G2,
    /// Swinject), so every column's repetitions are sized by time, unless
    /// `--graph-ops` fixes the count (for callgrind).
    func timeGraph(_ body: (Int) -> Void) -> Sample {
        let ops = method.graphOpsPerRep ?? calibratedOps(seconds: method.graphSecondsPerRep, cap: method.opsPerRep, body)
        return measure(ops: ops, repetitions: method.repetitions, body)
    }

    func graph(_ workload: GraphWorkload, _ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            workload.registerSyringe(container)
            return timeGraph { loopG(container, workload.resolveSyringe, $0) }
        case .byHand:
            let build = workload.makeByHand()
            return timeGraph { loopG((), { _ in build() }, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = SyringeOnDictionary.Container()
            workload.registerOnDictionary(container)
            if contender == .swiftFrozen { container.freeze() }
            return timeGraph { loopG(container, workload.resolveOnDictionary, $0) }
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            // Every node needs its predecessor, so the graph is `nodes` levels
            // deep, and Swinject stops the program beyond 200 nested resolves.
            guard workload.nodes <= 200 else { return nil }
            let container = Swinject.Container()
            workload.registerSwinject(container)
            return timeGraph { loopG(container, workload.resolveSwinject, $0) }
        }
    }

    // MARK: W1–W6 — one source on Swinject's API, against Swinject and SyringeSwinject

    /// A W row: its Swinject-API workload (Sources/SwinjectShapes) compiled
    /// against Swinject and against SyringeSwinject, and the same shape with
    /// Syringe's own API, measured by the S or G row that has it.
    struct SwinjectShape {
        let swinject: () -> (Int) -> Void
        let syringeSwinject: () -> (Int) -> Void
        let native: (Runner) -> Sample?
        /// Sized by time like the graph rows (W6), else like the S rows.
        var isGraph = false
    }

    static var swinjectShapes: [String: SwinjectShape] { [
        "W1": SwinjectShape(swinject: SwinjectShapes.Shapes.transient,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.transient,
                            native: { $0.s1(.syringe) }),
        "W2": SwinjectShape(swinject: SwinjectShapes.Shapes.containerScoped,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.containerScoped,
                            native: { $0.s2(.syringe) }),
        "W3": SwinjectShape(swinject: SwinjectShapes.Shapes.named,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.named,
                            native: { $0.s3(.syringe) }),
        "W4": SwinjectShape(swinject: SwinjectShapes.Shapes.argument,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.argument,
                            native: { $0.s4(.syringe) }),
        "W5": SwinjectShape(swinject: SwinjectShapes.Shapes.chain,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.chain,
                            native: { $0.s5(.syringe) }),
        "W6": SwinjectShape(swinject: SwinjectShapes.Shapes.graph,
                            syringeSwinject: SyringeSwinjectShapes.Shapes.graph,
                            native: { $0.graph(.g1, .syringe) }, isGraph: true),
    ] }

    /// Syringe's column is its native API (`.new` for `.transient`, `.shared`
    /// for `.container`); the other contenders have no cell.
    func swinjectShape(_ id: String, _ contender: Contender) -> Sample? {
        guard let shape = Self.swinjectShapes[id] else { fatalError("unknown W row \(id)") }
        let run: (Int) -> Void
        switch contender {
        case .syringe: return shape.native(self)
        case .swinject: run = shape.swinject()
        case .syringeSwinject: run = shape.syringeSwinject()
        case .byHand, .swiftLocked, .swiftFrozen: return nil
        }
        return shape.isGraph ? timeGraph(run) : time(contender, run)
    }

    // MARK: R — registering 10 000 services; M — heap bytes per registration

    /// 10 000 distinct keys: each of the 1 000 generated types unnamed and
    /// under 9 short names.
    static let registrationNames: [String?] = [nil] + (1...9).map { "n\($0)" }
    static var registrationCount: Int { manyTypes.count * registrationNames.count }

    func fill(_ contender: Contender) -> AnyObject? {
        switch contender {
        case .syringe:
            let container = Syringe.Container()
            for name in Self.registrationNames {
                for type in manyTypes { type.registerSyringe(container, name) }
            }
            return container
        case .swiftLocked:
            let container = SyringeOnDictionary.Container()
            for name in Self.registrationNames {
                for type in manyTypes { type.registerOnDictionary(container, name) }
            }
            return container
        case .swiftFrozen:
            return nil  // registration is the same as .swiftLocked: freezing comes after it
        case .byHand:
            return nil  // no container to fill
        case .syringeSwinject:
            return nil  // only the W rows have a SyringeSwinject column
        case .swinject:
            let container = Swinject.Container()
            for name in Self.registrationNames {
                for type in manyTypes { type.registerSwinject(container, name) }
            }
            return container
        }
    }

    func r(_ contender: Contender) -> Sample? {
        guard fill(contender) != nil else { return nil }  // also the warm-up
        let count = Self.registrationCount
        var values: [Double] = []
        for _ in 0..<method.repetitions {
            let start = now()
            let container = fill(contender)
            let end = now()
            withExtendedLifetime(container) {}  // destroyed outside the timed region
            values.append(Double(end - start) / Double(count))
        }
        return Sample(values: values, opsPerRep: count)
    }

    func m(_ contender: Contender) -> Sample? {
        // The columns `fill` has no container for have no M cell.
        guard fill(contender) != nil else { return nil }
        return bytesPerRegistration(count: Self.registrationCount, repetitions: 5) { fill(contender)! }
    }
}

// MARK: - Floors: what the machine needs without any container

/// A stored reference, returned +1 by an opaque function as a container returns its instance.
final class Holder {
    let value: AnyObject
    init(_ value: AnyObject) { self.value = value }
}

@inline(never)
func fetch(_ holder: Holder) -> AnyObject { holder.value }

/// Allocating, sinking and freeing one instance: the least a `.new` resolve costs (S1).
@inline(never)
func loopFloorNew(_ n: Int) {
    for _ in 0..<n { blackHole(ServiceImpl()) }
}

/// Returning a stored reference from a call (one retain, one release): the least a `.shared` resolve costs (S2).
@inline(never)
func loopFloorShared(_ holder: Holder, _ n: Int) {
    for _ in 0..<n { blackHole(fetch(holder)) }
}

struct Floors {
    var new: Sample
    var shared: Sample
    /// `shared` on two threads at once: total Mops/s.
    var sharedTwoThreads: Sample
}

extension Runner {
    func floors() -> Floors {
        let holder = UncheckedSendable(Holder(ServiceImpl()))
        return Floors(
            new: measure(ops: method.opsPerRep, repetitions: method.repetitions) { loopFloorNew($0) },
            shared: measure(ops: method.opsPerRep, repetitions: method.repetitions) { loopFloorShared(holder.value, $0) },
            sharedTwoThreads: measureTwoThreads(ops: method.opsPerRep, repetitions: method.repetitions) {
                loopFloorShared(holder.value, $0)
            }.throughput
        )
    }
}

/// Hands a non-Sendable value to the S6 threads (Swinject's synchronized
/// resolver is thread-safe by contract, but not marked Sendable).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: - The timed loops
//
// One function per scenario and container, never inlined, so each loop is
// compiled on its own, exactly as a call site in an app would be. Every result
// goes through `blackHole`.

@inline(never)
func loopS1(_ container: Syringe.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self)) }
}

@inline(never)
func loopS1(_ container: SyringeOnDictionary.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self)) }
}

@inline(never)
func loopS1(_ container: Swinject.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(Service.self)!) }
}

@inline(never)
func loopS2(_ container: Syringe.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self)) }
}

@inline(never)
func loopS2(_ container: SyringeOnDictionary.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self)) }
}

@inline(never)
func loopS2(_ resolver: Swinject.Resolver, _ n: Int) {
    for _ in 0..<n { blackHole(resolver.resolve(Service.self)!) }
}

@inline(never)
func loopS3(_ container: Syringe.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self, name: "beta")) }
}

@inline(never)
func loopS3(_ container: SyringeOnDictionary.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: Service.self, name: "beta")) }
}

@inline(never)
func loopS3(_ container: Swinject.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(Service.self, name: "beta")!) }
}

@inline(never)
func loopS4(_ container: Syringe.Container, _ n: Int) {
    for i in 0..<n { blackHole(container.resolve(type: Service.self, arguments: i)) }
}

@inline(never)
func loopS4(_ container: SyringeOnDictionary.Container, _ n: Int) {
    for i in 0..<n { blackHole(container.resolve(type: Service.self, arguments: i)) }
}

@inline(never)
func loopS4(_ container: Swinject.Container, _ n: Int) {
    for i in 0..<n { blackHole(container.resolve(Service.self, argument: i)!) }
}

@inline(never)
func loopS5(_ container: Syringe.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: A.self)) }
}

@inline(never)
func loopS5(_ container: SyringeOnDictionary.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(type: A.self)) }
}

@inline(never)
func loopS5(_ container: Swinject.Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(A.self)!) }
}

@inline(never)
func loopG<Box>(_ container: Box, _ resolve: (Box) -> AnyObject, _ n: Int) {
    for _ in 0..<n { blackHole(resolve(container)) }
}

@inline(never)
func loopS7<Box>(_ container: Box, _ calls: [@Sendable (Box) -> AnyObject], _ n: Int) {
    var index = 0
    for _ in 0..<n {
        blackHole(calls[index](container))
        index += 1
        if index == calls.count { index = 0 }
    }
}
