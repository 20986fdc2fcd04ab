import Foundation
import Synchronization
import Testing
import Syringe

// Model-based random testing, part 2: Syringe itself driven through the same
// operations as the model (`ModelBasedSupport.swift`), each result compared
// with what the model expects: which instances are new and which were seen
// before (by the registration that made them, and what their factories
// resolved), or the error's reason.
//
// SYRINGE_MODEL_SEEDS=20000 runs more seeds (default 300, about 1 s in a debug build), SYRINGE_MODEL_SEED=n
// one seed, SYRINGE_MODEL_LENGTH the operations per seed (default 60), SYRINGE_MODEL_MAX_FAILURES the
// failing seeds reported before it stops (default 3), SYRINGE_MODEL_VERBOSE=1 what it covered.
//
// Registrations carry `onResolved` callbacks (some throwing once or always), `onDispose` closures (sync
// or async, some throwing) and `Disposable`/`AsyncDisposable` conformances; every callback and disposer
// run goes to a log (`MBLog`: instance and tag), which each operation compares with the model: a
// resolve's callbacks in order, a `close()`'s (or `withScope`'s) disposers newest instance first and
// its `DisposalError`, and the disposals on tasks of their own (taken-back and refused instances) in
// any order, waited for at the end of each sequence.

// MARK: - The instances

class MBThing: @unchecked Sendable {
    let serial: Int
    let reg: Int
    /// The operation that created it.
    let step: Int
    let deps: [MBThing]
    let log: MBLog
    /// Whether its own `dispose()` (for the conforming subclasses) throws.
    let failsDisposal: Bool

    required init(serial: Int, reg: Int, step: Int, deps: [MBThing], log: MBLog, failsDisposal: Bool) {
        self.serial = serial
        self.reg = reg
        self.step = step
        self.deps = deps
        self.log = log
        self.failsDisposal = failsDisposal
    }

    /// Logs `tag` run on this instance; throws if `fails`.
    func record(_ tag: String, fails: Bool) throws(MBDisposeError) {
        let entry = MBLogEntry(serial: serial, reg: reg, step: step, tag: tag)
        log.record(entry)
        if fails { throw MBDisposeError(entry: entry) }
    }

    /// What the conforming subclasses' `dispose()` does.
    func disposeSelf() throws(MBDisposeError) {
        try record("conf", fails: failsDisposal)
    }
}

protocol MBP: AnyObject {}
protocol MBQ: AnyObject {}
class MB0: MBThing, MBP, MBQ, @unchecked Sendable {}
class MB1: MBThing, MBP, MBQ, @unchecked Sendable {}
class MB2: MBThing, MBP, @unchecked Sendable {}
class MB3: MBThing, MBP, @unchecked Sendable {}
// Instances that dispose themselves, registered as their base class.
final class MB0S: MB0, Disposable, @unchecked Sendable { func dispose() throws { try disposeSelf() } }
final class MB1S: MB1, Disposable, @unchecked Sendable { func dispose() throws { try disposeSelf() } }
final class MB2S: MB2, Disposable, @unchecked Sendable { func dispose() throws { try disposeSelf() } }
final class MB3S: MB3, Disposable, @unchecked Sendable { func dispose() throws { try disposeSelf() } }
final class MB0A: MB0, AsyncDisposable, @unchecked Sendable { func dispose() async throws { await Task.yield(); try disposeSelf() } }
final class MB1A: MB1, AsyncDisposable, @unchecked Sendable { func dispose() async throws { await Task.yield(); try disposeSelf() } }
final class MB2A: MB2, AsyncDisposable, @unchecked Sendable { func dispose() async throws { await Task.yield(); try disposeSelf() } }
final class MB3A: MB3, AsyncDisposable, @unchecked Sendable { func dispose() async throws { await Task.yield(); try disposeSelf() } }

/// A callback or disposer run on an instance.
struct MBLogEntry: CustomStringConvertible, Sendable {
    var serial: Int
    var reg: Int
    var step: Int
    var tag: String
    var description: String { "s\(serial)(r\(reg)@\(step)).\(tag)" }
}

/// Every callback and disposer run, in order.
final class MBLog: Sendable {
    private let entries = Locked<[MBLogEntry]>([])
    func record(_ entry: MBLogEntry) { entries.withLock { $0.append(entry) } }
    var count: Int { entries.withLock { $0.count } }
    func entries(from start: Int) -> [MBLogEntry] { entries.withLock { Array($0[start...]) } }
}

/// What a throwing disposer throws: which one it is.
struct MBDisposeError: Error {
    var entry: MBLogEntry
}

/// What a `withScope` body throws.
struct MBBodyFailure: Error {}

/// Counts a callback's calls.
final class MBCalls: Sendable {
    let count = Atomic(0)
}

/// Serials and the current operation, shared with the factories.
final class MBRun: Sendable {
    let log = MBLog()
    private let serials = Atomic(0)
    private let currentStep = Atomic(0)

    var step: Int {
        get { currentStep.load(ordering: .relaxed) }
    }

    func setStep(_ step: Int) {
        currentStep.store(step, ordering: .relaxed)
    }

    func nextSerial() -> Int {
        serials.add(1, ordering: .relaxed).newValue
    }
}

// MARK: - Calling Syringe with a type chosen at run time

enum MBCall {
    static func name(_ name: Int) -> String? { name == 1 ? "x" : nil }

    static func thing<T>(_ value: T) -> MBThing {
        value as! MBThing
    }

    static func dependency(_ r: Resolver, _ dep: MBDep, argument: Int?) throws(ResolutionError) -> MBThing {
        let value = dep.arg.map { $0 == -1 ? (argument ?? 7) : $0 }
        switch dep.type {
        case 0: return try one(r, MB0.self, name(dep.name), value)
        case 1: return try one(r, MB1.self, name(dep.name), value)
        case 2: return try one(r, MB2.self, name(dep.name), value)
        case 3: return try one(r, MB3.self, name(dep.name), value)
        case 4: return try one(r, (any MBP).self, name(dep.name), value)
        default: return try one(r, (any MBQ).self, name(dep.name), value)
        }
    }

    static func one<T>(_ r: Resolver, _: T.Type, _ name: String?, _ argument: Int?) throws(ResolutionError) -> MBThing {
        if let argument {
            return thing(try r.resolve(type: T.self, name: name, arguments: argument))
        }
        return thing(try r.resolve(type: T.self, name: name))
    }

    static func dependencyAsync(_ r: Resolver, _ dep: MBDep, argument: Int?) async throws(ResolutionError) -> MBThing {
        let value = dep.arg.map { $0 == -1 ? (argument ?? 7) : $0 }
        switch dep.type {
        case 0: return try await oneAsync(r, MB0.self, name(dep.name), value)
        case 1: return try await oneAsync(r, MB1.self, name(dep.name), value)
        case 2: return try await oneAsync(r, MB2.self, name(dep.name), value)
        case 3: return try await oneAsync(r, MB3.self, name(dep.name), value)
        case 4: return try await oneAsync(r, (any MBP).self, name(dep.name), value)
        default: return try await oneAsync(r, (any MBQ).self, name(dep.name), value)
        }
    }

    static func oneAsync<T>(_ r: Resolver, _: T.Type, _ name: String?, _ argument: Int?) async throws(ResolutionError) -> MBThing {
        if let argument {
            return thing(try await r.resolve(type: T.self, name: name, arguments: argument))
        }
        return thing(try await r.resolve(type: T.self, name: name))
    }

    /// Registers `spec` as registration `id`; returns the given instance's serial, if any.
    static func register(_ spec: MBRegSpec, id: Int, in container: Container, run: MBRun) -> Int? {
        switch spec.key.type {
        case 0: register(MB0.self, MB0S.self, MB0A.self, spec, id: id, in: container, run: run)
        case 1: register(MB1.self, MB1S.self, MB1A.self, spec, id: id, in: container, run: run)
        case 2: register(MB2.self, MB2S.self, MB2A.self, spec, id: id, in: container, run: run)
        default: register(MB3.self, MB3S.self, MB3A.self, spec, id: id, in: container, run: run)
        }
    }

    static func register<T: MBThing>(_: T.Type, _ disposable: T.Type, _ asyncDisposable: T.Type, _ spec: MBRegSpec, id: Int,
                                     in container: Container, run: MBRun) -> Int? {
        let name = name(spec.key.name)
        let instanceType: T.Type = spec.conformance.map { $0.isAsync ? asyncDisposable : disposable } ?? T.self
        let failsDisposal = spec.conformance?.fails ?? false
        let deps = spec.deps
        let fails = spec.fails
        let scope: Scope = switch spec.kind {
        case .new, .given: .new
        case .shared: .shared
        case .graph: .graph
        case .weak: .weak
        case .scoped: .scoped
        }
        let make: @Sendable (Resolver, Int?) throws -> T = { r, argument in
            var made: [MBThing] = []
            for dep in deps {
                made.append(try dependency(r, dep, argument: argument))
            }
            if fails { throw MBFailure() }
            return instanceType.init(serial: run.nextSerial(), reg: id, step: run.step, deps: made, log: run.log, failsDisposal: failsDisposal)
        }
        let makeAsync: @Sendable (Resolver, Int?) async throws -> T = { r, argument in
            var made: [MBThing] = []
            for dep in deps {
                made.append(try await dependencyAsync(r, dep, argument: argument))
            }
            if fails { throw MBFailure() }
            return instanceType.init(serial: run.nextSerial(), reg: id, step: run.step, deps: made, log: run.log, failsDisposal: failsDisposal)
        }
        var serial: Int?
        let registration: Registration<T>
        switch (spec.kind, spec.key.arg, spec.isAsync) {
        case (.given, _, _):
            let instance = instanceType.init(serial: run.nextSerial(), reg: id, step: run.step, deps: [], log: run.log, failsDisposal: failsDisposal)
            serial = instance.serial
            registration = container.register(type: T.self, name: name, instance: instance)
        case (_, true, false):
            registration = container.register(type: T.self, name: name) { (r: Resolver, n: Int) in try make(r, n) }
        case (_, true, true):
            registration = container.register(type: T.self, name: name) { (r: Resolver, n: Int) async throws in try await makeAsync(r, n) }
        case (_, false, false):
            registration = container.register(type: T.self, name: name, in: scope) { r in try make(r, nil) }
        case (_, false, true):
            registration = container.register(type: T.self, name: name, in: scope) { (r: Resolver) async throws in try await makeAsync(r, nil) }
        }
        for (index, mode) in spec.callbacks.enumerated() {
            let calls = MBCalls()
            registration.onResolved { _, thing in
                let count = calls.count.add(1, ordering: .relaxed).newValue
                try thing.record("cb\(index)", fails: mode == .always || (mode == .once && count == 1))
            }
        }
        for (index, disposer) in spec.disposers.enumerated() {
            let fails = disposer.fails
            if disposer.isAsync {
                registration.onDispose { (thing: T) async throws in
                    await Task.yield()
                    try thing.record("d\(index)", fails: fails)
                }
            } else {
                registration.onDispose { (thing: T) throws in try thing.record("d\(index)", fails: fails) }
            }
        }
        if let alias = spec.alias {
            if alias.type == 4 {
                registration.implements((any MBP).self, name: self.name(alias.name))
            } else {
                registration.implements((any MBQ).self, name: self.name(alias.name))
            }
        }
        return serial
    }

    static func resolve(_ container: Container, _ key: MBKey, argument: Int?, async: Bool) async throws(ResolutionError) -> MBThing {
        switch key.type {
        case 0: try await resolve(container, MB0.self, name(key.name), argument, async)
        case 1: try await resolve(container, MB1.self, name(key.name), argument, async)
        case 2: try await resolve(container, MB2.self, name(key.name), argument, async)
        case 3: try await resolve(container, MB3.self, name(key.name), argument, async)
        case 4: try await resolve(container, (any MBP).self, name(key.name), argument, async)
        default: try await resolve(container, (any MBQ).self, name(key.name), argument, async)
        }
    }

    static func resolve<T>(_ container: Container, _: T.Type, _ name: String?, _ argument: Int?, _ async: Bool) async throws(ResolutionError) -> MBThing {
        switch (argument, async) {
        case let (argument?, false): thing(try container.tryResolve(type: T.self, name: name, arguments: argument))
        case (nil, false): thing(try container.tryResolve(type: T.self, name: name))
        case let (argument?, true): thing(try await container.resolveAsync(type: T.self, name: name, arguments: argument))
        case (nil, true): thing(try await container.resolveAsync(type: T.self, name: name))
        }
    }

    static func resolveAll(_ container: Container, type: Int, async: Bool) async throws(ResolutionError) -> [MBThing] {
        switch type {
        case 0: try await resolveAll(container, MB0.self, async)
        case 1: try await resolveAll(container, MB1.self, async)
        case 2: try await resolveAll(container, MB2.self, async)
        case 3: try await resolveAll(container, MB3.self, async)
        case 4: try await resolveAll(container, (any MBP).self, async)
        default: try await resolveAll(container, (any MBQ).self, async)
        }
    }

    static func resolveAll<T>(_ container: Container, _: T.Type, _ async: Bool) async throws(ResolutionError) -> [MBThing] {
        async ? try await container.resolveAllAsync(type: T.self).map(thing) : try container.tryResolveAll(type: T.self).map(thing)
    }

    static func isRegistered(_ container: Container, _ key: MBKey) -> Bool {
        switch key.type {
        case 0: isRegistered(container, MB0.self, key)
        case 1: isRegistered(container, MB1.self, key)
        case 2: isRegistered(container, MB2.self, key)
        case 3: isRegistered(container, MB3.self, key)
        case 4: isRegistered(container, (any MBP).self, key)
        default: isRegistered(container, (any MBQ).self, key)
        }
    }

    static func isRegistered<T>(_ container: Container, _: T.Type, _ key: MBKey) -> Bool {
        key.arg ? container.isRegistered(type: T.self, name: name(key.name), argumentTypes: Int.self)
            : container.isRegistered(type: T.self, name: name(key.name))
    }

    static func resolveIfRegisteredAsync(_ container: Container, _ key: MBKey) async throws(ResolutionError) -> MBThing? {
        switch key.type {
        case 0: try await container.resolveIfRegisteredAsync(type: MB0.self, name: name(key.name))
        case 1: try await container.resolveIfRegisteredAsync(type: MB1.self, name: name(key.name))
        case 2: try await container.resolveIfRegisteredAsync(type: MB2.self, name: name(key.name))
        case 3: try await container.resolveIfRegisteredAsync(type: MB3.self, name: name(key.name))
        case 4: try await container.resolveIfRegisteredAsync(type: (any MBP).self, name: name(key.name)).map(thing)
        default: try await container.resolveIfRegisteredAsync(type: (any MBQ).self, name: name(key.name)).map(thing)
        }
    }
}

// MARK: - The driver

enum MBActual: CustomStringConvertible {
    case none
    case value(MBThing)
    case list([MBThing])
    case optional(MBThing?)
    case bool(Bool)
    case error(MBReason, String)
    /// `close()` or `withScope`: the failures of its `DisposalError` (none:
    /// no `DisposalError`), whether the body's error came out (nil for a
    /// close), and what else was wrong.
    case disposal([MBLogEntry], bodyFailed: Bool?, problem: String?)

    static func describe(_ thing: MBThing) -> String {
        "s\(thing.serial)(r\(thing.reg)@\(thing.step))" + (thing.deps.isEmpty ? "" : "[\(thing.deps.map(describe).joined(separator: ", "))]")
    }

    var description: String {
        switch self {
        case .none: "nothing"
        case let .value(thing): Self.describe(thing)
        case let .list(things): "[\(things.map(Self.describe).joined(separator: ", "))]"
        case let .optional(thing): thing.map(Self.describe) ?? "nil"
        case let .bool(value): "\(value)"
        case let .error(reason, text): "error .\(reason.rawValue): \(text)"
        case let .disposal(failures, bodyFailed, problem):
            (failures.isEmpty ? "no DisposalError" : "DisposalError[\(failures.map(\.description).joined(separator: ", "))]")
                + (bodyFailed.map { $0 ? ", the body's error" : ", the body's value" } ?? "") + (problem.map { " (\($0))" } ?? "")
        }
    }
}

struct MBMismatch: Error, CustomStringConvertible {
    /// Index of the failing operation.
    var index: Int
    var ops: [MBOp]
    var detail: String

    var description: String {
        var lines = ["operations (the last one failed):"]
        for (i, op) in ops.prefix(index + 1).enumerated() {
            lines.append("  \(i + 1). \(op)")
        }
        lines.append(detail)
        return lines.joined(separator: "\n")
    }
}

struct MBStatistics {
    var operations = 0
    /// Callbacks and disposers run, those disposed on tasks of their own,
    /// and `DisposalError`s thrown by `close()` or `withScope`.
    var logged = 0
    var background = 0
    var disposalErrors = 0
    var withScopes = 0
    var branchLimited = 0
    var errors: [MBReason: Int] = [:]
}

final class MBDriver {
    var model = MBState()
    var containers: [Container] = [Container()]
    var held: [MBThing] = []
    let run = MBRun()
    var statistics = MBStatistics()
    /// More combinations of choices than this in one operation: the rest of the sequence is not checked.
    static let branchLimit = 64

    /// The driver's step counter: each operation, and each of a `withScope` body's.
    var stepCount = 0
    /// The log entries seen so far.
    var logSeen = 0

    /// Runs `ops` (or, with `generate`, as many generated from `random`),
    /// checking each against the model. Returns the operations run.
    func execute(_ given: [MBOp], generate: Int = 0, random: inout SplitMix64) async throws(MBMismatch) -> [MBOp] {
        var ops: [MBOp] = []
        let count = generate > 0 ? generate : given.count
        for index in 0 ..< count {
            let op = generate > 0 ? model.generate(&random) : given[index]
            ops.append(op)
            if try await !step(op, index: index, ops: ops) {
                return ops
            }
        }
        try await settle(index: count - 1, ops: ops)
        return ops
    }

    /// Waits (a few seconds at most) for the disposals the model expects on
    /// tasks of their own, checking what arrives.
    func settle(index: Int, ops: [MBOp]) async throws(MBMismatch) {
        model.opLog = []
        for _ in 0 ..< 3_000 where !model.background.isEmpty {
            if run.log.count == logSeen {
                try? await Task.sleep(for: .milliseconds(1))
                continue
            }
            let entries = run.log.entries(from: logSeen)
            logSeen += entries.count
            if let problem = Self.checkLog(entries, state: &model) {
                throw MBMismatch(index: index, ops: ops, detail: "after the last operation: \(problem)")
            }
        }
        if !model.background.isEmpty {
            throw MBMismatch(index: index, ops: ops,
                             detail: "never disposed on a task of its own: \(model.background.map(\.description).joined(separator: ", "))")
        }
    }

    /// Runs one operation and checks it; false when the model has too many
    /// branches to go on.
    func step(_ op: MBOp, index: Int, ops: [MBOp]) async throws(MBMismatch) -> Bool {
        statistics.operations += 1
        stepCount += 1
        let stepNumber = stepCount
        run.setStep(stepNumber)
        model.step = stepNumber
        model.opLog = []
        if case let .register(c, spec) = op, spec.kind == .given {
            let id = model.nextReg
            let serial = MBCall.register(spec, id: id, in: containers[c], run: run)!
            model.registerGiven(spec, in: c, serial: serial)
            return true
        }
        if case let .withScope(parent, body, bodyThrows) = op {
            return try await withScope(parent: parent, body: body, bodyThrows: bodyThrows, index: index, ops: ops, stepNumber: stepNumber)
        }
        // Every combination of the model's choices.
        guard let branches = branches(of: op) else { return false }
        let actual = await perform(op, id: model.nextReg)
        try check(actual, against: branches, stepNumber: stepNumber, index: index, ops: ops)
        if case .drop = op {
            held = []
        }
        return true
    }

    /// The model's predictions for `op`, one per combination of choices;
    /// nil past the branch limit.
    func branches(of op: MBOp) -> [(MBExpected, MBState)]? {
        var branches: [(MBExpected, MBState)] = []
        var pending: [[Int]] = [[]]
        while let prefix = pending.popLast() {
            var state = model
            let oracle = MBOracle(prefix: prefix)
            let expected = state.apply(op, oracle: oracle)
            branches.append((expected, state))
            for position in prefix.count ..< oracle.taken.count {
                for alternative in 1 ..< oracle.arities[position] {
                    pending.append(Array(oracle.taken[..<position]) + [alternative])
                }
            }
            if branches.count > Self.branchLimit {
                statistics.branchLimited += 1
                return nil
            }
        }
        return branches
    }

    /// Compares `actual`, and what the log gained, with each branch; the
    /// first that agrees becomes the model.
    func check(_ actual: MBActual, against branches: [(MBExpected, MBState)], stepNumber: Int, index: Int, ops: [MBOp]) throws(MBMismatch) {
        if case let .error(reason, _) = actual {
            statistics.errors[reason, default: 0] += 1
        }
        if case let .disposal(failures, _, _) = actual, !failures.isEmpty {
            statistics.disposalErrors += 1
        }
        let entries = run.log.entries(from: logSeen)
        logSeen += entries.count
        statistics.logged += entries.count
        let backgroundBefore = model.background.count
        var reasons: [String] = []
        for (expected, state) in branches {
            var candidate = state
            if let problem = Self.compare(actual, expected, state: &candidate, step: stepNumber) {
                reasons.append("  expected \(expected)\n    (\(problem))")
            } else if let problem = Self.checkLog(entries, state: &candidate) {
                reasons.append("  expected \(expected), logging [\(state.opLog.map(\.description).joined(separator: ", "))]\n    (\(problem))")
            } else {
                statistics.background += max(0, candidate.background.count - backgroundBefore)
                model = candidate
                return
            }
        }
        throw MBMismatch(index: index, ops: ops,
                         detail: "got \(actual), logged [\(entries.map(\.description).joined(separator: ", "))]\n" + reasons.joined(separator: "\n"))
    }

    /// `withScope`: the model makes a scope, runs the body's operations in
    /// it (each checked as any other), and closes it.
    func withScope(parent: Int, body: [MBOp], bodyThrows: Bool, index: Int, ops: [MBOp], stepNumber: Int) async throws(MBMismatch) -> Bool {
        statistics.withScopes += 1
        _ = model.apply(.makeScope(parent: parent), oracle: MBOracle(prefix: []))
        let scope = model.containers.count - 1
        var inner: MBMismatch?
        var cutShort = false
        var actual: MBActual
        do {
            try await containers[parent].withScope { made in
                self.containers.append(made)
                for sub in body {
                    do throws(MBMismatch) {
                        if try await !self.step(sub.inScope(scope), index: index, ops: ops) {
                            cutShort = true
                            return
                        }
                    } catch {
                        inner = error
                        throw error
                    }
                }
                if bodyThrows { throw MBBodyFailure() }
            }
            actual = .disposal([], bodyFailed: false, problem: nil)
        } catch let error as DisposalError {
            actual = Self.disposal(error, bodyFailed: error.bodyError.map { $0 is MBBodyFailure } ?? false)
        } catch is MBBodyFailure {
            actual = .disposal([], bodyFailed: true, problem: nil)
        } catch {
            if let inner { throw inner }
            actual = .disposal([], bodyFailed: nil, problem: "withScope threw \(error)")
        }
        if let inner { throw inner }
        if cutShort { return false }
        stepCount += 1
        run.setStep(stepCount)
        model.step = stepCount
        model.opLog = []
        guard let branches = branches(of: .close(container: scope)) else { return false }
        let expected = branches.map { expected, state -> (MBExpected, MBState) in
            guard case let .disposal(failures, _) = expected else { return (expected, state) }
            return (.disposal(failures, bodyFailed: bodyThrows), state)
        }
        try check(actual, against: expected, stepNumber: stepCount, index: index, ops: ops)
        return true
    }

    /// A `DisposalError` as the driver compares it.
    static func disposal(_ error: DisposalError, bodyFailed: Bool?) -> MBActual {
        var problem: String?
        var entries: [MBLogEntry] = []
        for failure in error.failures {
            guard let thrown = failure.error as? MBDisposeError else {
                problem = "a failure is \(failure.error)"
                continue
            }
            entries.append(thrown.entry)
        }
        return .disposal(entries, bodyFailed: bodyFailed, problem: problem)
    }

    /// Whether the log's new entries are what `state` expects: the
    /// operation's own (`opLog`) in order, and disposals on tasks of their
    /// own (`background`) in any order, each at most once.
    static func checkLog(_ entries: [MBLogEntry], state: inout MBState) -> String? {
        var next = 0
        for entry in entries {
            if next < state.opLog.count, matches(entry, state.opLog[next], state: &state) {
                next += 1
                continue
            }
            if let found = state.background.firstIndex(where: { matches(entry, $0, state: &state) }) {
                state.background.remove(at: found)
                continue
            }
            return "\(entry) was not expected" + (next < state.opLog.count ? " (next: \(state.opLog[next]))" : "")
        }
        if next < state.opLog.count {
            return "missing from the log: \(state.opLog[next...].map(\.description).joined(separator: ", "))"
        }
        return nil
    }

    /// Whether `entry` is `expected`; learns the instance's serial if the
    /// model did not know it (an instance of a failed resolve).
    static func matches(_ entry: MBLogEntry, _ expected: MBLogExpect, state: inout MBState) -> Bool {
        guard entry.tag == expected.tag else { return false }
        if let serial = state.realOf[expected.instance] {
            return serial == entry.serial
        }
        let instance = state.instances[expected.instance]!
        guard state.modelOf[entry.serial] == nil, instance.reg == entry.reg, instance.step == entry.step else { return false }
        state.modelOf[entry.serial] = expected.instance
        state.realOf[expected.instance] = entry.serial
        return true
    }

    func perform(_ op: MBOp, id: Int) async -> MBActual {
        do throws(ResolutionError) {
            switch op {
            case let .register(c, spec):
                _ = MBCall.register(spec, id: id, in: containers[c], run: run)
            case let .remove(c, type, name):
                let container = containers[c]
                switch type {
                case 0: container.remove(type: MB0.self, name: MBCall.name(name))
                case 1: container.remove(type: MB1.self, name: MBCall.name(name))
                case 2: container.remove(type: MB2.self, name: MBCall.name(name))
                case 3: container.remove(type: MB3.self, name: MBCall.name(name))
                case 4: container.remove(type: (any MBP).self, name: MBCall.name(name))
                default: container.remove(type: (any MBQ).self, name: MBCall.name(name))
                }
            case let .removeAll(c):
                containers[c].removeAll()
            case let .release(c):
                containers[c].releaseSharedInstances()
            case let .makeChild(parent):
                containers.append(Container(parent: containers[parent]))
            case let .makeScope(parent):
                containers.append(containers[parent].makeScope())
            case let .close(c):
                do {
                    try await containers[c].close()
                    return .disposal([], bodyFailed: nil, problem: nil)
                } catch {
                    return Self.disposal(error, bodyFailed: nil)
                }
            case let .resolve(c, key, argument, async):
                let thing = try await MBCall.resolve(containers[c], key, argument: argument, async: async)
                held.append(thing)
                return .value(thing)
            case let .resolveAll(c, type, async):
                let things = try await MBCall.resolveAll(containers[c], type: type, async: async)
                held.append(contentsOf: things)
                return .list(things)
            case let .isRegistered(c, key):
                return .bool(MBCall.isRegistered(containers[c], key))
            case let .resolveIfRegisteredAsync(c, key):
                let thing = try await MBCall.resolveIfRegisteredAsync(containers[c], key)
                if let thing { held.append(thing) }
                return .optional(thing)
            case .drop:
                break
            case .withScope:
                preconditionFailure("see withScope(parent:body:bodyThrows:index:ops:stepNumber:)")
            }
            return .none
        } catch {
            return .error(MBReason(error.reason), error.description.split(separator: "\n").first.map(String.init) ?? "")
        }
    }

    /// nil if `actual` is what `expected` says; `state` learns the new instances.
    static func compare(_ actual: MBActual, _ expected: MBExpected, state: inout MBState, step: Int) -> String? {
        switch (actual, expected) {
        case (.none, .none):
            return nil
        case let (.value(thing), .value(node)), let (.optional(thing?), .optional(node?)):
            return match(thing, node, state: &state, step: step)
        case (.optional(nil), .optional(nil)):
            return nil
        case let (.bool(a), .bool(b)):
            return a == b ? nil : "another answer"
        case let (.list(things), .list(nodes, ordered)):
            guard things.count == nodes.count else { return "\(things.count) elements, not \(nodes.count)" }
            var pairs = Array(zip(things, nodes))
            if !ordered {
                // Each element paired with the model's element of the same
                // registration, compared in the order Syringe returned them.
                var remaining = nodes
                pairs = []
                for thing in things {
                    let index = remaining.firstIndex { regOf($0, state) == thing.reg } ?? 0
                    pairs.append((thing, remaining.remove(at: index)))
                }
            }
            for (thing, node) in pairs {
                if let problem = match(thing, node, state: &state, step: step) { return problem }
            }
            return nil
        case let (.error(reason, _), .error(reasons)):
            return reasons.contains(reason) ? nil : "another reason"
        case let (.disposal(failures, bodyFailed, problem), .disposal(expected, expectedBody)):
            if let problem { return problem }
            guard bodyFailed == expectedBody else { return "the body's outcome" }
            guard failures.count == expected.count else { return "\(failures.count) failures, not \(expected.count)" }
            for (failure, expect) in zip(failures, expected) where !matches(failure, expect, state: &state) {
                return "failure \(failure), expected \(expect)"
            }
            return nil
        default:
            return "another kind of result"
        }
    }

    static func regOf(_ node: MBNode, _ state: MBState) -> Int {
        switch node {
        case let .fresh(_, reg, _): reg
        case let .existing(id): state.instances[id]!.reg
        }
    }

    static func match(_ thing: MBThing, _ node: MBNode, state: inout MBState, step: Int) -> String? {
        switch node {
        case let .fresh(id, reg, deps):
            guard thing.step == step, state.modelOf[thing.serial] == nil else {
                return "s\(thing.serial) is an earlier instance, expected a new one (#\(id)) of r\(reg)"
            }
            guard thing.reg == reg else { return "s\(thing.serial) was made by r\(thing.reg), expected r\(reg)" }
            guard thing.deps.count == deps.count else { return "s\(thing.serial) has \(thing.deps.count) dependencies, expected \(deps.count)" }
            state.modelOf[thing.serial] = id
            state.realOf[id] = thing.serial
            for (dep, expected) in zip(thing.deps, deps) {
                if let problem = match(dep, expected, state: &state, step: step) { return problem }
            }
            return nil
        case let .existing(id):
            if let serial = state.realOf[id] {
                return thing.serial == serial ? nil : "s\(thing.serial), expected the earlier instance s\(serial) (#\(id))"
            }
            // An instance the model made in a failed resolve, never seen.
            guard state.modelOf[thing.serial] == nil, thing.step < step, thing.reg == state.instances[id]!.reg else {
                return "s\(thing.serial), expected the instance #\(id) of r\(state.instances[id]!.reg) made in a failed resolve"
            }
            state.modelOf[thing.serial] = id
            state.realOf[id] = thing.serial
            return nil
        }
    }
}

// MARK: - The test

@Suite("Model-based random sequences")
struct ModelBasedTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seedCount = Int(environment["SYRINGE_MODEL_SEEDS"] ?? "") ?? 300
    static let length = Int(environment["SYRINGE_MODEL_LENGTH"] ?? "") ?? 60

    /// Runs `seed`; on a mismatch, the shortest failing prefix.
    static func check(seed: UInt64) async -> (MBMismatch?, MBStatistics) {
        var random = SplitMix64.model(seed: seed)
        let driver = MBDriver()
        do {
            _ = try await driver.execute([], generate: length, random: &random)
            return (nil, driver.statistics)
        } catch {
            return (await shrink(error), driver.statistics)
        }
    }

    static func fails(_ ops: [MBOp]) async -> MBMismatch? {
        var random = SplitMix64.model(seed: 0)
        do {
            _ = try await MBDriver().execute(ops, random: &random)
            return nil
        } catch {
            return error
        }
    }

    /// The shortest failing prefix, then without each operation that the
    /// failure does not need.
    static func shrink(_ mismatch: MBMismatch) async -> MBMismatch {
        var best = mismatch
        var ops = Array(mismatch.ops.prefix(mismatch.index + 1))
        for length in 1 ..< ops.count {
            if let shorter = await fails(Array(ops.prefix(length))) {
                best = shorter
                ops = Array(ops.prefix(shorter.index + 1))
                break
            }
        }
        var index = ops.count - 2
        while index >= 0 {
            var fewer = ops
            fewer.remove(at: index)
            if Self.valid(fewer), let smaller = await fails(fewer) {
                best = smaller
                ops = Array(fewer.prefix(smaller.index + 1))
                index = min(index, ops.count - 1)
            }
            index -= 1
        }
        return best
    }

    /// Whether every container each operation names exists by then.
    static func valid(_ ops: [MBOp]) -> Bool {
        var made = 1
        for op in ops {
            let named: Int? = switch op {
            case let .register(c, _), let .remove(c, _, _), let .removeAll(c), let .release(c), let .close(c),
                 let .resolve(c, _, _, _), let .resolveAll(c, _, _), let .isRegistered(c, _),
                 let .resolveIfRegisteredAsync(c, _), let .makeChild(c), let .makeScope(c): c
            case .drop: nil
            case let .withScope(c, _, _): c
            }
            if (named ?? 0) >= made { return false }
            if case let .withScope(_, body, _) = op {
                for sub in body {
                    let subNamed: Int? = switch sub {
                    case let .register(c, _), let .resolve(c, _, _, _), let .resolveAll(c, _, _): c
                    default: nil
                    }
                    if (subNamed ?? 0) >= made { return false }
                }
            }
            switch op {
            case .makeChild, .makeScope, .withScope: made += 1
            default: break
            }
        }
        return true
    }

    @Test("Syringe agrees with a reference model over random operation sequences")
    func randomSequencesAgreeWithTheModel() async {
        let seeds: [UInt64] = if let one = Self.environment["SYRINGE_MODEL_SEED"].flatMap(UInt64.init) {
            [one]
        } else {
            (1 ... UInt64(max(Self.seedCount, 1))).map { $0 }
        }
        var total = MBStatistics()
        var failures = 0
        for seed in seeds {
            let (mismatch, statistics) = await Self.check(seed: seed)
            total.operations += statistics.operations
            total.branchLimited += statistics.branchLimited
            total.logged += statistics.logged
            total.background += statistics.background
            total.disposalErrors += statistics.disposalErrors
            total.withScopes += statistics.withScopes
            total.errors.merge(statistics.errors, uniquingKeysWith: +)
            if let mismatch {
                failures += 1
                Issue.record("seed \(seed) (SYRINGE_MODEL_SEED=\(seed)): Syringe and the model disagree\n\(mismatch)")
                if failures >= (Int(Self.environment["SYRINGE_MODEL_MAX_FAILURES"] ?? "") ?? 3) { break }
            }
        }
        if Self.environment["SYRINGE_MODEL_VERBOSE"] != nil {
            print("model-based: \(seeds.count) seeds, \(total.operations) operations, \(total.branchLimited) cut short, \(total.logged) callbacks and disposers logged, \(total.background) disposals expected on tasks of their own, \(total.disposalErrors) DisposalErrors, \(total.withScopes) withScope, errors \(total.errors.map { "\($0.key.rawValue): \($0.value)" }.sorted())")
        }
    }
}
