import Syringe
import Testing

/// The Swift snippets of `Syringe.docc/RuntimeArgumentsAndAutoregistration.md`.
/// Registering and resolving with arguments, and autoregistering without
/// one, are the README's blocks, run by its suite; the rest is here.
@Suite("Guide: Runtime Arguments and Autoregistration")
struct DoccArgumentSnippets {
    final class Manager: Sendable {}
    final class Numbered: Sendable {
        let integer: Int
        let manager: Manager
        init(integer: Int, manager: Manager) { self.integer = integer; self.manager = manager }
    }
    struct Endpoint: Equatable, Sendable { let url: String; let port: Int; let secure: Bool }
    struct Pipeline { let endpoint: Endpoint }

    static func registerEndpoint(into c: Container) {
        c.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }
    }

    @Test("A factory resolves a dependency that takes arguments; isRegistered(argumentTypes:)")
    func resolveWithArgumentsInAFactory() {
        let container = Container()
        Self.registerEndpoint(into: container)

        let values = doccStatementValues {
            container.register(type: Pipeline.self, in: .new) { r in
                Pipeline(endpoint: try r.resolve(type: Endpoint.self, name: "tls", arguments: "inner", 1, false))
            }
            container.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: String.self, Int.self, Bool.self)
        }

        #expect(values.compactMap { $0 as? Bool } == [true])
        #expect(container.resolve(type: Pipeline.self).endpoint == Endpoint(url: "inner", port: 1, secure: false))
        #expect(!container.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: Int.self, String.self, Bool.self),
                "the argument types, in order, are part of the key")
        #expect(!container.isRegistered(type: Endpoint.self, name: "tls"), "nor is it registered without arguments")
    }

    protocol Clock: Sendable {}
    struct SystemClock: Clock {}
    final class Store: Sendable {}
    final class Report: Sendable {
        let title: String
        let store: Store
        init(clock: Clock, title: String, store: Store) { self.title = title; self.store = store }
    }
    final class Stamp: Sendable {
        let label: String
        init(clock: Clock, store: Store, label: String) { self.label = label }
    }

    @Test("Autoregister an initialiser that takes a runtime argument")
    func autoregisterWithAnArgument() {
        let c = Container()
        let manager = Manager()
        c.register(type: Manager.self, dependency: manager)
        c.register { _ in SystemClock() as Clock }
        c.register { _ in Store() }

        c.autoregister(argument: Int.self, initializer: Numbered.init)      // the first parameter is a runtime argument
        let numbered: Numbered = c.resolve(arguments: 42)

        c.autoregister(argument: String.self, at: .second, initializer: Report.init(clock:title:store:))   // or at: .third
        let report: Report = c.resolve(arguments: "Q3")

        #expect(numbered.integer == 42 && numbered.manager === manager)
        #expect(report.title == "Q3" && report.store === c.resolve(type: Store.self))
        #expect(c.resolve(type: Numbered.self, arguments: 42) !== numbered, "each resolve builds a new instance")
        #expect(c.resolve(type: Report.self, arguments: "Q3") !== report)
        // The third parameter.
        c.autoregister(argument: String.self, at: .third, initializer: Stamp.init(clock:store:label:))
        #expect(c.resolve(type: Stamp.self, arguments: "third").label == "third")
    }

    @Test("Validate registrations that take arguments: sample arguments")
    func validateWithSamples() throws {
        let app = Container()
        Self.registerEndpoint(into: app)

        var samples = SampleArguments()
        samples.add(for: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
        try app.validate(samples: samples)

        let report = try app.validate(samples: samples)
        #expect(report.validated.count == 1 && report.skipped.isEmpty, "\(report)")
        // Without the sample, the registration is listed as not validated.
        let unsampled = try app.validate()
        #expect(unsampled.validated.isEmpty)
        #expect(unsampled.skipped.map(\.reason) == [.runtimeArguments])
    }

    @Test("validate() checks an autoregistered initialiser's parameters from their types, without running it")
    func validateAutoregistered() {
        let c = Container()
        c.autoregister(argument: Int.self, initializer: Numbered.init)   // Manager is missing
        let error = #expect(throws: ValidationError.self) { try c.validate() }
        #expect(error?.problems.map(\.path) == [["Numbered(Int)", "Manager"]], "\(String(describing: error))")
    }
}
