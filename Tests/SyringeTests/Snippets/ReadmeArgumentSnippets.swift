import Syringe
import Testing

/// README "Runtime arguments, any number" and "Autoregistration".
@Suite("README: Runtime arguments, Autoregistration")
struct ReadmeArgumentSnippets {
    final class Manager: Sendable {}
    final class Numbered: Sendable {
        let integer: Int
        let manager: Manager
        init(integer: Int, manager: Manager) { self.integer = integer; self.manager = manager }
    }
    struct Endpoint: Equatable { let url: String; let port: Int; let secure: Bool }

    @Test("Runtime arguments, any number")
    func runtimeArguments() throws {
        let c = Container()
        let manager = Manager()
        c.register(type: Manager.self, dependency: manager)

        c.register(type: Numbered.self) { (r: Resolver, number: Int) in
            Numbered(integer: number, manager: try r.resolve())
        }
        c.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }

        let n = c.resolve(type: Numbered.self, arguments: 42)
        let e = try c.tryResolve(type: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
        let n2: Numbered = c.resolve(arguments: 7)

        #expect(n.integer == 42 && n.manager === manager)
        #expect(n2.integer == 7 && n2 !== n, "a registration with arguments builds a new instance on every resolve")
        #expect(e == Endpoint(url: "example.org", port: 443, secure: true))
        // The argument types, in order, are part of the key.
        expectResolutionError(.argumentMismatch(registered: ["(String, Int, Bool)"])) {
            try c.tryResolve(type: Endpoint.self, name: "tls", arguments: 443, "example.org", true)
        }
    }

    final class Dependency: Sendable {
        let manager: Manager
        init(manager: Manager) { self.manager = manager }
    }
    final class Wide: Sendable {
        let dependency: Dependency
        let count: Int
        let label: String
        let ratio: Double
        init(manager: Manager, dependency: Dependency, count: Int, label: String, ratio: Double) {
            self.dependency = dependency
            self.count = count
            self.label = label
            self.ratio = ratio
        }
    }
    protocol Clock: Sendable {}
    struct SystemClock: Clock {}
    final class Store: Sendable {}
    final class Report: Sendable {
        let title: String
        let store: Store
        init(clock: Clock, title: String, store: Store) { self.title = title; self.store = store }
    }

    @Test("Autoregistration")
    func autoregistration() throws {
        let c = Container()
        let manager = Manager()
        c.register(type: Manager.self, dependency: manager)
        c.register(type: Int.self, dependency: 3)
        c.register(type: String.self, dependency: "wide")
        c.register(type: Double.self, dependency: 0.5)
        c.register { _ in SystemClock() as Clock }
        c.register { _ in Store() }

        c.autoregister(initializer: Dependency.init)                        // each parameter resolved by type
        c.autoregister(type: Wide.self, in: .new, initializer: Wide.init)   // any number of parameters
        c.autoregister(argument: Int.self, initializer: Numbered.init)      // the first parameter is a runtime argument
        let numbered: Numbered = c.resolve(arguments: 42)
        c.autoregister(argument: String.self, at: .second, initializer: Report.init(clock:title:store:))   // or .third

        #expect(numbered.integer == 42 && numbered.manager === manager)
        let wide = c.resolve(type: Wide.self)
        #expect(wide.dependency === c.resolve(type: Dependency.self) && wide.dependency.manager === manager)
        #expect(wide.count == 3 && wide.label == "wide" && wide.ratio == 0.5)
        #expect(c.resolve(type: Wide.self) !== wide, "Wide is .new")
        let report = c.resolve(type: Report.self, arguments: "May")
        #expect(report.title == "May" && report.store === c.resolve(type: Store.self))
        // validate() checks the autoregistered initialisers from their types.
        var samples = SampleArguments()
        samples.add(for: Numbered.self, arguments: 1)
        samples.add(for: Report.self, arguments: "sample")
        let validated = try c.validate(samples: samples)
        #expect(validated.skipped.isEmpty)
        let unwired = Container()
        unwired.autoregister(initializer: Dependency.init)
        #expect(throws: ValidationError.self, "Manager is missing, and validate() says so without running the initialiser") {
            try unwired.validate()
        }
    }
}
