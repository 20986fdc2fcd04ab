import Testing
@testable import Syringe

// `dump(container)`, `po container` in LLDB and a failed `#expect` that
// prints a value holding a container all reflect it with `Mirror`. Swift
// 6.3's runtime reflection traps on some stored properties of non-copyable
// types (an optional of one), so every public value that leads to
// Syringe's internals must be reflected without reaching them.
// A trap ends the process: each check runs in one of its own (exit test).

final class ReflectedService: Sendable {}
final class ReflectedClient: Sendable {
    let service: ReflectedService
    init(service: ReflectedService) { self.service = service }
}
final class ReflectedModel: Sendable {}
final class ReflectedHolder {
    @Injected var service: ReflectedService
    @LazyInjected(name: "sync") var client: ReflectedClient
    @WeakInjected(name: "weak") var weakService: ReflectedService?
}

/// Keeps what a factory was handed, for reflecting it afterwards.
final class ResolverBox: @unchecked Sendable {
    // @unchecked: written by one factory, read after its resolve returned.
    var resolvers: [Resolver] = []
}

/// A container that has been through every kind of registration and
/// resolve, and the values a user can reach from it.
func reflectedValues() async throws -> [(String, Any)] {
    let kept = ResolverBox()
    let app = Container()
    let registration = app.register(type: ReflectedService.self) { _ in ReflectedService() }
        .onResolved { _, _ in }
        .onDispose { _ in }
    registration.implements(AnyObject.self, name: "alias")
    app.register(type: ReflectedClient.self, in: .new) { (r: Resolver) async throws in
        kept.resolvers.append(r)
        return ReflectedClient(service: try await r.resolve())
    }
    app.register(type: ReflectedClient.self, name: "sync", in: .graph) { r in
        kept.resolvers.append(r)
        return ReflectedClient(service: try r.resolve())
    }
    app.register(type: ReflectedService.self, name: "weak", in: .weak) { _ in ReflectedService() }
    app.register(type: ReflectedService.self, name: "scoped", in: .scoped) { _ in ReflectedService() }
        .onDispose { _ async in }
    app.register(type: ReflectedService.self, name: "argument") { (_: Resolver, _: Int) in ReflectedService() }
    app.register(type: ReflectedModel.self, in: .new, isolatedTo: MainActor.self) { _ in ReflectedModel() }
    app.autoregister(type: ReflectedClient.self, name: "auto", initializer: ReflectedClient.init(service:))
    _ = try app.tryResolve(type: ReflectedService.self)
    _ = try await app.resolveAsync(type: ReflectedClient.self)
    _ = try app.tryResolve(type: ReflectedClient.self, name: "sync")
    let weak = try app.tryResolve(type: ReflectedService.self, name: "weak")
    let child = Container(parent: app)
    child.register(type: ReflectedService.self, instance: ReflectedService())
    let scope = app.makeScope()
    scope.register(type: Int.self, instance: 7)
    _ = try await scope.resolveAsync(type: ReflectedService.self, name: "scoped")
    let closed = app.makeScope()
    _ = try closed.tryResolve(type: ReflectedService.self, name: "scoped")
    try await closed.close()
    let holder = Container.$shared.withValue(app) {
        let holder = ReflectedHolder()
        _ = holder.client
        return holder
    }
    // The main-actor registration fails validation off the main actor:
    // its error is reflected then.
    let report: Any
    do {
        report = try app.validate()
    } catch {
        report = error
    }
    return [
        ("container", app), ("child", child), ("scope", scope), ("closed scope", closed),
        ("registration", registration), ("resolvers", kept.resolvers), ("holder", holder),
        ("graph", app.dependencyGraph()), ("report", report), ("weak instance", weak),
    ]
}

@Suite("Reflection")
struct ReflectionTests {
    @Test("dump reflects every public value without trapping", arguments: [
        "container", "child", "scope", "closed scope", "registration", "resolvers", "holder", "graph", "report",
    ])
    func dumpDoesNotTrap(_ name: String) async {
        await #expect(processExitsWith: .success) { [name] in
            let values = try await reflectedValues()
            var text = ""
            for (label, value) in values where label == name {
                dump(value, to: &text)
            }
            if text.isEmpty {
                Issue.record("nothing named \(name)")
            }
        }
    }

    @Test("a container reflects as its registrations, its parent, and whether it is a scope and closed")
    func containerMirror() throws {
        let app = Container()
        app.register(type: ReflectedService.self) { _ in ReflectedService() }
        app.register(type: ReflectedService.self, name: "scoped", in: .scoped) { _ in ReflectedService() }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: ReflectedService.self, name: "scoped")
        let mirror = Mirror(reflecting: scope)
        let children = Dictionary(uniqueKeysWithValues: mirror.children.map { ($0.label ?? "", $0.value) })
        #expect(children["isScope"] as? Bool == true)
        #expect(children["isClosed"] as? Bool == false)
        #expect(children["registrations"] as? [String] == [])
        #expect((children["parent"] as? Container) === app)
        let appChildren = Dictionary(uniqueKeysWithValues: Mirror(reflecting: app).children.map { ($0.label ?? "", $0.value) })
        #expect(appChildren["registrations"] as? [String] == ["ReflectedService (.shared)", "ReflectedService[\"scoped\"] (.scoped)"])
    }
}
