import Testing
import Syringe

@Suite("Resolution errors")
struct ErrorTests {
    @Test("a missing registration names the type and the name")
    func notRegistered() throws {
        let c = Container()
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Animal.self, name: "Lion") })
        #expect(failure.name == "Lion")
        #expect(ObjectIdentifier(failure.type) == ObjectIdentifier(Animal.self))
        #expect(failure.description.contains("Animal named \"Lion\""))
    }

    @Test("dump and debuggers show the error's fields, not its storage")
    func reflection() throws {
        let c = Container()
        c.register(type: Animal.self, name: "Cat") { _ in Cat() }
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Animal.self, name: "Lion") })
        let children = Mirror(reflecting: failure).children
        #expect(children.map(\.label) == ["reason", "type", "name", "argumentTypes", "path", "suggestions", "unlistedSuggestions"])
        #expect(children.first { $0.label == "name" }?.value as? String? == "Lion")
        var dumped = ""
        dump(failure, to: &dumped)
        #expect(dumped.contains("Lion") && dumped.contains("suggestions") && !dumped.contains("storage"))
    }

    @Test("the path runs from the top-level request to the missing one")
    func pathInError() throws {
        struct ViewModel {}
        struct Screen {}
        let c = Container()
        c.register(type: ViewModel.self, in: .new) { r -> ViewModel in
            let _: Service = try r.resolve()
            return ViewModel()
        }
        c.register(type: Screen.self, in: .new) { r -> Screen in
            let _: ViewModel = try r.resolve()
            return Screen()
        }
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Screen.self) })
        #expect(failure.path == ["Screen", "ViewModel", "Service"])
        #expect(failure.description.contains("Screen → ViewModel → Service"))
        // The container is still usable afterwards.
        c.register { _ in ServiceImp() as Service }
        _ = try c.tryResolve(type: Screen.self)
    }

    @Test("near match: the same type under another name")
    func suggestsOtherName() throws {
        let c = Container()
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Animal.self, name: "cat") })
        #expect(failure.suggestions.count == 1)
        #expect(failure.suggestions.first?.contains("Animal[\"Cat\"]") == true)
    }

    @Test("a resolve whose type Swift inferred as Any says to name the type")
    func inferredAny() throws {
        func show(_ value: Any) -> Any { value }
        let c = Container()
        c.register { _ in Cat() as Animal }
        let failure = try #require(expectResolutionError(.notRegistered) { show(try c.tryResolve()) })
        #expect(failure.description.hasSuffix("Swift inferred the type from where the result goes, which takes anything: name the type, `resolve(type: Service.self)`."))
    }

    @Test("near match: an array of a registered type is its registrations, resolved with resolveAll")
    func suggestsResolveAllForAnArray() throws {
        let c = Container()
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        c.register { _ in Cat() as Animal }
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: [Animal].self) })
        #expect(failure.suggestions == ["Animal is registered: all its registrations, as an array, are `resolveAll(type: Animal.self)`"])
    }

    final class Session: Sendable {}

    @Test("near match: a key a child hides in its parent, or a scope copied, is suggested once")
    func suggestionsAreNotRepeated() throws {
        let app = Container()
        app.register(type: String.self, name: "n") { _ in "app" }
        let child = Container(parent: app)
        child.register(type: String.self, name: "n") { _ in "child" }
        let hidden = try #require(expectResolutionError(.notRegistered) { try child.tryResolve(type: String.self) })
        #expect(hidden.suggestions == ["String[\"n\"], registered under another name"])

        app.register(type: Session.self, name: "s", in: .scoped) { _ in Session() }
        let scope = app.makeScope()
        _ = try scope.tryResolve(type: Session.self, name: "s")
        let copied = try #require(expectResolutionError(.notRegistered) { try scope.tryResolve(type: Session.self) })
        #expect(copied.suggestions == ["Session[\"s\"], registered under another name"])
    }

    @Test("near match: the same type under another name and with other arguments")
    func suggestsOtherNameAndArguments() throws {
        let c = Container()
        c.register(type: Session.self, name: "x") { (_: Resolver, _: Int) in Session() }
        let bare = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Session.self) })
        #expect(bare.suggestions == ["Session[\"x\"](Int), registered under another name and with other runtime arguments"])
        let other = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Session.self, arguments: "s") })
        #expect(other.suggestions.count == 1)
    }

    enum Billing { struct Config: Sendable {} }
    enum Shipping { struct Config: Sendable {} }

    @Test("argument types that print alike are written out whole")
    func argumentTypesThatPrintAlike() throws {
        let c = Container()
        c.register(type: Int.self) { (_: Resolver, _: Billing.Config) in 1 }
        let failure = try #require(expectResolutionError(.argumentMismatch(registered: ["(SyringeTests.ErrorTests.Billing.Config)"])) {
            try c.tryResolve(type: Int.self, arguments: Shipping.Config())
        })
        #expect(failure.argumentTypes == ["SyringeTests.ErrorTests.Shipping.Config"])
        #expect(failure.description.contains("(SyringeTests.ErrorTests.Shipping.Config): it is registered with other runtime arguments: (SyringeTests.ErrorTests.Billing.Config)"))
        // Types that print differently stay short.
        let short = try #require(expectResolutionError(.argumentMismatch(registered: ["(Config)"])) {
            try c.tryResolve(type: Int.self, arguments: "a string")
        })
        #expect(short.argumentTypes == ["String"])
    }

    @Test("near match: the same name under another type")
    func suggestsOtherType() throws {
        let c = Container()
        c.register(type: Cat.self, name: "Cat", dependency: Cat())
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Animal.self, name: "Cat") })
        #expect(failure.suggestions.contains { $0.contains("Cat[\"Cat\"]") && $0.contains("another type") })
    }

    @Test("near match: T? registered, T asked, and the reverse")
    func suggestsOptional() throws {
        let c = Container()
        c.register(type: Int?.self, dependency: 1)
        c.register(type: String.self, dependency: "s")
        let asksInt = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self) })
        #expect(asksInt.suggestions.first?.contains("Optional") == true)
        let asksOptionalString = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: String?.self) })
        #expect(asksOptionalString.suggestions.first?.contains("non-optional") == true)
    }

    @Test("near match: a concrete type registered where a protocol is asked")
    func suggestsConcreteType() throws {
        let c = Container()
        c.register { _ in ServiceImp() }
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Service.self) })
        #expect(failure.suggestions.first?.contains("ServiceImp") == true)
        #expect(failure.suggestions.first?.contains(".implements(Service.self)") == true)
        // Once the concrete instance exists, its conformance is checked, not guessed.
        _ = c.resolve(type: ServiceImp.self)
        let again = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Service.self) })
        #expect(again.suggestions.first?.contains("whose instance is a") == true)
    }

    @Test("suggestions stop at five, with a count of the rest")
    func boundedSuggestions() throws {
        let c = Container()
        for index in 0..<1_000 {
            c.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: "x") })
        #expect(failure.suggestions.count == 5)
        #expect(failure.unlistedSuggestions == 995)
        #expect(failure.description.hasSuffix("\n    … and 995 more"))
        #expect(failure.description.count < 1_000)
    }

    @Test("a factory's own error is wrapped with the path")
    func factoryFailed() throws {
        struct Outer {}
        let c = Container()
        c.register(type: Int.self, in: .new) { _ -> Int in throw Failure(code: 7) }
        c.register(type: Outer.self, in: .new) { r -> Outer in
            let _: Int = try r.resolve()
            return Outer()
        }
        let failure = try #require(expectResolutionError(.factoryFailed(Failure(code: 7))) { try c.tryResolve(type: Outer.self) })
        #expect(failure.path == ["Outer", "Int"])
        #expect(ObjectIdentifier(failure.type) == ObjectIdentifier(Int.self))
    }

    @Test("a constructor cycle is reported with its path and leaves the container usable",
          arguments: [Scope.new, .shared, .graph, .weak])
    func constructorCycle(_ scope: Scope) throws {
        final class A { init(_ b: AnyObject) {} }
        final class B { init(_ a: A) {} }
        let c = Container()
        c.register(type: A.self, in: scope) { r in A(try r.resolve(type: B.self)) }
        c.register(type: B.self, in: scope) { r in B(try r.resolve(type: A.self)) }
        let failure = try #require(expectResolutionError(.cycle) { try c.tryResolve(type: A.self) })
        #expect(failure.path == ["A", "B", "A"])
        // Break the cycle and resolve again from the same container.
        c.register(type: B.self, in: scope) { _ in B(A(NSObjectLike())) }
        _ = try c.tryResolve(type: A.self)
    }

    @Test("a cycle below the outermost resolve is reported with its path",
          arguments: [Scope.new, .shared, .graph, .weak])
    func innerCycle(_ scope: Scope) throws {
        final class Root { init(_ a: AnyObject) {} }
        final class A { init(_ b: AnyObject) {} }
        final class B { init(_ a: AnyObject) {} }
        let c = Container()
        c.register(type: Root.self, in: scope) { r in Root(try r.resolve(type: A.self)) }
        c.register(type: A.self, in: scope) { r in A(try r.resolve(type: B.self)) }
        c.register(type: B.self, in: scope) { r in B(try r.resolve(type: A.self)) }
        let failure = try #require(expectResolutionError(.cycle) { try c.tryResolve(type: Root.self) })
        #expect(failure.path == ["Root", "A", "B", "A"])
        c.register(type: B.self, in: scope) { _ in B(NSObjectLike()) }
        _ = try c.tryResolve(type: Root.self)
    }

    @Test("a factory with arguments may resolve itself with other arguments")
    func argumentRecursion() throws {
        final class Node: Sendable {
            let child: Node?
            init(child: Node?) { self.child = child }
            var depth: Int { 1 + (child?.depth ?? 0) }
        }
        let c = Container()
        c.register(type: Node.self) { (r: Resolver, depth: Int) in
            Node(child: depth > 1 ? try r.resolve(type: Node.self, arguments: depth - 1) : nil)
        }
        #expect(try c.tryResolve(type: Node.self, arguments: 20).depth == 20)
    }

    @Test("argument recursion that never stops is a cycle error, not a stack overflow")
    func runawayArgumentRecursion() throws {
        struct Loop {}
        let c = Container()
        c.register(type: Loop.self) { (r: Resolver, step: Int) in
            try r.resolve(type: Loop.self, arguments: step + 1)
        }
        let failure = try #require(expectResolutionError(.cycle) { try c.tryResolve(type: Loop.self, arguments: 0) })
        #expect(failure.path.count == 257)
        c.register(type: Int.self, dependency: 1)
        #expect(try c.tryResolve(type: Int.self) == 1, "the container is usable afterwards")
    }

    @Test("descriptions of huge names stay bounded")
    func hugeName() throws {
        let c = Container()
        let name = String(repeating: "x", count: 1 << 20)
        let failure = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: name) })
        #expect(failure.description.utf8.count < 1_000)
        #expect(failure.name == name, "the error keeps the full name itself")
    }
}

private final class NSObjectLike {}
