import Foundation
import Synchronization
import Syringe

// Model-based random testing, part 1: the operations, a seeded generator, and
// the reference model. `ModelBasedTests.swift` runs them against Syringe.
//
// The model is deliberately plain: dictionaries keyed by container index and
// registration id, and a recursive resolve that follows the README's rules.
// Where the README (or a doc comment) leaves a behaviour open, the model
// either accepts every outcome the text allows (a set of error reasons), or
// makes a *choice point* (`MBOracle`): the driver runs the model once per
// combination of choices and accepts the real result if any run predicts it.

// MARK: - Random numbers

extension SplitMix64 {
    /// The stream of the model's `seed`. Mixed first: with the seed only
    /// offset, seed n + 1's stream was seed n's shifted by one draw, and
    /// neighbouring seeds ran nearly the same operations.
    static func model(seed: UInt64) -> SplitMix64 {
        let increment: UInt64 = 0x9E37_79B9_7F4A_7C15
        var mixer = SplitMix64(seed: seed &* increment &+ 0xD1B5_4A32_D192_ED03 &- increment)
        return SplitMix64(seed: mixer.next() &- increment)
    }

    /// True with probability `percent` %.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}

// MARK: - Keys, registrations, operations

/// Types 0–3 are the concrete classes `MB0`…`MB3`; 4 is the protocol `MBP`
/// (all four conform), 5 is `MBQ` (only `MB0` and `MB1` conform). 4 and 5
/// are only ever registered as aliases (`implements`).
let mbTypeNames = ["MB0", "MB1", "MB2", "MB3", "MBP", "MBQ"]

struct MBKey: Hashable, CustomStringConvertible {
    var type: Int
    /// 0: no name; 1: "x".
    var name: Int
    /// Takes one `Int` runtime argument.
    var arg: Bool

    var description: String {
        mbTypeNames[type] + (name == 1 ? "[x]" : "") + (arg ? "(Int)" : "")
    }
}

enum MBKind: String {
    case new, shared, graph, weak, scoped
    /// `register(type:name:instance:)`
    case given
}

struct MBDep: CustomStringConvertible {
    var type: Int
    var name: Int
    /// nil: no argument; -1: pass the registration's own argument (7 if it
    /// has none); otherwise this constant.
    var arg: Int?

    var key: MBKey { MBKey(type: type, name: name, arg: arg != nil) }

    var description: String {
        mbTypeNames[type] + (name == 1 ? "[x]" : "") + (arg.map { $0 == -1 ? "(arg)" : "(\($0))" } ?? "")
    }
}

/// An `onResolved` callback: logs "cbN", and throws never, on its first
/// call only (per registration), or always.
enum MBCallbackMode: String {
    case fine, once, always
}

/// An `onDispose` closure: logs "dN", sync or async, throwing or not.
struct MBDisposerSpec {
    var isAsync: Bool
    var fails: Bool
}

/// The instances' own `Disposable` (sync) or `AsyncDisposable` conformance:
/// logs "conf", throwing or not.
struct MBConformanceSpec {
    var isAsync: Bool
    var fails: Bool
}

struct MBRegSpec: CustomStringConvertible {
    var key: MBKey
    var kind: MBKind
    var isAsync: Bool
    var fails: Bool
    var deps: [MBDep]
    /// `implements(type, name:)`: type 4 or 5.
    var alias: (type: Int, name: Int)?
    var callbacks: [MBCallbackMode] = []
    var disposers: [MBDisposerSpec] = []
    var conformance: MBConformanceSpec?

    var description: String {
        var text = "\(key) .\(kind)"
        if isAsync { text += " async" }
        if fails { text += " throws" }
        if !deps.isEmpty { text += " deps[\(deps.map(\.description).joined(separator: ", "))]" }
        if let alias { text += " implements \(mbTypeNames[alias.type])\(alias.name == 1 ? "[x]" : "")" }
        if let conformance { text += " \(conformance.isAsync ? "AsyncDisposable" : "Disposable")\(conformance.fails ? "(throws)" : "")" }
        for mode in callbacks { text += " onResolved(\(mode.rawValue))" }
        for disposer in disposers { text += " onDispose(\(disposer.isAsync ? "async" : "sync")\(disposer.fails ? ", throws" : ""))" }
        return text
    }
}

enum MBOp: CustomStringConvertible {
    case register(container: Int, spec: MBRegSpec)
    case remove(container: Int, type: Int, name: Int)
    case removeAll(container: Int)
    case release(container: Int)
    case makeChild(parent: Int)
    case makeScope(parent: Int)
    case close(container: Int)
    case resolve(container: Int, key: MBKey, argument: Int?, async: Bool)
    case resolveAll(container: Int, type: Int, async: Bool)
    case isRegistered(container: Int, key: MBKey)
    case resolveIfRegisteredAsync(container: Int, key: MBKey)
    /// The test lets go of every instance it holds (for `.weak`).
    case drop
    /// `withScope` on `parent`: `body`'s operations (naming the scope as
    /// container -1) run in it, then it returns or throws; the scope is
    /// the next container.
    indirect case withScope(parent: Int, body: [MBOp], bodyThrows: Bool)

    /// This operation with container -1 (a `withScope` body's scope) as `scope`.
    func inScope(_ scope: Int) -> MBOp {
        func c(_ index: Int) -> Int { index == -1 ? scope : index }
        switch self {
        case let .register(container, spec): return .register(container: c(container), spec: spec)
        case let .resolve(container, key, argument, async): return .resolve(container: c(container), key: key, argument: argument, async: async)
        case let .resolveAll(container, type, async): return .resolveAll(container: c(container), type: type, async: async)
        case let .close(container): return .close(container: c(container))
        case let .release(container): return .release(container: c(container))
        default: return self
        }
    }

    var description: String {
        switch self {
        case let .register(c, spec): "c\(c).register(\(spec))"
        case let .remove(c, type, name): "c\(c).remove(\(mbTypeNames[type])\(name == 1 ? "[x]" : ""))"
        case let .removeAll(c): "c\(c).removeAll()"
        case let .release(c): "c\(c).releaseSharedInstances()"
        case let .makeChild(p): "Container(parent: c\(p))"
        case let .makeScope(p): "c\(p).makeScope()"
        case let .close(c): "c\(c).close()"
        case let .resolve(c, key, argument, async):
            "c\(c).\(async ? "resolveAsync" : "tryResolve")(\(MBKey(type: key.type, name: key.name, arg: false))\(argument.map { "(\($0))" } ?? ""))"
        case let .resolveAll(c, type, async): "c\(c).\(async ? "resolveAllAsync" : "tryResolveAll")(\(mbTypeNames[type]))"
        case let .isRegistered(c, key): "c\(c).isRegistered(\(key))"
        case let .resolveIfRegisteredAsync(c, key): "c\(c).resolveIfRegisteredAsync(\(key))"
        case .drop: "drop held instances"
        case let .withScope(p, body, bodyThrows):
            "c\(p).withScope { scope in \(body.map { "\($0)".replacingOccurrences(of: "c-1", with: "scope") }.joined(separator: "; "))\(bodyThrows ? "; throw" : "") }"
        }
    }
}

// MARK: - Outcomes

/// `ResolutionError.Reason`, without payloads.
enum MBReason: String, Hashable {
    case notRegistered, cycle, factoryFailed, argumentMismatch, incompatibleAlias, noScope, captiveDependency,
         closed, disposerWithoutOwner, registeredAsync, cancelled, isolatedToMainActor

    init(_ reason: ResolutionError.Reason) {
        switch reason {
        case .notRegistered: self = .notRegistered
        case .cycle: self = .cycle
        case .factoryFailed: self = .factoryFailed
        case .argumentMismatch: self = .argumentMismatch
        case .incompatibleAlias: self = .incompatibleAlias
        case .noScope: self = .noScope
        case .captiveDependency: self = .captiveDependency
        case .closed: self = .closed
        case .disposerWithoutOwner: self = .disposerWithoutOwner
        case .registeredAsync: self = .registeredAsync
        case .cancelled: self = .cancelled
        case .isolatedToMainActor: self = .isolatedToMainActor
        }
    }
}

/// An instance the model expects: a new one (its registration and, in
/// resolve order, what its factory resolved), or one seen before.
indirect enum MBNode: CustomStringConvertible {
    case fresh(id: Int, reg: Int, deps: [MBNode])
    case existing(id: Int)

    var id: Int {
        switch self {
        case let .fresh(id, _, _), let .existing(id): id
        }
    }

    var description: String {
        switch self {
        case let .fresh(id, reg, deps): "new#\(id)(r\(reg))" + (deps.isEmpty ? "" : "[\(deps.map(\.description).joined(separator: ", "))]")
        case let .existing(id): "#\(id)"
        }
    }
}

enum MBExpected: CustomStringConvertible {
    case none
    case value(MBNode)
    /// `ordered: false` where the order is not specified (a key registered again).
    case list([MBNode], ordered: Bool)
    case optional(MBNode?)
    case bool(Bool)
    case error(Set<MBReason>)
    /// `close()` (`bodyFailed` nil) or `withScope`: the disposers that
    /// threw, in order (none: no `DisposalError`), and whether the body threw.
    case disposal([MBLogExpect], bodyFailed: Bool?)

    var description: String {
        switch self {
        case .none: "nothing"
        case let .value(node): node.description
        case let .list(nodes, ordered): "[\(nodes.map(\.description).joined(separator: ", "))]\(ordered ? "" : " in any order")"
        case let .optional(node): node?.description ?? "nil"
        case let .bool(value): "\(value)"
        case let .error(reasons): "error \(reasons.map { "." + $0.rawValue }.sorted().joined(separator: " or "))"
        case let .disposal(failures, bodyFailed):
            (failures.isEmpty ? "no DisposalError" : "DisposalError[\(failures.map(\.description).joined(separator: ", "))]")
                + (bodyFailed.map { $0 ? ", the body's error" : ", the body's value" } ?? "")
        }
    }
}

struct MBFailure: Error, Equatable {}

/// What the model expects in the log: a disposer or callback (`tag`:
/// "conf", "d0", "d1", "cb0", "cb1") run on a model instance.
struct MBLogExpect: Hashable, CustomStringConvertible {
    var instance: Int
    var tag: String
    var description: String { "#\(instance).\(tag)" }
}

struct MBModelFailure: Error {
    var reasons: Set<MBReason>
    init(_ reasons: MBReason...) { self.reasons = Set(reasons) }
    init(_ reasons: Set<MBReason>) { self.reasons = reasons }
}

/// Picks at a model's choice points: the given prefix, then the first option.
final class MBOracle {
    let prefix: [Int]
    private(set) var taken: [Int] = []
    private(set) var arities: [Int] = []

    init(prefix: [Int]) { self.prefix = prefix }

    func choose(_ options: Int) -> Int {
        let index = taken.count
        let value = index < prefix.count ? prefix[index] : 0
        taken.append(value)
        arities.append(options)
        return value
    }
}

// MARK: - The model's state

struct MBReg {
    var id: Int
    var container: Int
    var key: MBKey
    var kind: MBKind
    var isAsync: Bool
    var fails: Bool
    var deps: [MBDep]
    /// For an alias: the registration it forwards to (in the same container).
    var aliasOf: Int?
    var callbacks: [MBCallbackMode] = []
    var disposers: [MBDisposerSpec] = []
    var conformance: MBConformanceSpec?
}

struct MBContainer {
    var parent: Int?
    var isScope: Bool
    var closed = false
    var table: [MBKey: Int] = [:]
    /// Keys in registration order (a replaced key keeps its place, a removed one leaves).
    var order: [MBKey] = []
    /// Keys registered again: `resolveAll`'s order among them is not specified.
    var replaced: Set<MBKey> = []
}

struct MBScopedSlot: Hashable {
    var scope: Int
    var reg: Int
}

struct MBGraphSlot: Hashable {
    var container: Int
    var reg: Int
}

struct MBInstance {
    var reg: Int
    var deps: [Int]
    /// The driver's step that made it.
    var step: Int
}

/// A callback of a registration, for counting its calls.
struct MBCallbackSlot: Hashable {
    var reg: Int
    var index: Int
}

/// How a failed resolve takes back a published instance.
enum MBTakeBack {
    case shared(reg: Int, instance: Int)
    case scoped(MBScopedSlot, instance: Int)
    case weak(reg: Int, instance: Int)
}

/// One entry of an outermost resolve's queue, in creation order.
struct MBQueued {
    enum Kind {
        /// The instance's `onResolved` callbacks.
        case callbacks(instance: Int)
        /// A singleton without callbacks whose factory queued some.
        case undoOnly
        /// A `.new`/`.graph` instance with disposers and no scope: the
        /// resolve fails with `.disposerWithoutOwner` here.
        case refusal(instance: Int)
    }
    var kind: Kind
    var takeBack: MBTakeBack?

    var isRefusal: Bool {
        if case .refusal = kind { true } else { false }
    }
}

struct MBState {
    var containers: [MBContainer] = [MBContainer(parent: nil, isScope: false)]
    var regs: [Int: MBReg] = [:]
    var nextReg = 1
    /// `.shared` and given instances, by registration.
    var shared: [Int: Int] = [:]
    /// The last `.weak` instance, by registration (alive or not).
    var weak: [Int: Int] = [:]
    var scoped: [MBScopedSlot: Int] = [:]
    /// Keys of registrations held by a strict ancestor that a scope has
    /// resolved `.scoped` (its copy sits under that key in the scope).
    var copiedKeys: [Int: Set<MBKey>] = [:]
    var instances: [Int: MBInstance] = [:]
    var nextInstance = 1
    /// What the test holds (every successful result until `drop`).
    var held: [Int] = []
    /// Instances that may or may not still be alive: a released, removed or
    /// replaced `.shared` instance (freed later if a resolve on another
    /// thread is running), a closed container's, a failed resolve's.
    var maybeAlive: Set<Int> = []
    /// Model instance id ↔ the real instance's serial.
    var realOf: [Int: Int] = [:]
    var modelOf: [Int: Int] = [:]
    /// The driver's current step (what new instances record).
    var step = 0
    /// `.new`/`.graph` instances with disposers, by the scope that keeps them.
    var tracked: [Int: [Int]] = [:]
    /// How many times each callback has run.
    var callbackCalls: [MBCallbackSlot: Int] = [:]
    /// What the current operation logs, in order (callbacks, a close's disposers).
    var opLog: [MBLogExpect] = []
    /// Disposals on tasks of their own, not yet seen in the log.
    var background: [MBLogExpect] = []

    // MARK: Queries

    func chainClosed(_ container: Int) -> Bool {
        var current: Int? = container
        while let c = current {
            if containers[c].closed { return true }
            current = containers[c].parent
        }
        return false
    }

    func nearestScope(_ container: Int) -> Int? {
        var current: Int? = container
        while let c = current {
            if containers[c].isScope { return c }
            current = containers[c].parent
        }
        return nil
    }

    func isStrictAncestor(_ ancestor: Int, of container: Int) -> Bool {
        var current = containers[container].parent
        while let c = current {
            if c == ancestor { return true }
            current = containers[c].parent
        }
        return false
    }

    /// The registration a key leads to from `container`, and its holder:
    /// own registrations first, then the parent's; the walk ends after a
    /// closed container.
    func lookup(_ key: MBKey, from container: Int) -> (reg: Int, holder: Int)? {
        var current = container
        while true {
            if let reg = containers[current].table[key] { return (reg, current) }
            if containers[current].closed { return nil }
            guard let parent = containers[current].parent else { return nil }
            current = parent
        }
    }

    /// Whether the same type and name are registered with the other signature on the way to the root.
    func otherSignature(_ key: MBKey, from container: Int) -> Bool {
        var other = key
        other.arg.toggle()
        var current: Int? = container
        while let c = current {
            if containers[c].table[other] != nil { return true }
            current = containers[c].parent
        }
        return false
    }

    /// Writing `key` in `container` while a scope below has its copy of a
    /// `.scoped` registration under that key: what the scope resolves then
    /// is not specified by the README, so the generator avoids it.
    func writeIsUnspecified(_ key: MBKey, in container: Int) -> Bool {
        copiedKeys.contains { scope, keys in keys.contains(key) && isStrictAncestor(container, of: scope) }
    }

    func anyCopyBelow(_ container: Int) -> Bool {
        copiedKeys.contains { scope, keys in !keys.isEmpty && isStrictAncestor(container, of: scope) }
    }

    /// Everything reachable from `roots` through instances' dependencies.
    func reachable(from roots: some Sequence<Int>) -> Set<Int> {
        var seen = Set<Int>()
        var stack = Array(roots)
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            stack.append(contentsOf: instances[id]?.deps ?? [])
        }
        return seen
    }

    // MARK: Writers

    mutating func newInstance(reg: Int, deps: [Int]) -> Int {
        let id = nextInstance
        nextInstance += 1
        instances[id] = MBInstance(reg: reg, deps: deps, step: step)
        return id
    }

    /// A registration that leaves its key: its instance may live on a while.
    mutating func retire(_ regID: Int) {
        if let instance = shared.removeValue(forKey: regID) {
            maybeAlive.insert(instance)
        }
    }

    /// Removes `key` from `container`, with the aliases of what it held.
    mutating func removeKey(_ key: MBKey, in container: Int) {
        guard let regID = containers[container].table.removeValue(forKey: key) else { return }
        containers[container].order.removeAll { $0 == key }
        containers[container].replaced.remove(key)
        retire(regID)
        dropAliases(of: regID, in: container)
    }

    mutating func dropAliases(of target: Int, in container: Int) {
        for (key, regID) in containers[container].table where regs[regID]?.aliasOf == target {
            removeKey(key, in: container)
        }
    }

    /// Installs `reg` under its key in `container`, replacing what was there.
    mutating func install(_ reg: MBReg, in container: Int) {
        regs[reg.id] = reg
        if let old = containers[container].table[reg.key] {
            containers[container].replaced.insert(reg.key)
            containers[container].table[reg.key] = reg.id
            retire(old)
            dropAliases(of: old, in: container)
        } else {
            containers[container].table[reg.key] = reg.id
            containers[container].order.append(reg.key)
        }
    }
}

// MARK: - The model's resolve

/// One outermost resolve (or one element of a `resolveAll`).
final class MBContext {
    struct Frame {
        /// The registration, or for `.scoped` the scope's copy of it.
        var reg: Int
        var copyIn: Int?
        var container: Int
        var arg: Int?
        var takesArgument: Bool
        var singleton: Bool
    }

    var frames: [Frame] = []
    var graph: [MBGraphSlot: Int] = [:]
    /// Callbacks, undos and refusals, for the end of the outermost resolve.
    var queue: [MBQueued] = []
    let oracle: MBOracle
    /// Instances created by this operation so far (alive: the operation holds them).
    var created: [Int]

    init(oracle: MBOracle, created: [Int] = []) {
        self.oracle = oracle
        self.created = created
    }
}

extension MBState {
    static func conforms(_ type: Int, to alias: Int) -> Bool {
        alias == 4 || (alias == 5 && type <= 1)
    }

    /// Resolves `key` from `container` as a (nested or outermost) resolve would.
    mutating func resolve(_ key: MBKey, argument: Int?, from container: Int, async: Bool,
                          context: MBContext) throws(MBModelFailure) -> MBNode {
        guard let (regID, holder) = lookup(key, from: container) else {
            if chainClosed(container) {
                if let instance = copiedInstance(key, from: container) { return .existing(id: instance) }
                throw MBModelFailure(.closed)
            }
            if otherSignature(key, from: container) { throw MBModelFailure(.argumentMismatch) }
            throw MBModelFailure(.notRegistered)
        }
        return try resolveFound(regID, holder: holder, argument: argument, from: container, async: async, context: context)
    }

    /// The instance of an ancestor's `.scoped` registration that the
    /// nearest scope, open and reached before any closed container, keeps
    /// its copy of under `key`: the lookup finds the copy there.
    func copiedInstance(_ key: MBKey, from container: Int) -> Int? {
        guard let scope = nearestScope(container) else { return nil }
        var current = container
        while true {
            if containers[current].closed { return nil }
            if current == scope { break }
            current = containers[current].parent!
        }
        guard copiedKeys[scope]?.contains(key) == true else { return nil }
        // Of a registration `container` sees: the scope also keeps the
        // instances of its descendants' registrations, under the same keys.
        return scoped.first { slot, _ in
            let reg = regs[slot.reg]!
            return slot.scope == scope && reg.key == key && (reg.container == container || isStrictAncestor(reg.container, of: container))
        }?.value
    }

    mutating func resolveFound(_ regID: Int, holder: Int, argument: Int?, from container: Int, async: Bool,
                               context: MBContext) throws(MBModelFailure) -> MBNode {
        let reg = regs[regID]!
        if chainClosed(container) {
            // README: a closed container or a child of one creates nothing;
            // an instance an open child or scope already holds, it returns.
            let target = reg.aliasOf.map { regs[$0]! } ?? reg
            var existing: Int?
            switch target.kind {
            case .shared, .given:
                existing = shared[target.id]
            case .scoped:
                if let scope = nearestScope(container), !containers[scope].closed {
                    existing = scoped[MBScopedSlot(scope: scope, reg: target.id)]
                }
            default:
                break
            }
            guard let existing else { throw MBModelFailure(.closed) }
            if reg.aliasOf != nil {
                // Not said either way for an alias of such an instance.
                if context.oracle.choose(2) == 1 { throw MBModelFailure(.closed) }
                guard Self.conforms(target.key.type, to: reg.key.type) else { throw MBModelFailure(.incompatibleAlias) }
            }
            return .existing(id: existing)
        }
        if let targetID = reg.aliasOf {
            let target = regs[targetID]!
            let node = try produce(target, holder: holder, argument: argument, from: container, async: async, context: context)
            guard Self.conforms(target.key.type, to: reg.key.type) else {
                // An async alias whose target's instance is not of its type:
                // Syringe runs the queued callbacks before it fails (seen at
                // the outermost resolve; nested, either). Not said.
                if async && target.isAsync && (context.frames.isEmpty || context.oracle.choose(2) == 1) {
                    try finish(context)
                }
                throw MBModelFailure(.incompatibleAlias)
            }
            return node
        }
        return try produce(reg, holder: holder, argument: argument, from: container, async: async, context: context)
    }

    private func alive(_ id: Int, context: MBContext) -> Bool {
        var roots = held + context.created + Array(shared.values)
        for (slot, instance) in scoped where !containers[slot.scope].closed {
            roots.append(instance)
        }
        // A scope holds the `.new`/`.graph` instances with disposers it keeps.
        for (_, kept) in tracked {
            roots.append(contentsOf: kept)
        }
        return reachable(from: roots).contains(id)
    }

    private func mayBeAlive(_ id: Int) -> Bool {
        reachable(from: maybeAlive).contains(id)
    }

    /// The `.weak` instance if it is alive: nil when it is certainly gone,
    /// a choice point when it may or may not be.
    private func liveWeak(_ reg: MBReg, context: MBContext) -> Int? {
        guard let instance = weak[reg.id] else { return nil }
        if alive(instance, context: context) { return instance }
        if mayBeAlive(instance) { return context.oracle.choose(2) == 0 ? instance : nil }
        return nil
    }

    private func onStack(_ reg: MBReg, context: MBContext) -> Bool {
        context.frames.contains { $0.reg == reg.id }
    }

    mutating func produce(_ reg: MBReg, holder: Int, argument: Int?, from container: Int, async: Bool,
                          context: MBContext) throws(MBModelFailure) -> MBNode {
        if !async && reg.isAsync {
            // README: resolving an async registration synchronously is
            // `.registeredAsync`; once an async `.shared` instance exists, a
            // synchronous resolve returns it. (`.scoped` and `.weak`: not said.)
            switch reg.kind {
            case .shared:
                if let instance = shared[reg.id] { return .existing(id: instance) }
            case .scoped:
                guard let scope = nearestScope(container) else {
                    // Two reasons apply; which one wins is not said.
                    var reasons: Set<MBReason> = [.registeredAsync, .noScope]
                    if context.frames.contains(where: \.singleton) { reasons.insert(.captiveDependency) }
                    throw MBModelFailure(reasons)
                }
                if isStrictAncestor(holder, of: scope) {
                    copiedKeys[scope, default: []].insert(reg.key)   // the copy is made before the factory fails
                }
                if let instance = scoped[MBScopedSlot(scope: scope, reg: reg.id)], context.oracle.choose(2) == 0 {
                    return .existing(id: instance)
                }
            case .weak:
                if let instance = liveWeak(reg, context: context), context.oracle.choose(2) == 0 {
                    return .existing(id: instance)
                }
            case .graph:
                // The async graph's instance, asked for by a synchronous
                // factory inside it: not said either.
                if let instance = context.graph[MBGraphSlot(container: container, reg: reg.id)], context.oracle.choose(2) == 0 {
                    return .existing(id: instance)
                }
            default:
                break
            }
            var reasons: Set<MBReason> = [.registeredAsync]
            if onStack(reg, context: context) { reasons.insert(.cycle) }
            // Which of the two a `.weak` registration with a disposer fails with: not said.
            if reg.kind == .weak && !reg.disposers.isEmpty { reasons.insert(.disposerWithoutOwner) }
            throw MBModelFailure(reasons)
        }
        if reg.kind == .weak && !reg.disposers.isEmpty {
            // README: a `.weak` registration with `onDispose` fails with
            // `.disposerWithoutOwner`: nothing would ever run it.
            throw MBModelFailure(.disposerWithoutOwner)
        }
        switch reg.kind {
        case .given:
            // Only a closed container's given instance is missing, and a
            // closed chain never gets here.
            guard let instance = shared[reg.id] else { throw MBModelFailure(.closed) }
            return .existing(id: instance)
        case .shared:
            if let instance = shared[reg.id] { return .existing(id: instance) }
            let before = context.queue.count
            let node = try construct(reg, in: holder, argument: argument, copyIn: nil, singleton: true, context: context)
            shared[reg.id] = node.id
            queuePublished(reg, node.id, takeBack: .shared(reg: reg.id, instance: node.id), queuedBefore: before, context: context)
            return node
        case .weak:
            if let instance = liveWeak(reg, context: context) { return .existing(id: instance) }
            let before = context.queue.count
            let node = try construct(reg, in: holder, argument: argument, copyIn: nil, singleton: true, context: context)
            weak[reg.id] = node.id
            queuePublished(reg, node.id, takeBack: .weak(reg: reg.id, instance: node.id), queuedBefore: before, context: context)
            return node
        case .new:
            return try construct(reg, in: container, argument: argument, copyIn: nil, singleton: false, context: context)
        case .graph:
            let slot = MBGraphSlot(container: container, reg: reg.id)
            if let instance = context.graph[slot] { return .existing(id: instance) }
            let node = try construct(reg, in: container, argument: argument, copyIn: nil, singleton: false, context: context)
            context.graph[slot] = node.id
            return node
        case .scoped:
            guard let scope = nearestScope(container) else {
                // README: no scope is `.noScope`; a `.shared` or `.weak`
                // factory resolving a `.scoped` instance is a captive
                // dependency. Both describe a singleton's factory above
                // every scope.
                if context.frames.contains(where: \.singleton) {
                    throw MBModelFailure(.noScope, .captiveDependency)
                }
                throw MBModelFailure(.noScope)
            }
            if containers[scope].closed { throw MBModelFailure(.closed) }
            if isStrictAncestor(holder, of: scope) {
                copiedKeys[scope, default: []].insert(reg.key)
            }
            let slot = MBScopedSlot(scope: scope, reg: reg.id)
            if let instance = scoped[slot] { return .existing(id: instance) }
            let before = context.queue.count
            let node = try construct(reg, in: scope, argument: argument, copyIn: scope, singleton: false, context: context)
            scoped[slot] = node.id
            queuePublished(reg, node.id, takeBack: .scoped(slot, instance: node.id), queuedBefore: before, context: context)
            return node
        }
    }

    /// A synchronous registration asked for by an async factory: Syringe
    /// hands it to its synchronous engine, whose resolve on this thread is
    /// an outermost one of its own, and which hands what it queued to the
    /// async resolve around it: the callbacks run when that one has built
    /// its whole graph. Unless the synchronous part refused an instance for
    /// want of an owner: then it fails, running what it queued before the
    /// refusal as an outermost synchronous resolve does.
    mutating func bridged(_ key: MBKey, argument: Int?, from container: Int, context: MBContext) throws(MBModelFailure) -> MBNode {
        let outer = context.queue
        context.queue = []
        do {
            let node = try resolve(key, argument: argument, from: container, async: false, context: context)
            if context.queue.contains(where: \.isRefusal) {
                try finish(context)
                context.queue = outer
            } else {
                context.queue = outer + context.queue
            }
            return node
        } catch {
            abandon(context)
            context.queue = outer
            throw error
        }
    }

    /// A published `.shared`, `.weak` or `.scoped` instance: its callbacks
    /// are queued, and it is taken back if they do not all run; one without
    /// callbacks is taken back all the same if what its factory built has
    /// callbacks still to run (it holds them, configured or not).
    mutating func queuePublished(_ reg: MBReg, _ instance: Int, takeBack: MBTakeBack, queuedBefore: Int, context: MBContext) {
        if !reg.callbacks.isEmpty {
            context.queue.append(MBQueued(kind: .callbacks(instance: instance), takeBack: takeBack))
        } else if context.queue.count > queuedBefore {
            context.queue.append(MBQueued(kind: .undoOnly, takeBack: takeBack))
        }
    }

    /// The disposers that dispose `instance`, in order: its own
    /// conformance, then its registration's `onDispose` closures.
    func disposalSteps(_ instance: Int) -> [(expect: MBLogExpect, fails: Bool)] {
        let reg = regs[instances[instance]!.reg]!
        var steps: [(expect: MBLogExpect, fails: Bool)] = []
        if let conformance = reg.conformance {
            steps.append((MBLogExpect(instance: instance, tag: "conf"), conformance.fails))
        }
        for (index, disposer) in reg.disposers.enumerated() {
            steps.append((MBLogExpect(instance: instance, tag: "d\(index)"), disposer.fails))
        }
        return steps
    }

    /// `instance` disposed on a task of its own.
    mutating func disposeInBackground(_ instance: Int) {
        background.append(contentsOf: disposalSteps(instance).map(\.expect))
    }

    /// The end of a successful outermost resolve: the queued callbacks, in
    /// order; when one throws, the rest do not run and what they would have
    /// configured is taken back.
    mutating func finish(_ context: MBContext) throws(MBModelFailure) {
        var index = 0
        while index < context.queue.count {
            switch context.queue[index].kind {
            case let .callbacks(instance):
                let reg = regs[instances[instance]!.reg]!
                for (position, mode) in reg.callbacks.enumerated() {
                    opLog.append(MBLogExpect(instance: instance, tag: "cb\(position)"))
                    let slot = MBCallbackSlot(reg: reg.id, index: position)
                    callbackCalls[slot, default: 0] += 1
                    if mode == .always || (mode == .once && callbackCalls[slot] == 1) {
                        abandon(context, from: index)
                        throw MBModelFailure(.factoryFailed)
                    }
                }
            case .undoOnly:
                break
            case .refusal:
                abandon(context, from: index)
                throw MBModelFailure(.disposerWithoutOwner)
            }
            index += 1
        }
        context.queue = []
    }

    /// A failed outermost resolve: the queue from `start` on is undone.
    mutating func abandon(_ context: MBContext, from start: Int = 0) {
        for entry in context.queue[start...] {
            if case let .refusal(instance) = entry.kind {
                disposeInBackground(instance)
            }
            switch entry.takeBack {
            case let .shared(reg, instance)?:
                if shared[reg] == instance {
                    shared.removeValue(forKey: reg)
                    maybeAlive.insert(instance)
                    disposeInBackground(instance)
                }
            case let .scoped(slot, instance)?:
                if scoped[slot] == instance {
                    scoped.removeValue(forKey: slot)
                    maybeAlive.insert(instance)
                    disposeInBackground(instance)
                }
            case let .weak(reg, instance)?:
                // Forgotten, not disposed: a `.weak` instance has no owner.
                if weak[reg] == instance {
                    weak.removeValue(forKey: reg)
                    maybeAlive.insert(instance)
                }
            case nil:
                break
            }
        }
        context.queue = []
    }

    /// What `close()` of `container` disposes, newest first: its `.shared`
    /// and given instances, and for a scope its `.scoped` instances and the
    /// `.new`/`.graph` ones it keeps. Logs them; returns the failures.
    mutating func closeDisposals(_ container: Int) -> [MBLogExpect] {
        var owned: [Int] = []
        for regID in containers[container].table.values {
            let reg = regs[regID]!
            if reg.aliasOf == nil, reg.kind == .shared || reg.kind == .given, let instance = shared[regID] {
                owned.append(instance)
            }
        }
        for (slot, instance) in scoped where slot.scope == container {
            owned.append(instance)
        }
        owned.append(contentsOf: tracked.removeValue(forKey: container) ?? [])
        var failures: [MBLogExpect] = []
        for instance in owned.sorted(by: >) {
            for step in disposalSteps(instance) {
                opLog.append(step.expect)
                if step.fails { failures.append(step.expect) }
            }
        }
        return failures
    }

    /// Runs `reg`'s factory: its frame (cycle check), its dependencies
    /// resolved from `container` in order, then the instance.
    mutating func construct(_ reg: MBReg, in container: Int, argument: Int?, copyIn: Int?, singleton: Bool,
                            context: MBContext) throws(MBModelFailure) -> MBNode {
        let frame = MBContext.Frame(reg: reg.id, copyIn: copyIn, container: container, arg: argument,
                                    takesArgument: reg.key.arg, singleton: singleton)
        for other in context.frames where other.reg == frame.reg && other.copyIn == frame.copyIn {
            if other.container == frame.container && other.arg == frame.arg {
                // The same registration in the same container with the same
                // argument: it needs itself, without end.
                throw MBModelFailure(.cycle)
            }
            if !frame.takesArgument {
                // The same registration built again through another
                // container (a different instance): whether that is a cycle
                // is not said.
                if context.oracle.choose(2) == 1 { throw MBModelFailure(.cycle) }
                break
            }
        }
        context.frames.append(frame)
        defer { context.frames.removeLast() }
        var deps: [MBNode] = []
        for dep in reg.deps {
            let value = dep.arg.map { $0 == -1 ? (argument ?? 7) : $0 }
            if reg.isAsync, let (found, _) = lookup(dep.key, from: container),
               !regs[regs[found]!.aliasOf ?? found]!.isAsync {
                deps.append(try bridged(dep.key, argument: value, from: container, context: context))
            } else {
                deps.append(try resolve(dep.key, argument: value, from: container, async: reg.isAsync, context: context))
            }
        }
        if reg.fails { throw MBModelFailure(.factoryFailed) }
        let id = newInstance(reg: reg.id, deps: deps.map(\.id))
        context.created.append(id)
        let node = MBNode.fresh(id: id, reg: reg.id, deps: deps)
        guard !singleton && copyIn == nil else { return node }
        // A `.new` or `.graph` instance: README, "The rule for .new and .graph".
        if !reg.disposers.isEmpty {
            if let scope = nearestScope(container) {
                tracked[scope, default: []].append(id)
            } else if reg.isAsync {
                // The async engine refuses it at once, and disposes it.
                disposeInBackground(id)
                throw MBModelFailure(.disposerWithoutOwner)
            } else {
                // The synchronous one when the outermost resolve finishes;
                // it gets no callbacks.
                context.queue.append(MBQueued(kind: .refusal(instance: id), takeBack: nil))
                return node
            }
        }
        if !reg.callbacks.isEmpty {
            context.queue.append(MBQueued(kind: .callbacks(instance: id), takeBack: nil))
        }
        return node
    }

    // MARK: Operations

    /// Applies one operation (any but `register` with a given instance,
    /// which `registerGiven` does) and says what it should return.
    mutating func apply(_ op: MBOp, oracle: MBOracle) -> MBExpected {
        switch op {
        case let .register(c, spec):
            precondition(spec.kind != .given)
            register(spec, in: c)
            return .none
        case let .remove(c, type, name):
            removeKey(MBKey(type: type, name: name, arg: false), in: c)
            removeKey(MBKey(type: type, name: name, arg: true), in: c)
            return .none
        case let .removeAll(c):
            for key in containers[c].table.keys {
                removeKey(key, in: c)
            }
            return .none
        case let .release(c):
            for regID in containers[c].table.values where regs[regID]!.kind == .shared {
                retire(regID)
            }
            return .none
        case let .makeChild(parent):
            containers.append(MBContainer(parent: parent, isScope: false))
            return .none
        case let .makeScope(parent):
            containers.append(MBContainer(parent: parent, isScope: true))
            return .none
        case let .close(c):
            guard !containers[c].closed else { return .disposal([], bodyFailed: nil) }
            let failures = closeDisposals(c)
            containers[c].closed = true
            for regID in containers[c].table.values {
                retire(regID)
            }
            for (slot, instance) in scoped where slot.scope == c {
                maybeAlive.insert(instance)
            }
            scoped = scoped.filter { $0.key.scope != c }
            return .disposal(failures, bodyFailed: nil)
        case let .resolve(c, key, argument, async):
            let context = MBContext(oracle: oracle)
            do {
                let node = try resolve(key, argument: argument, from: c, async: async, context: context)
                try finish(context)
                held.append(node.id)
                return .value(node)
            } catch {
                abandon(context)
                maybeAlive.formUnion(context.created)
                return .error(error.reasons)
            }
        case let .resolveAll(c, type, async):
            if containers[c].closed { return .error([.closed]) }
            var chain: [Int] = []
            var current: Int? = c
            while let container = current {
                chain.append(container)
                current = containers[container].closed ? nil : containers[container].parent
            }
            var entries: [(reg: Int, holder: Int)] = []
            var position: [Int: Int] = [:]
            var ordered = true
            for holder in chain.reversed() {
                for key in containers[holder].order where key.type == type && !key.arg {
                    let entry = (reg: containers[holder].table[key]!, holder: holder)
                    if containers[holder].replaced.contains(key) { ordered = false }
                    if let index = position[key.name] {
                        entries[index] = entry
                    } else {
                        position[key.name] = entries.count
                        entries.append(entry)
                    }
                }
            }
            var created: [Int] = []
            var nodes: [MBNode] = []
            for entry in entries {
                // Each element is an outermost resolve of its own.
                let context = MBContext(oracle: oracle, created: created)
                do {
                    nodes.append(try resolveFound(entry.reg, holder: entry.holder, argument: nil, from: c, async: async,
                                                  context: context))
                    try finish(context)
                    created = context.created
                } catch {
                    abandon(context)
                    maybeAlive.formUnion(context.created)
                    return .error(error.reasons)
                }
            }
            held.append(contentsOf: nodes.map(\.id))
            return .list(nodes, ordered: ordered)
        case let .isRegistered(c, key):
            return .bool(lookup(key, from: c) != nil && !chainClosed(c))
        case let .resolveIfRegisteredAsync(c, key):
            guard let (regID, holder) = lookup(key, from: c) else {
                guard chainClosed(c) else { return .optional(nil) }
                // As `resolve`: an open scope still returns its copy's instance.
                guard let instance = copiedInstance(key, from: c) else { return .error([.closed]) }
                held.append(instance)
                return .optional(.existing(id: instance))
            }
            let context = MBContext(oracle: oracle)
            do {
                let node = try resolveFound(regID, holder: holder, argument: nil, from: c, async: true, context: context)
                try finish(context)
                held.append(node.id)
                return .optional(node)
            } catch {
                abandon(context)
                maybeAlive.formUnion(context.created)
                return .error(error.reasons)
            }
        case .drop:
            held = []
            return .none
        case .withScope:
            preconditionFailure("the driver runs withScope as makeScope, its body, and close")
        }
    }

    mutating func register(_ spec: MBRegSpec, in container: Int) {
        let id = nextReg
        nextReg += 2   // the alias, if any, is id + 1
        install(MBReg(id: id, container: container, key: spec.key, kind: spec.kind, isAsync: spec.isAsync,
                      fails: spec.fails, deps: spec.deps, aliasOf: nil, callbacks: spec.callbacks,
                      disposers: spec.disposers, conformance: spec.conformance), in: container)
        if let alias = spec.alias {
            let key = MBKey(type: alias.type, name: alias.name, arg: spec.key.arg)
            install(MBReg(id: id + 1, container: container, key: key, kind: spec.kind, isAsync: spec.isAsync,
                          fails: false, deps: [], aliasOf: id), in: container)
        }
    }

    /// `register(type:name:instance:)`, the instance made by the test with `serial`.
    mutating func registerGiven(_ spec: MBRegSpec, in container: Int, serial: Int) {
        let id = nextReg
        register(spec, in: container)
        let instance = newInstance(reg: id, deps: [])
        realOf[instance] = serial
        modelOf[serial] = instance
        if containers[container].closed {
            // README: a closed container resolves nothing, not even a
            // registration made in it after the close.
            maybeAlive.insert(instance)
        } else {
            shared[id] = instance
        }
    }
}

// MARK: - The generator

extension MBState {
    /// The next operation, drawn from `random` and shaped by the state so
    /// that it stays within what the README specifies.
    func generate(_ random: inout SplitMix64) -> MBOp {
        let container = random.below(containers.count)
        func key() -> MBKey {
            MBKey(type: random.below(4), name: random.chance(20) ? 1 : 0, arg: random.chance(20))
        }
        func lookupKey() -> MBKey {
            // Mostly what is registered somewhere, sometimes anything.
            let registered = Array(Set(containers.flatMap { $0.table.keys }))
            if !registered.isEmpty && random.chance(80) {
                return registered.sorted { $0.description < $1.description }[random.below(registered.count)]
            }
            return MBKey(type: random.below(6), name: random.chance(20) ? 1 : 0, arg: random.chance(20))
        }
        let roll = random.below(100)
        switch roll {
        case 0 ..< 30:
            var spec = MBRegSpec(key: key(), kind: .new, isAsync: false, fails: false, deps: [], alias: nil)
            if !spec.key.arg {
                let kinds: [MBKind] = [.new, .shared, .shared, .graph, .graph, .weak, .scoped, .scoped, .given]
                spec.kind = kinds[random.below(kinds.count)]
            }
            if spec.kind != .given {
                spec.isAsync = random.chance(25)
                spec.fails = random.chance(4)
                let count = [0, 0, 1, 1, 1, 2, 2][random.below(7)]
                for _ in 0 ..< count {
                    let type = random.chance(85) ? random.below(4) : 4 + random.below(2)
                    let arg: Int? = random.chance(80) ? nil : [-1, 1, 2][random.below(3)]
                    spec.deps.append(MBDep(type: type, name: random.chance(15) ? 1 : 0, arg: arg))
                }
            }
            if random.chance(20) {
                spec.alias = (type: random.chance(70) ? 4 : 5, name: random.chance(30) ? 1 : 0)
            }
            Self.addHooks(to: &spec, &random)
            if writeIsUnspecified(spec.key, in: container) {
                return .drop
            }
            return .register(container: container, spec: spec)
        case 30 ..< 50:
            let key = lookupKey()
            return .resolve(container: container, key: key, argument: key.arg ? 1 + random.below(2) : nil, async: false)
        case 50 ..< 63:
            let key = lookupKey()
            return .resolve(container: container, key: key, argument: key.arg ? 1 + random.below(2) : nil, async: true)
        case 63 ..< 68:
            return .resolveAll(container: container, type: random.below(6), async: random.chance(40))
        case 68 ..< 72:
            return .isRegistered(container: container, key: lookupKey())
        case 72 ..< 75:
            var key = lookupKey()
            key.arg = false
            return .resolveIfRegisteredAsync(container: container, key: key)
        case 75 ..< 80:
            let key = lookupKey()
            if writeIsUnspecified(MBKey(type: key.type, name: key.name, arg: false), in: container)
                || writeIsUnspecified(MBKey(type: key.type, name: key.name, arg: true), in: container) {
                return .drop
            }
            return .remove(container: container, type: key.type, name: key.name)
        case 80 ..< 81:
            return anyCopyBelow(container) ? .drop : .removeAll(container: container)
        case 81 ..< 85:
            return .release(container: container)
        case 85 ..< 88:
            return containers.count < 7 ? .makeChild(parent: container) : .drop
        case 88 ..< 93:
            return containers.count < 7 ? .makeScope(parent: container) : .drop
        case 93 ..< 96:
            // Mostly scopes, as requests close theirs.
            let scopes = containers.indices.filter { containers[$0].isScope }
            if !scopes.isEmpty && random.chance(80) {
                return .close(container: scopes[random.below(scopes.count)])
            }
            return random.chance(30) ? .close(container: container) : .drop
        case 96 ..< 99:
            guard containers.count < 7 else { return .drop }
            // The body: what a request does in its scope (container -1).
            var inScope = self
            _ = inScope.apply(.makeScope(parent: container), oracle: MBOracle(prefix: []))
            let scope = inScope.containers.count - 1
            var body: [MBOp] = []
            for _ in 0 ..< 1 + random.below(4) {
                var op = inScope.generate(&random)
                switch op {
                case let .register(_, spec) where random.chance(50):
                    op = .register(container: scope, spec: spec)
                case let .resolve(_, key, argument, async) where random.chance(80):
                    op = .resolve(container: scope, key: key, argument: argument, async: async)
                case .register, .resolve, .resolveAll:
                    break
                default:
                    continue
                }
                body.append(Self.naming(op, scope: scope))
            }
            return .withScope(parent: container, body: body, bodyThrows: random.chance(30))
        default:
            return .drop
        }
    }

    /// `op` with `scope` named as -1 (the body's scope).
    static func naming(_ op: MBOp, scope: Int) -> MBOp {
        func c(_ index: Int) -> Int { index == scope ? -1 : index }
        switch op {
        case let .register(container, spec): return .register(container: c(container), spec: spec)
        case let .resolve(container, key, argument, async): return .resolve(container: c(container), key: key, argument: argument, async: async)
        case let .resolveAll(container, type, async): return .resolveAll(container: c(container), type: type, async: async)
        default: return op
        }
    }

    /// Callbacks, disposers and conformances, now and then.
    static func addHooks(to spec: inout MBRegSpec, _ random: inout SplitMix64) {
        if random.chance(20) {
            spec.conformance = MBConformanceSpec(isAsync: random.chance(40), fails: random.chance(15))
        }
        if random.chance(spec.kind == .weak ? 10 : 30) {
            for _ in 0 ..< 1 + random.below(2) {
                spec.disposers.append(MBDisposerSpec(isAsync: random.chance(40), fails: random.chance(20)))
            }
        }
        if random.chance(25) {
            for _ in 0 ..< 1 + random.below(2) {
                let modes: [MBCallbackMode] = [.fine, .fine, .fine, .once, .once, .always]
                spec.callbacks.append(modes[random.below(modes.count)])
            }
        }
    }
}
