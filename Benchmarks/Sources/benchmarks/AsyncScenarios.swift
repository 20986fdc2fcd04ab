import Swinject
import Syringe
import SyringeOnDictionary

// MARK: A1, A2 — async resolution

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
