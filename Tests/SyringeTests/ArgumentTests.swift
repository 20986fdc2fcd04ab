import Synchronization
import Testing
import Syringe

@Suite("Runtime arguments")
struct ArgumentTests {
    // MARK: Fixtures (nested so their names cannot clash with other files)

    fileprivate final class Manager: Sendable {}

    fileprivate final class Numbered {
        let integer: Int
        let manager: Manager
        init(integer: Int, manager: Manager) {
            self.integer = integer
            self.manager = manager
        }
    }

    fileprivate struct Endpoint: Equatable {
        let url: String
        let port: Int
        let secure: Bool
    }

    fileprivate struct Label: Equatable {
        let text: String
    }

    fileprivate struct Point: Equatable, Sendable {
        let x: Int
        let y: Int
    }

    fileprivate struct Tagged<Value: Equatable & Sendable>: Equatable, Sendable {
        let value: Value
    }

    fileprivate final class Handle: Sendable {}

    // MARK: Registering and resolving with arguments

    @Test("one argument: the factory receives it and resolves the rest")
    func oneArgument() throws {
        let c = Container()
        c.register(type: Manager.self) { _ in Manager() }
        c.register(type: Numbered.self) { (r: Resolver, number: Int) in
            Numbered(integer: number, manager: try r.resolve())
        }
        let n = c.resolve(type: Numbered.self, arguments: 42)
        #expect(n.integer == 42)
        #expect(n.manager === c.resolve(type: Manager.self))
        let n2: Numbered = c.resolve(arguments: 7)
        #expect(n2.integer == 7)
        let n3 = try c.tryResolve(type: Numbered.self, arguments: -1)
        #expect(n3.integer == -1)
    }

    @Test("generic code whose argument pack is empty registers and resolves a registration without arguments")
    func emptyPack() throws {
        func registerLabel<each A>(in c: Container, _ make: @escaping @Sendable (Resolver, repeat each A) throws -> Label) {
            c.register(type: Label.self, factory: make)
        }
        func resolveLabel<each A>(from c: Container, _ arguments: repeat each A) throws -> Label {
            try c.tryResolve(type: Label.self, arguments: repeat each arguments)
        }
        let c = Container()
        registerLabel(in: c) { (_: Resolver) in Label(text: "none") }
        #expect(c.isRegistered(type: Label.self))
        #expect(try c.tryResolve(type: Label.self) == Label(text: "none"))
        #expect(try resolveLabel(from: c) == Label(text: "none"))
        #expect(try c.validate().skipped.isEmpty)
        // And a registration made the ordinary way is found by an empty pack.
        let d = Container()
        d.register(type: Label.self) { _ in Label(text: "plain") }
        #expect(try resolveLabel(from: d) == Label(text: "plain"))
    }

    @Test("three named arguments, resolved with tryResolve")
    func threeNamedArguments() throws {
        let c = Container()
        c.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }
        let endpoint = try c.tryResolve(type: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
        #expect(endpoint == Endpoint(url: "example.org", port: 443, secure: true))
        let other = c.resolve(type: Endpoint.self, name: "tls", arguments: "localhost", 8080, false)
        #expect(other == Endpoint(url: "localhost", port: 8080, secure: false))
        // The name is part of the key too.
        #expect(!c.isRegistered(type: Endpoint.self, argumentTypes: String.self, Int.self, Bool.self))
        expectResolutionError(.notRegistered) { try c.tryResolve(type: Endpoint.self, arguments: "example.org", 443, true) }
    }

    @Test("a factory resolves an argument registration through its resolver")
    func argumentsInsideFactory() throws {
        struct Client { let endpoint: Endpoint }
        let c = Container()
        c.register(type: Endpoint.self) { (_: Resolver, url: String, port: Int) in
            Endpoint(url: url, port: port, secure: false)
        }
        c.register(type: Client.self, in: .new) { r in
            Client(endpoint: try r.resolve(type: Endpoint.self, arguments: "inner", 1))
        }
        let client = try c.tryResolve(type: Client.self)
        #expect(client.endpoint == Endpoint(url: "inner", port: 1, secure: false))
    }

    @Test("argument order is part of the key: (String, Int) and (Int, String) are different factories")
    func orderIsPartOfKey() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, s: String, i: Int) in Label(text: "SI \(s) \(i)") }
        c.register(type: Label.self) { (_: Resolver, i: Int, s: String) in Label(text: "IS \(i) \(s)") }
        #expect(try c.tryResolve(type: Label.self, arguments: "a", 1) == Label(text: "SI a 1"))
        #expect(try c.tryResolve(type: Label.self, arguments: 2, "b") == Label(text: "IS 2 b"))
        // Both keys live side by side; removing neither by accident.
        #expect(c.isRegistered(type: Label.self, argumentTypes: String.self, Int.self))
        #expect(c.isRegistered(type: Label.self, argumentTypes: Int.self, String.self))
    }

    @Test("arity is part of the key as well")
    func arityIsPartOfKey() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, a: Int) in Label(text: "one \(a)") }
        c.register(type: Label.self) { (_: Resolver, a: Int, b: Int) in Label(text: "two \(a) \(b)") }
        c.register(type: Label.self) { (_: Resolver, a: Int, b: Int, d: Int) in Label(text: "three \(a) \(b) \(d)") }
        #expect(try c.tryResolve(type: Label.self, arguments: 1) == Label(text: "one 1"))
        #expect(try c.tryResolve(type: Label.self, arguments: 1, 2) == Label(text: "two 1 2"))
        #expect(try c.tryResolve(type: Label.self, arguments: 1, 2, 3) == Label(text: "three 1 2 3"))
    }

    @Test("a registration with arguments builds a new instance on every resolve")
    func newInstancePerResolve() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { (_: Resolver, _: Int) in Tracked(counter) }
        let a = c.resolve(type: Tracked.self, arguments: 1)
        let b = c.resolve(type: Tracked.self, arguments: 1)
        #expect(a !== b)
        #expect(counter.created == 2)
    }

    @Test("a registration with arguments is new even inside one object graph")
    func newInsideGraph() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self) { (_: Resolver, _: String) in Tracked(counter) }
        c.register(type: Pair<Tracked>.self, in: .new) { r in
            Pair(first: try r.resolve(arguments: "x"), second: try r.resolve(arguments: "x"))
        }
        let pair = try c.tryResolve(type: Pair<Tracked>.self)
        #expect(pair.first !== pair.second)
        #expect(counter.created == 2)
    }

    // MARK: Mismatches

    @Test("wrong argument types throw argumentMismatch listing the registered signature", arguments: [
        "wrong order", "wrong type", "too few", "too many", "none",
    ])
    func wrongArguments(_ kind: String) throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, s: String, i: Int) in Label(text: "\(s)\(i)") }
        let thrown = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, Int)"])) {
            switch kind {
            case "wrong order": try c.tryResolve(type: Label.self, arguments: 1, "a")
            case "wrong type": try c.tryResolve(type: Label.self, arguments: "a", 1.5)
            case "too few": try c.tryResolve(type: Label.self, arguments: "a")
            case "too many": try c.tryResolve(type: Label.self, arguments: "a", 1, true)
            default: try c.tryResolve(type: Label.self)
            }
        })
        #expect(thrown.description.contains("(String, Int)"))
        #expect(thrown.description.contains("other runtime arguments"))
        #expect(ObjectIdentifier(thrown.type) == ObjectIdentifier(Label.self))
    }

    @Test("a registration without arguments, asked with some, is said to take none")
    func mismatchWithoutArguments() throws {
        let c = Container()
        c.register(type: Label.self) { _ in Label(text: "plain") }
        let thrown = try #require(expectResolutionError(.argumentMismatch(registered: ["()"])) {
            try c.tryResolve(type: Label.self, arguments: 7)
        })
        #expect(thrown.description.hasSuffix("it is registered without runtime arguments."))

        c.register(type: Label.self) { (_: Resolver, s: String) in Label(text: s) }
        let both = try #require(expectResolutionError(.argumentMismatch(registered: ["()", "(String)"])) {
            try c.tryResolve(type: Label.self, arguments: 7)
        })
        #expect(both.description.hasSuffix("it is registered with other runtime arguments: (String), and without any."))
    }

    @Test("a mismatch says what the usual slips were: no arguments, a tuple as one argument, a literal of the default number type")
    func mismatchHints() throws {
        struct Endpoint { let host: String; let port: UInt16 }
        let c = Container()
        c.register(type: Endpoint.self) { (_: Resolver, host: String, port: UInt16) in Endpoint(host: host, port: port) }
        let none = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, UInt16)"])) {
            try c.tryResolve(type: Endpoint.self)
        })
        #expect(none.description.hasSuffix("(String, UInt16). Pass them: `resolve(type: …, arguments: …)`."))
        let tuple = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, UInt16)"])) {
            try c.tryResolve(type: Endpoint.self, arguments: ("example.org", UInt16(443)))
        })
        #expect(tuple.description.hasSuffix("Pass the arguments one by one, not as one tuple."))
        let literal = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, UInt16)"])) {
            try c.tryResolve(type: Endpoint.self, arguments: "example.org", 443)
        })
        #expect(literal.description.hasSuffix("write `UInt16(…)`."))
        let other = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, UInt16)"])) {
            try c.tryResolve(type: Endpoint.self, arguments: "example.org", "443")
        })
        #expect(other.description.hasSuffix("other runtime arguments: (String, UInt16)."))
    }

    @Test("the mismatch error records the request's own argument types")
    func mismatchRecordsRequest() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, s: String, i: Int) in Label(text: "\(s)\(i)") }
        let thrown = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, Int)"])) {
            try c.tryResolve(type: Label.self, arguments: 1, "a")
        })
        #expect(thrown.argumentTypes == ["Int", "String"])
        #expect(thrown.request == "Label with arguments (Int, String)")
    }

    @Test("every registered signature of the type and name is listed")
    func mismatchListsAllSignatures() throws {
        let c = Container()
        c.register(type: Label.self, name: "x") { (_: Resolver, s: String, i: Int) in Label(text: "\(s)\(i)") }
        c.register(type: Label.self, name: "x") { (_: Resolver, b: Bool) in Label(text: "\(b)") }
        // Another name and another type: not part of the list.
        c.register(type: Label.self, name: "y") { (_: Resolver, d: Double) in Label(text: "\(d)") }
        c.register(type: Endpoint.self, name: "x") { (_: Resolver, d: Double) in Endpoint(url: "\(d)", port: 0, secure: false) }
        let thrown = try #require(expectResolutionError(.argumentMismatch(registered: ["(String, Int)", "(Bool)"])) {
            try c.tryResolve(type: Label.self, name: "x", arguments: 1)
        })
        #expect(thrown.description.contains("(String, Int)"))
        #expect(thrown.description.contains("(Bool)"))
    }

    @Test("a request with arguments for a type registered without them is a mismatch")
    func argumentsForPlainRegistration() throws {
        let c = Container()
        c.register(type: Label.self) { _ in Label(text: "plain") }
        expectResolutionError(.argumentMismatch(registered: ["()"])) { try c.tryResolve(type: Label.self, arguments: 1) }
    }

    @Test("a mismatch lists the signatures registered in a parent")
    func mismatchThroughParent() throws {
        let parent = Container()
        parent.register(type: Label.self) { (_: Resolver, s: String, i: Int) in Label(text: "\(s)\(i)") }
        let child = Container(parent: parent)
        expectResolutionError(.argumentMismatch(registered: ["(String, Int)"])) { try child.tryResolve(type: Label.self, arguments: 1.5) }
    }

    @Test("nothing registered at all is .notRegistered, not a mismatch")
    func notRegisteredWithArguments() throws {
        let c = Container()
        let thrown = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Label.self, arguments: "a", 1) })
        #expect(thrown.description.contains("Label with arguments (String, Int)"))
    }

    // MARK: Argument shapes

    @Test("seven arguments of seven types")
    func manyArguments() throws {
        let c = Container()
        c.register(type: String.self) {
            (_: Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: UInt64, g: Character) in
            "\(a)|\(b)|\(c)|\(d)|\(e)|\(f)|\(g)"
        }
        let text = try c.tryResolve(type: String.self, arguments: 1, "two", 3.5, true, Int8(-5), UInt64.max, Character("z"))
        #expect(text == "1|two|3.5|true|-5|\(UInt64.max)|z")
        #expect(c.isRegistered(type: String.self, argumentTypes: Int.self, String.self, Double.self, Bool.self,
                               Int8.self, UInt64.self, Character.self))
        // The same seven in another order is another key.
        expectResolutionError(.argumentMismatch(registered: ["(Int, String, Double, Bool, Int8, UInt64, Character)"])) {
            try c.tryResolve(type: String.self, arguments: "two", 1, 3.5, true, Int8(-5), UInt64.max, Character("z"))
        }
    }

    @Test("struct, generic, collection and class arguments pass through intact")
    func structuredArguments() throws {
        let c = Container()
        let handle = Handle()
        c.register(type: Label.self) {
            (_: Resolver, p: Point, t: Tagged<String>, list: [Int], map: [String: Point], h: Handle, pair: (Int, String)) in
            Label(text: "\(p.x),\(p.y) \(t.value) \(list) \(map["k"]!.y) \(ObjectIdentifier(h) == ObjectIdentifier(handle)) \(pair.0)\(pair.1)")
        }
        let label = try c.tryResolve(type: Label.self, arguments:
            Point(x: 1, y: 2), Tagged(value: "tag"), [3, 4], ["k": Point(x: 0, y: 9)], handle, (5, "six"))
        #expect(label == Label(text: "1,2 tag [3, 4] 9 true 5six"))
    }

    @Test("one tuple argument is not two arguments")
    func tupleArgumentIsOneArgument() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, i: Int, s: String) in Label(text: "two \(i)\(s)") }
        c.register(type: Label.self) { (_: Resolver, pair: (Int, String)) in Label(text: "tuple \(pair.0)\(pair.1)") }
        #expect(try c.tryResolve(type: Label.self, arguments: 1, "a") == Label(text: "two 1a"))
        #expect(try c.tryResolve(type: Label.self, arguments: (2, "b")) == Label(text: "tuple 2b"))
        #expect(c.isRegistered(type: Label.self, argumentTypes: (Int, String).self))
    }

    @Test("a single Void argument is not the argument-free registration")
    func voidArgument() throws {
        let c = Container()
        c.register(type: Label.self) { _ in Label(text: "plain") }
        c.register(type: Label.self) { (_: Resolver, _: Void) in Label(text: "void") }
        #expect(try c.tryResolve(type: Label.self) == Label(text: "plain"))
        #expect(try c.tryResolve(type: Label.self, arguments: ()) == Label(text: "void"))
    }

    @Test("generic argument types differ by their generic arguments")
    func genericArgumentsAreDistinct() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, t: Tagged<Int>) in Label(text: "int \(t.value)") }
        c.register(type: Label.self) { (_: Resolver, t: Tagged<String>) in Label(text: "string \(t.value)") }
        #expect(try c.tryResolve(type: Label.self, arguments: Tagged(value: 1)) == Label(text: "int 1"))
        #expect(try c.tryResolve(type: Label.self, arguments: Tagged(value: "s")) == Label(text: "string s"))
        expectResolutionError(.argumentMismatch(registered: ["(Tagged<Int>)", "(Tagged<String>)"])) {
            try c.tryResolve(type: Label.self, arguments: Tagged(value: 1.5))
        }
    }

    @Test("optional arguments, including nil")
    func optionalArguments() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, n: Int?, s: String?) in
            Label(text: "\(n.map(String.init) ?? "nil") \(s ?? "nil")")
        }
        #expect(try c.tryResolve(type: Label.self, arguments: Int?.some(3), String?.some("x")) == Label(text: "3 x"))
        #expect(try c.tryResolve(type: Label.self, arguments: Int?.none, String?.none) == Label(text: "nil nil"))
        #expect(c.isRegistered(type: Label.self, argumentTypes: Int?.self, String?.self))
        // The argument types are exact: `Int` is not `Int?`.
        #expect(!c.isRegistered(type: Label.self, argumentTypes: Int.self, String.self))
        expectResolutionError(.argumentMismatch(registered: ["(Optional<Int>, Optional<String>)"])) {
            try c.tryResolve(type: Label.self, arguments: 3, "x")
        }
    }

    @Test("a class instance argument arrives as the same object, and is not retained by the container")
    func classArgumentIdentity() throws {
        final class Wrapper { let handle: Handle; init(handle: Handle) { self.handle = handle } }
        let c = Container()
        c.register(type: Wrapper.self) { (_: Resolver, h: Handle) in Wrapper(handle: h) }
        let handle = Handle()
        let wrapper = try c.tryResolve(type: Wrapper.self, arguments: handle)
        #expect(wrapper.handle === handle)
        weak var weakHandle: Handle?
        do {
            let temporary = Handle()
            weakHandle = temporary
            _ = try c.tryResolve(type: Wrapper.self, arguments: temporary)
        }
        #expect(weakHandle == nil, "the container must not keep runtime arguments alive")
    }

    @Test("an existential argument must be passed as the existential")
    func existentialArgument() throws {
        let c = Container()
        c.register(type: String.self) { (_: Resolver, animal: Animal) in animal.sound }
        #expect(try c.tryResolve(type: String.self, arguments: Cat() as Animal) == "miaow")
        #expect(try c.tryResolve(type: String.self, arguments: Dog() as Animal) == "wooof")
    }

    @Test("a closure argument is called by the factory")
    func closureArgument() throws {
        typealias Transform = @Sendable (Int) -> Int
        let c = Container()
        c.register(type: Int.self) { (_: Resolver, value: Int, transform: @escaping Transform) in transform(value) }
        let double: Transform = { $0 * 2 }
        let negate: Transform = { -$0 }
        #expect(try c.tryResolve(type: Int.self, arguments: 21, double) == 42)
        #expect(try c.tryResolve(type: Int.self, arguments: 5, negate) == -5)
    }

    // MARK: Living next to other registrations

    @Test("a plain and an argument registration of the same type and name coexist")
    func plainAndArgumentCoexist() throws {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, name: "t") { _ in Tracked(counter) }
        c.register(type: Tracked.self, name: "t") { (_: Resolver, n: Int) in
            let tracked = Tracked(counter)
            #expect(n == 9)
            return tracked
        }
        let plain1 = try c.tryResolve(type: Tracked.self, name: "t")
        let plain2 = try c.tryResolve(type: Tracked.self, name: "t")
        let argument = try c.tryResolve(type: Tracked.self, name: "t", arguments: 9)
        #expect(plain1 === plain2, "the plain one is .shared")
        #expect(argument !== plain1)
        #expect(counter.created == 2)
        #expect(c.isRegistered(type: Tracked.self, name: "t"))
        #expect(c.isRegistered(type: Tracked.self, name: "t", argumentTypes: Int.self))
    }

    @Test("remove(type:name:) removes the plain and every argument registration of the key")
    func removeRemovesAllSignatures() {
        let c = Container()
        c.register(type: Label.self, name: "x") { _ in Label(text: "plain") }
        c.register(type: Label.self, name: "x") { (_: Resolver, i: Int) in Label(text: "\(i)") }
        c.register(type: Label.self, name: "x") { (_: Resolver, s: String, i: Int) in Label(text: "\(s)\(i)") }
        c.register(type: Label.self, name: "y") { (_: Resolver, i: Int) in Label(text: "y\(i)") }
        c.remove(type: Label.self, name: "x")
        #expect(!c.isRegistered(type: Label.self, name: "x"))
        #expect(!c.isRegistered(type: Label.self, name: "x", argumentTypes: Int.self))
        #expect(!c.isRegistered(type: Label.self, name: "x", argumentTypes: String.self, Int.self))
        #expect(c.isRegistered(type: Label.self, name: "y", argumentTypes: Int.self), "another name stays")
        #expect(c.resolve(type: Label.self, name: "y", arguments: 1) == Label(text: "y1"))
    }

    @Test("registering the same signature again replaces the factory")
    func replaceArgumentRegistration() throws {
        let c = Container()
        c.register(type: Label.self) { (_: Resolver, i: Int) in Label(text: "old \(i)") }
        c.register(type: Label.self) { (_: Resolver, i: Int) in Label(text: "new \(i)") }
        #expect(try c.tryResolve(type: Label.self, arguments: 1) == Label(text: "new 1"))
    }

    @Test("a child container resolves its parent's argument registrations, and overrides them")
    func argumentsThroughParent() throws {
        let parent = Container()
        parent.register(type: Label.self) { (_: Resolver, i: Int) in Label(text: "parent \(i)") }
        parent.register(type: Label.self) { (_: Resolver, s: String) in Label(text: "parent \(s)") }
        let child = Container(parent: parent)
        child.register(type: Label.self) { (_: Resolver, i: Int) in Label(text: "child \(i)") }
        #expect(try child.tryResolve(type: Label.self, arguments: 1) == Label(text: "child 1"))
        #expect(try child.tryResolve(type: Label.self, arguments: "s") == Label(text: "parent s"))
        #expect(try parent.tryResolve(type: Label.self, arguments: 1) == Label(text: "parent 1"))
        #expect(child.isRegistered(type: Label.self, argumentTypes: String.self))
    }

    @Test("plain register { r in … } next to the argument overload stays .shared",
          arguments: ["typed type:", "inferred by as", "explicit Resolver parameter"])
    func plainRegistrationIsShared(_ form: String) {
        let c = Container()
        let counter = Counter()
        switch form {
        case "typed type:": c.register(type: Tracked.self) { r in Tracked(counter) }
        case "inferred by as": c.register { _ in Tracked(counter) as Tracked }
        default: c.register(type: Tracked.self) { (r: Resolver) in Tracked(counter) }
        }
        let a = c.resolve(type: Tracked.self)
        let b = c.resolve(type: Tracked.self)
        #expect(a === b)
        #expect(counter.created == 1)
        #expect(c.isRegistered(type: Tracked.self))
    }

    @Test("isRegistered(type:name:argumentTypes:) matches types, order and name exactly")
    func isRegisteredWithArgumentTypes() {
        let c = Container()
        c.register(type: Endpoint.self, name: "tls") { (_: Resolver, url: String, port: Int, secure: Bool) in
            Endpoint(url: url, port: port, secure: secure)
        }
        #expect(c.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: String.self, Int.self, Bool.self))
        #expect(!c.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: Int.self, String.self, Bool.self))
        #expect(!c.isRegistered(type: Endpoint.self, name: "tls", argumentTypes: String.self, Int.self))
        #expect(!c.isRegistered(type: Endpoint.self, name: "other", argumentTypes: String.self, Int.self, Bool.self))
        #expect(!c.isRegistered(type: Endpoint.self, name: "tls"), "no argument-free registration")
        #expect(!c.isRegistered(type: Label.self, name: "tls", argumentTypes: String.self, Int.self, Bool.self))
    }

    @Test("a throwing argument factory reports factoryFailed with the signature in the path")
    func throwingArgumentFactory() throws {
        struct Outer {}
        let c = Container()
        c.register(type: Endpoint.self) { (_: Resolver, url: String, port: Int) -> Endpoint in
            throw Failure(code: port)
        }
        c.register(type: Outer.self, in: .new) { r -> Outer in
            let _: Endpoint = try r.resolve(arguments: "u", 5)
            return Outer()
        }
        expectResolutionError(.factoryFailed(Failure(code: 3))) { try c.tryResolve(type: Endpoint.self, arguments: "u", 3) }
        let nested = try #require(expectResolutionError(.factoryFailed(Failure(code: 5))) { try c.tryResolve(type: Outer.self) })
        #expect(nested.path == ["Outer", "Endpoint(String, Int)"])
    }

    @Test("onResolved runs for every instance of an argument registration")
    func onResolvedWithArguments() throws {
        let seen = Locked<[Int]>([])
        let c = Container()
        c.register(type: Numbered.self) { (_: Resolver, n: Int) in Numbered(integer: n, manager: Manager()) }
            .onResolved { _, numbered in seen.withLock { $0.append(numbered.integer) } }
        _ = try c.tryResolve(type: Numbered.self, arguments: 1)
        _ = try c.tryResolve(type: Numbered.self, arguments: 2)
        #expect(seen.withLock { $0 } == [1, 2])
    }
}
