import Testing
@testable import SyringeSwinject

// What a bug hunt found SyringeSwinject doing differently from Swinject
// 2.10.0, each checked against Swinject with the same code: these pass on
// Swinject.

private final class ParityService {
    let id = 7
}

private final class ParityViewModel {
    let service: Lazy<ParityService>
    init(service: Lazy<ParityService>) { self.service = service }
}

private final class ParityScreen {
    let service: ParityService
    let lazy: Lazy<ParityService>
    init(service: ParityService, lazy: Lazy<ParityService>) {
        self.service = service
        self.lazy = lazy
    }
}

/// A storage of a scope of the test's own, as users write them.
private final class ParityStorage: InstanceStorage {
    var instance: Any?
}

/// Counts a factory's runs.
private final class Runs: @unchecked Sendable {
    // @unchecked: used by one test's thread only.
    var count = 0
}

@Suite("SyringeSwinject as Swinject does")
struct SwinjectParityTests {
    @Test(".weak: a service registered as Any, AnyObject or an optional is made by its factory, once")
    func weakScopeWithOptionalOrAnyService() {
        let container = Container()
        let runs = Runs()
        container.register(Any.self) { _ in runs.count += 1; return ParityService() }.inObjectScope(.weak)
        let any = container.resolve(Any.self)
        #expect(any is ParityService)
        container.register(AnyObject.self) { _ in runs.count += 1; return ParityService() }.inObjectScope(.weak)
        let object = container.resolve(AnyObject.self)
        #expect(object is ParityService)
        container.register(ParityService?.self) { _ in runs.count += 1; return ParityService() }.inObjectScope(.weak)
        let optional = container.resolve(ParityService?.self)
        #expect(optional?.map(\.id) == 7)
        #expect(runs.count == 3)
        withExtendedLifetime((any, object, optional)) {}
    }

    @Test("a custom scope: a service registered as Any or an optional is made by its factory, then kept")
    func customScopeWithOptionalOrAnyService() {
        let scope = ObjectScope(storageFactory: ParityStorage.init, description: "custom")
        let container = Container()
        let runs = Runs()
        container.register(Int?.self) { _ in runs.count += 1; return 42 }.inObjectScope(scope)
        container.register(Any.self) { _ in runs.count += 1; return "any" }.inObjectScope(scope)
        #expect(container.resolve(Int?.self) == .some(.some(42)))
        #expect(container.resolve(Int?.self) == .some(.some(42)))
        #expect(container.resolve(Any.self) as? String == "any")
        #expect(container.resolve(Any.self) as? String == "any")
        #expect(runs.count == 2)
    }

    @Test("a Lazy or a Provider keeps working after the container's last other reference is gone")
    func wrappersOutliveTheirContainer() {
        func viewModel() -> ParityViewModel {
            let container = Container()
            container.register(ParityService.self) { _ in ParityService() }
            container.register(ParityViewModel.self) { r in ParityViewModel(service: r.resolve(Lazy<ParityService>.self)!) }
            return container.resolve(ParityViewModel.self)!
        }
        #expect(viewModel().service.instance.id == 7)
        func provider() -> Provider<ParityService> {
            let container = Container()
            container.register(ParityService.self) { _ in ParityService() }
            return container.resolve(Provider<ParityService>.self)!
        }
        #expect(provider().instance.id == 7)
    }

    @Test("a graph's instance is restored for its Lazy while alive, however many graphs keep theirs")
    func manyLiveGraphs() {
        // Each Lazy hands its graph's identifier out, so each graph's
        // instance is remembered while it lives; dropping the dead ones now
        // and then must never drop a live one. (Dropping them at every
        // store made these resolves take seconds: n² in all.)
        let container = Container()
        container.register(ParityService.self) { _ in ParityService() }
        container.register(ParityScreen.self) { r in
            ParityScreen(service: r.resolve(ParityService.self)!, lazy: r.resolve(Lazy<ParityService>.self)!)
        }
        let kept = (0..<5_000).map { _ in container.resolve(ParityScreen.self)! }
        #expect(kept.allSatisfy { $0.lazy.instance === $0.service })
        let scope = ObjectScope(storageFactory: GraphStorage.init, description: "graph of my own")
        container.register(ParityService.self, name: "mine") { _ in ParityService() }.inObjectScope(scope)
        container.register(ParityScreen.self, name: "mine") { r in
            ParityScreen(service: r.resolve(ParityService.self, name: "mine")!, lazy: r.resolve(Lazy<ParityService>.self, name: "mine")!)
        }
        let mine = (0..<5_000).map { _ in container.resolve(ParityScreen.self, name: "mine")! }
        #expect(mine.allSatisfy { $0.lazy.instance === $0.service })
    }
}
