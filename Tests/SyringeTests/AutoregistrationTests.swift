import Testing
import Syringe

@Suite("Autoregistration")
struct AutoregistrationTests {
    // MARK: Fixtures (nested so their names cannot clash with other files)

    fileprivate final class Manager: Sendable {
        let counter: Counter?
        let tracked: Tracked?
        init() { counter = nil; tracked = nil }
        init(counter: Counter) { self.counter = counter; tracked = Tracked(counter) }
    }

    fileprivate protocol Managed: AnyObject {
        var manager: Manager { get }
    }

    fileprivate final class Dependency: Managed {
        let manager: Manager
        init(manager: Manager) { self.manager = manager }
    }

    fileprivate final class Wide {
        let manager: Manager
        let count: Int
        let title: String
        let ratio: Double
        let enabled: Bool
        init(manager: Manager, count: Int, title: String, ratio: Double, enabled: Bool) {
            self.manager = manager
            self.count = count
            self.title = title
            self.ratio = ratio
            self.enabled = enabled
        }
    }

    fileprivate final class Numbered {
        let integer: Int
        let manager: Manager
        init(integer: Int, manager: Manager) {
            self.integer = integer
            self.manager = manager
        }
    }

    fileprivate final class Greeting {
        let text: String
        init(text: String) { self.text = text }
    }

    /// Registers the five dependencies of `Wide`.
    private func registerWideDependencies(_ c: Container) {
        c.register(type: Manager.self) { _ in Manager() }
        c.register(type: Int.self, dependency: 5)
        c.register(type: String.self, dependency: "five")
        c.register(type: Double.self, dependency: 0.5)
        c.register(type: Bool.self, dependency: true)
    }

    // MARK: Tests

    @Test("each initializer parameter is resolved by type")
    func resolvesParametersByType() throws {
        let c = Container()
        c.register(type: Manager.self) { _ in Manager() }
        c.autoregister(initializer: Dependency.init)
        let dependency = try c.tryResolve(type: Dependency.self)
        #expect(dependency.manager === c.resolve(type: Manager.self))
    }

    @Test("an initializer without parameters")
    func noParameters() throws {
        let c = Container()
        c.autoregister(type: Manager.self, initializer: { Manager() })
        #expect(c.isRegistered(type: Manager.self))
        _ = try c.tryResolve(type: Manager.self)
    }

    @Test("five parameters, each of its own type")
    func fiveParameters() throws {
        let c = Container()
        registerWideDependencies(c)
        c.autoregister(type: Wide.self, in: .new, initializer: Wide.init)
        let wide = try c.tryResolve(type: Wide.self)
        #expect(wide.manager === c.resolve(type: Manager.self))
        #expect(wide.count == 5)
        #expect(wide.title == "five")
        #expect(wide.ratio == 0.5)
        #expect(wide.enabled)
    }

    @Test("the scope is .shared by default")
    func sharedByDefault() {
        let c = Container()
        let counter = Counter()
        c.register(type: Manager.self, in: .new) { _ in Manager(counter: counter) }
        c.autoregister(initializer: Dependency.init)
        let first = c.resolve(type: Dependency.self)
        let second = c.resolve(type: Dependency.self)
        #expect(first === second)
        #expect(counter.created == 1, "the initializer ran once")
    }

    @Test("the scope given is honoured", arguments: [Scope.new, .shared, .graph, .weak])
    func scopeHonoured(_ scope: Scope) {
        let c = Container()
        let counter = Counter()
        c.register(type: Manager.self, in: .new) { _ in Manager(counter: counter) }
        c.autoregister(type: Dependency.self, in: scope, initializer: Dependency.init)
        let first = c.resolve(type: Dependency.self)
        let second = c.resolve(type: Dependency.self)
        // Two top-level resolves: only .shared and .weak (held by `first`) share.
        switch scope {
        case .new, .graph:
            #expect(first !== second)
            #expect(counter.created == 2)
        case .shared, .weak:
            #expect(first === second)
            #expect(counter.created == 1)
        case .scoped:
            Issue.record("not one of this test's arguments: RequestScopeTests covers .scoped")
        }
    }

    @Test(".graph autoregistration is shared within one object graph")
    func graphWithinGraph() throws {
        let c = Container()
        c.register(type: Manager.self, in: .new) { _ in Manager() }
        c.autoregister(type: Dependency.self, in: .graph, initializer: Dependency.init)
        c.autoregister(type: Pair<Dependency>.self, in: .new, initializer: Pair.init)
        let pair = try c.tryResolve(type: Pair<Dependency>.self)
        #expect(pair.first === pair.second)
    }

    @Test("a missing dependency names its type and the path to it",
          arguments: ["Manager", "Int", "String", "Double", "Bool"])
    func missingDependency(_ name: String) throws {
        let c = Container()
        registerWideDependencies(c)
        c.autoregister(type: Wide.self, in: .new, initializer: Wide.init)
        let removed: Any.Type
        switch name {
        case "Manager": c.remove(type: Manager.self); removed = Manager.self
        case "Int": c.remove(type: Int.self); removed = Int.self
        case "String": c.remove(type: String.self); removed = String.self
        case "Double": c.remove(type: Double.self); removed = Double.self
        default: c.remove(type: Bool.self); removed = Bool.self
        }
        // Everything else is still there.
        #expect(c.isRegistered(type: Wide.self))
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Wide.self) })
        #expect(failure.path == ["Wide", name])
        #expect(ObjectIdentifier(failure.type) == ObjectIdentifier(removed))
        #expect(failure.description.contains("could not resolve \(name):"))
        #expect(failure.description.contains("Wide → \(name)"))
    }

    @Test("a missing dependency two levels down has the whole path")
    func missingDeepDependency() throws {
        final class Screen {
            let dependency: Dependency
            init(dependency: Dependency) { self.dependency = dependency }
        }
        let c = Container()
        c.autoregister(initializer: Dependency.init)
        c.autoregister(type: Screen.self, in: .new, initializer: Screen.init)
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Screen.self) })
        #expect(failure.path == ["Screen", "Dependency", "Manager"])
        #expect(ObjectIdentifier(failure.type) == ObjectIdentifier(Manager.self))
    }

    @Test("a throwing initializer reports factoryFailed")
    func throwingInitializer() throws {
        struct Fragile {
            init(manager: Manager) throws { throw Failure(code: 11) }
        }
        let c = Container()
        c.register(type: Manager.self) { _ in Manager() }
        c.autoregister(type: Fragile.self, in: .new, initializer: Fragile.init)
        expectResolutionError(.factoryFailed(Failure(code: 11))) { try c.tryResolve(type: Fragile.self) }
    }

    @Test("named autoregistrations are separate registrations")
    func namedAutoregistration() throws {
        let c = Container()
        c.register(type: String.self, dependency: "hello")
        c.autoregister(type: Greeting.self, name: "a", initializer: Greeting.init)
        c.autoregister(type: Greeting.self, name: "b", initializer: Greeting.init)
        #expect(c.isRegistered(type: Greeting.self, name: "a"))
        #expect(!c.isRegistered(type: Greeting.self))
        let a = try c.tryResolve(type: Greeting.self, name: "a")
        let b = try c.tryResolve(type: Greeting.self, name: "b")
        #expect(a.text == "hello")
        #expect(a !== b)
        #expect(a === c.resolve(type: Greeting.self, name: "a"))
    }

    @Test("a runtime argument as the first parameter, the rest by type")
    func argumentAutoregistration() throws {
        let c = Container()
        c.register(type: Manager.self) { _ in Manager() }
        c.autoregister(argument: Int.self, initializer: Numbered.init)
        let n: Numbered = c.resolve(arguments: 42)
        #expect(n.integer == 42)
        #expect(n.manager === c.resolve(type: Manager.self))
        #expect(c.isRegistered(type: Numbered.self, argumentTypes: Int.self))
        #expect(!c.isRegistered(type: Numbered.self), "not registered without arguments")
        let again = try c.tryResolve(type: Numbered.self, arguments: 42)
        #expect(again !== n, "every resolve builds a new instance")
    }

    @Test("named argument autoregistration and its missing dependency")
    func namedArgumentAutoregistration() throws {
        let c = Container()
        c.autoregister(type: Numbered.self, name: "n", argument: Int.self, initializer: Numbered.init)
        #expect(c.isRegistered(type: Numbered.self, name: "n", argumentTypes: Int.self))
        let failure = try #require(expectResolutionError(.notRegistered) {
            try c.tryResolve(type: Numbered.self, name: "n", arguments: 1)
        })
        #expect(failure.path == ["Numbered[\"n\"](Int)", "Manager"])
        c.register(type: Manager.self) { _ in Manager() }
        #expect(try c.tryResolve(type: Numbered.self, name: "n", arguments: 3).integer == 3)
    }

    @Test("an argument autoregistration with the argument only")
    func argumentOnly() throws {
        let c = Container()
        c.autoregister(argument: String.self, initializer: Greeting.init)
        #expect(try c.tryResolve(type: Greeting.self, arguments: "hi").text == "hi")
    }

    @Test("autoregister returns a Registration that takes implements and onResolved")
    func registrationChaining() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Manager.self) { _ in Manager() }
        c.autoregister(initializer: Dependency.init)
            .implements(Managed.self)
            .onResolved { (_: Resolver, dependency: Dependency) in _ = Tracked(counter) }
        let dependency = try c.tryResolve(type: Dependency.self)
        let managed = try c.tryResolve(type: Managed.self)
        #expect(managed === dependency)
        #expect(counter.created == 1, "onResolved ran once for the shared instance")
    }
}

private final class ArgClock: Sendable {}
private final class ArgStore: Sendable {}
private final class ArgReport: Sendable {
    let title: String
    let clock: ArgClock
    let store: ArgStore
    init(clock: ArgClock, title: String, store: ArgStore) {
        self.clock = clock
        self.title = title
        self.store = store
    }
    init(clock: ArgClock, store: ArgStore, title: String) {
        self.clock = clock
        self.store = store
        self.title = title
    }
}

@Suite struct AutoregistrationArgumentPositionTests {
    @Test func theRuntimeArgumentMayBeTheSecondOrThirdParameter() throws {
        let container = Container()
        let clock = ArgClock(), store = ArgStore()
        container.register(type: ArgClock.self, dependency: clock)
        container.register(type: ArgStore.self, dependency: store)
        container.autoregister(name: "second", argument: String.self, at: .second, initializer: ArgReport.init(clock:title:store:))
        container.autoregister(name: "third", argument: String.self, at: .third, initializer: ArgReport.init(clock:store:title:))
        let second = try container.tryResolve(type: ArgReport.self, name: "second", arguments: "Q2")
        let third = try container.tryResolve(type: ArgReport.self, name: "third", arguments: "Q3")
        #expect(second.title == "Q2" && second.clock === clock && second.store === store)
        #expect(third.title == "Q3" && third.clock === clock && third.store === store)
        // Validation checks their parameters without running them.
        let report = try container.validate()
        #expect(report.validated.contains("ArgReport[\"second\"](String)"))
    }

    /// Without `at:`, the argument is the first parameter even when a later
    /// one has its type (the positional forms must not make this ambiguous).
    @Test func withoutAPositionTheArgumentIsTheFirstParameter() throws {
        final class Greeting: Sendable {
            let text: String
            init(salutation: String, name: String) { text = "\(salutation), \(name)" }
        }
        let container = Container()
        container.register(type: String.self, dependency: "Ada")
        container.autoregister(argument: String.self, initializer: Greeting.init(salutation:name:))
        #expect(try container.tryResolve(type: Greeting.self, arguments: "Hello").text == "Hello, Ada")
    }
}
