import Swinject
import Syringe
import SyringeOnDictionary

// MARK: A1–A3 — async resolution

/// A1's container: an async `.shared` registration whose instance exists.
func asyncSharedApp() -> Syringe.Container {
    let container = Syringe.Container()
    container.register(type: Service.self) { (_: Syringe.Resolver) async in ServiceImpl() as Service }
    return container
}

func asyncSharedApp(frozen: Bool) -> SyringeOnDictionary.Container {
    let container = SyringeOnDictionary.Container()
    container.register(type: Service.self) { (_: SyringeOnDictionary.Resolver) async in ServiceImpl() as Service }
    if frozen { container.freeze() }
    return container
}

/// A2's container: S5's chain A→B→C→D→E, every factory async.
func asyncChainApp() -> Syringe.Container {
    let container = Syringe.Container()
    container.register(type: E.self, in: .new) { (_: Syringe.Resolver) async in E() }
    container.register(type: D.self, in: .new) { (r: Syringe.Resolver) async throws in D(e: try await r.resolve()) }
    container.register(type: C.self, in: .new) { (r: Syringe.Resolver) async throws in C(d: try await r.resolve()) }
    container.register(type: B.self, in: .new) { (r: Syringe.Resolver) async throws in B(c: try await r.resolve()) }
    container.register(type: A.self, in: .new) { (r: Syringe.Resolver) async throws in A(b: try await r.resolve()) }
    return container
}

func asyncChainApp(frozen: Bool) -> SyringeOnDictionary.Container {
    let container = SyringeOnDictionary.Container()
    container.register(type: E.self, in: .new) { (_: SyringeOnDictionary.Resolver) async in E() }
    container.register(type: D.self, in: .new) { (r: SyringeOnDictionary.Resolver) async throws in D(e: try await r.resolve()) }
    container.register(type: C.self, in: .new) { (r: SyringeOnDictionary.Resolver) async throws in C(d: try await r.resolve()) }
    container.register(type: B.self, in: .new) { (r: SyringeOnDictionary.Resolver) async throws in B(c: try await r.resolve()) }
    container.register(type: A.self, in: .new) { (r: SyringeOnDictionary.Resolver) async throws in A(b: try await r.resolve()) }
    if frozen { container.freeze() }
    return container
}

/// A2 by hand: the same five async factories, with no container, each
/// awaiting the one below it directly. A container calls its users'
/// factories through the closures it holds, so this is the floor any of
/// them has: five async closure calls and five objects.
struct AsyncChainByHand: Sendable {
    let e: @Sendable (AsyncChainByHand) async throws -> E
    let d: @Sendable (AsyncChainByHand) async throws -> D
    let c: @Sendable (AsyncChainByHand) async throws -> C
    let b: @Sendable (AsyncChainByHand) async throws -> B
    let a: @Sendable (AsyncChainByHand) async throws -> A
}

/// Not inlined, so that the loop calls the closures through their
/// references, as a container does, rather than the compiler inlining them.
@inline(never)
func asyncChainByHand() -> AsyncChainByHand {
    AsyncChainByHand(
        e: { _ in E() },
        d: { factories in D(e: try await factories.e(factories)) },
        c: { factories in C(d: try await factories.d(factories)) },
        b: { factories in B(c: try await factories.c(factories)) },
        a: { factories in A(b: try await factories.b(factories)) }
    )
}

/// A node of A3's chain: the node below it and the first.
final class AsyncGraphNode: Sendable {
    let below: AsyncGraphNode?
    let first: AsyncGraphNode?
    init(below: AsyncGraphNode?, first: AsyncGraphNode?) {
        self.below = below
        self.first = first
    }
}

/// The levels of A3's chain.
let asyncGraphLevels = 100
/// A3's registration names, made once: "0" … "99".
let asyncGraphNames = (0..<asyncGraphLevels).map(String.init)

/// A3's container: `asyncGraphLevels` named async `.graph` registrations of
/// one type, each asking for the one below it and for the first, which every
/// level shares within one resolve.
func asyncGraphApp() -> Syringe.Container {
    let container = Syringe.Container()
    container.register(type: AsyncGraphNode.self, name: asyncGraphNames[0], in: .graph) { (_: Syringe.Resolver) async in
        AsyncGraphNode(below: nil, first: nil)
    }
    for level in 1..<asyncGraphLevels {
        let below = asyncGraphNames[level - 1]
        container.register(type: AsyncGraphNode.self, name: asyncGraphNames[level], in: .graph) { (r: Syringe.Resolver) async throws in
            AsyncGraphNode(below: try await r.resolve(type: AsyncGraphNode.self, name: below),
                           first: try await r.resolve(type: AsyncGraphNode.self, name: asyncGraphNames[0]))
        }
    }
    return container
}

func asyncGraphApp(frozen: Bool) -> SyringeOnDictionary.Container {
    let container = SyringeOnDictionary.Container()
    container.register(type: AsyncGraphNode.self, name: asyncGraphNames[0], in: .graph) { (_: SyringeOnDictionary.Resolver) async in
        AsyncGraphNode(below: nil, first: nil)
    }
    for level in 1..<asyncGraphLevels {
        let below = asyncGraphNames[level - 1]
        container.register(type: AsyncGraphNode.self, name: asyncGraphNames[level], in: .graph) { (r: SyringeOnDictionary.Resolver) async throws in
            AsyncGraphNode(below: try await r.resolve(type: AsyncGraphNode.self, name: below),
                           first: try await r.resolve(type: AsyncGraphNode.self, name: asyncGraphNames[0]))
        }
    }
    if frozen { container.freeze() }
    return container
}

extension Runner {
    /// A1: `resolveAsync` of an async `.shared` registration whose instance
    /// exists. Swinject has no async resolution.
    func a1(_ contender: Contender) async -> Sample? {
        switch contender {
        case .syringe:
            let container = asyncSharedApp()
            _ = try! await container.resolveAsync(type: Service.self)
            return await measureAsync(ops: method.opsPerRep, repetitions: method.repetitions) { await loopA1(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = asyncSharedApp(frozen: contender == .swiftFrozen)
            _ = try! await container.resolveAsync(type: Service.self)
            return await measureAsync(ops: method.opsPerRep, repetitions: method.repetitions) { await loopA1(container, $0) }
        case .byHand, .swinject, .syringeSwinject:
            return nil
        }
    }

    /// A2: S5's five-level `.new` chain with async factories, resolved with
    /// `resolveAsync`.
    func a2(_ contender: Contender) async -> Sample? {
        let ops = Swift.max(method.opsPerRep / 5, 1_000)
        switch contender {
        case .syringe:
            let container = asyncChainApp()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopA2(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = asyncChainApp(frozen: contender == .swiftFrozen)
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopA2(container, $0) }
        case .byHand:
            let factories = asyncChainByHand()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopA2(factories, $0) }
        case .swinject, .syringeSwinject:
            return nil
        }
    }

    /// A3: the root of `asyncGraphApp()`'s chain, resolved with
    /// `resolveAsync`: 100 objects and 199 edges per op.
    func a3(_ contender: Contender) async -> Sample? {
        let ops = Swift.max(method.opsPerRep / 1_500, 20)
        switch contender {
        case .syringe:
            let container = asyncGraphApp()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopA3(container, $0) }
        case .swiftLocked, .swiftFrozen:
            let container = asyncGraphApp(frozen: contender == .swiftFrozen)
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopA3(container, $0) }
        case .byHand, .swinject, .syringeSwinject:
            return nil
        }
    }
}

@inline(never)
func loopA1(_ container: Syringe.Container, _ n: Int) async {
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: Service.self)) }
}

@inline(never)
func loopA1(_ container: SyringeOnDictionary.Container, _ n: Int) async {
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: Service.self)) }
}

@inline(never)
func loopA2(_ container: Syringe.Container, _ n: Int) async {
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: A.self)) }
}

@inline(never)
func loopA2(_ container: SyringeOnDictionary.Container, _ n: Int) async {
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: A.self)) }
}

@inline(never)
func loopA2(_ factories: AsyncChainByHand, _ n: Int) async {
    for _ in 0..<n { blackHole(try! await factories.a(factories)) }
}

@inline(never)
func loopA3(_ container: Syringe.Container, _ n: Int) async {
    let top = asyncGraphNames[asyncGraphLevels - 1]
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: AsyncGraphNode.self, name: top)) }
}

@inline(never)
func loopA3(_ container: SyringeOnDictionary.Container, _ n: Int) async {
    let top = asyncGraphNames[asyncGraphLevels - 1]
    for _ in 0..<n { blackHole(try! await container.resolveAsync(type: AsyncGraphNode.self, name: top)) }
}
