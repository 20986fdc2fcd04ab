import Swinject
import Syringe
import SyringeOnDictionary

// MARK: SC1, SC2 — request scopes

/// A per-request value, registered in each request's scope.
final class RequestValue {
    let id: Int
    init(id: Int) { self.id = id }
}

/// What every request shares.
final class AppWide {}

/// A request's unit of work: `.scoped`, built from the request's value and
/// the shared dependency.
final class UnitOfWork {
    let request: RequestValue
    let app: AppWide
    init(request: RequestValue, app: AppWide) {
        self.request = request
        self.app = app
    }
}

/// A Syringe (or Syringe-on-dictionary) app with a `.shared` dependency and
/// a `.scoped` unit of work, whose shared instance already exists.
func scopedApp() -> Syringe.Container {
    let app = Syringe.Container()
    app.register(type: AppWide.self) { _ in AppWide() }
    app.register(type: UnitOfWork.self, in: .scoped) { r in
        UnitOfWork(request: try r.resolve(), app: try r.resolve())
    }
    _ = app.resolve(type: AppWide.self)
    return app
}

func scopedApp() -> SyringeOnDictionary.Container {
    let app = SyringeOnDictionary.Container()
    app.register(type: AppWide.self) { _ in AppWide() }
    app.register(type: UnitOfWork.self, in: .scoped) { r in
        UnitOfWork(request: try r.resolve(), app: try r.resolve())
    }
    _ = app.resolve(type: AppWide.self)
    return app
}

/// Swinject has no request scope: a child container per request, with the
/// request's registrations made in it (`.container` makes the unit of work
/// one per child), is how its users get one.
func scopedApp() -> Swinject.Container {
    let app = Swinject.Container()
    app.register(AppWide.self) { _ in AppWide() }.inObjectScope(.container)
    _ = app.resolve(AppWide.self)
    return app
}

func swinjectRequest(_ app: Swinject.Container, id: Int) -> Swinject.Container {
    let request = Swinject.Container(parent: app)
    let value = RequestValue(id: id)
    request.register(RequestValue.self) { _ in value }
    request.register(UnitOfWork.self) { r in
        UnitOfWork(request: r.resolve(RequestValue.self)!, app: r.resolve(AppWide.self)!)
    }.inObjectScope(.container)
    return request
}

/// `body(n)` timed like `measure`, for loops that await.
func measureAsync(ops: Int, repetitions: Int, _ body: (Int) async -> Void) async -> Sample {
    await body(Swift.max(ops / 5, 1))
    var values: [Double] = []
    for _ in 0..<repetitions {
        let start = now()
        await body(ops)
        let end = now()
        values.append(Double(end - start) / Double(ops))
    }
    return Sample(values: values, opsPerRep: ops)
}

extension Runner {
    /// SC1: one request from start to end: make a scope, register the
    /// request's value, resolve the `.scoped` unit of work (which needs that
    /// value and the shared dependency), close the scope.
    func sc1(_ contender: Contender) async -> Sample? {
        // A tenth of the usual operations: a request is ten resolves' worth.
        let ops = Swift.max(method.opsPerRep / 10, 1_000)
        switch contender {
        case .syringe:
            let app: Syringe.Container = scopedApp()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopSC1(app, $0) }
        case .swiftLocked, .swiftFrozen:
            guard contender == .swiftLocked else { return nil }  // a scope is written to: nothing to freeze
            let app: SyringeOnDictionary.Container = scopedApp()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopSC1(app, $0) }
        case .byHand:
            let app = AppWide()
            return await measureAsync(ops: ops, repetitions: method.repetitions) { await loopSC1(app, $0) }
        case .swinject:
            let app: Swinject.Container = scopedApp()
            let swinjectOps = calibratedOps(seconds: method.swinjectSecondsPerRep, cap: ops) { loopSC1(app, $0) }
            return measure(ops: swinjectOps, repetitions: method.repetitions) { loopSC1(app, $0) }
        case .syringeSwinject:
            return nil  // Swinject's API has no request scope
        }
    }

    /// SC2: the `.scoped` instance, already created in the scope, resolved again.
    func sc2(_ contender: Contender) -> Sample? {
        switch contender {
        case .syringe:
            let app: Syringe.Container = scopedApp()
            let scope = app.makeScope()
            scope.register(type: RequestValue.self, instance: RequestValue(id: 1))
            _ = scope.resolve(type: UnitOfWork.self)
            return time(contender) { loopSC2(scope, $0) }
        case .swiftLocked, .swiftFrozen:
            guard contender == .swiftLocked else { return nil }
            let app: SyringeOnDictionary.Container = scopedApp()
            let scope = app.makeScope()
            scope.register(type: RequestValue.self, instance: RequestValue(id: 1))
            _ = scope.resolve(type: UnitOfWork.self)
            return time(contender) { loopSC2(scope, $0) }
        case .byHand:
            return nil
        case .swinject:
            let request = swinjectRequest(scopedApp(), id: 1)
            _ = request.resolve(UnitOfWork.self)
            return time(contender) { loopSC2(request, $0) }
        case .syringeSwinject:
            return nil  // Swinject's API has no request scope
        }
    }
}

@inline(never)
func loopSC1(_ app: Syringe.Container, _ n: Int) async {
    for index in 0..<n {
        let scope = app.makeScope()
        scope.register(type: RequestValue.self, instance: RequestValue(id: index))
        blackHole(scope.resolve(type: UnitOfWork.self))
        try? await scope.close()
    }
}

@inline(never)
func loopSC1(_ app: SyringeOnDictionary.Container, _ n: Int) async {
    for index in 0..<n {
        let scope = app.makeScope()
        scope.register(type: RequestValue.self, instance: RequestValue(id: index))
        blackHole(scope.resolve(type: UnitOfWork.self))
        try? await scope.close()
    }
}

/// SC1 by hand: the request's objects made in code, as a service without a
/// container makes them per request (TodoService's hand-wired app): the
/// value, then the unit of work from it and the app's shared object;
/// nothing to close. The floor of any request scope.
@inline(never)
func loopSC1(_ app: AppWide, _ n: Int) async {
    for index in 0..<n {
        blackHole(UnitOfWork(request: RequestValue(id: index), app: app))
    }
}

@inline(never)
func loopSC1(_ app: Swinject.Container, _ n: Int) {
    for index in 0..<n {
        blackHole(swinjectRequest(app, id: index).resolve(UnitOfWork.self)!)
    }
}

@inline(never)
func loopSC2(_ scope: Syringe.Container, _ n: Int) {
    for _ in 0..<n { blackHole(scope.resolve(type: UnitOfWork.self)) }
}

@inline(never)
func loopSC2(_ scope: SyringeOnDictionary.Container, _ n: Int) {
    for _ in 0..<n { blackHole(scope.resolve(type: UnitOfWork.self)) }
}

@inline(never)
func loopSC2(_ resolver: Swinject.Resolver, _ n: Int) {
    for _ in 0..<n { blackHole(resolver.resolve(UnitOfWork.self)!) }
}
