import Testing
import Syringe

/// Types used only as keys here.
enum HostileOuter {
    struct Inner: Sendable { let tag: String }
}

enum HostileOther {
    struct Inner: Sendable { let tag: String }
}

struct HostileBox<T>: Sendable { let tag: String }

extension HostileInputTests {
    @Suite("Odd types: as keys, Optional, from generic contexts, under .weak")
    struct Types {
        @Test("generic, nested, Optional and structural types are distinct keys")
        func typesAsKeys() throws {
            let c = Container()
            c.register(type: HostileBox<Int>.self) { _ in HostileBox(tag: "Box<Int>") }
            c.register(type: HostileBox<String>.self) { _ in HostileBox(tag: "Box<String>") }
            c.register(type: HostileBox<HostileBox<Int>>.self) { _ in HostileBox(tag: "Box<Box<Int>>") }
            c.register(type: HostileBox<Int?>.self) { _ in HostileBox(tag: "Box<Int?>") }
            c.register(type: HostileBox<Int>?.self) { _ in HostileBox(tag: "Box<Int>?") }
            c.register(type: HostileOuter.Inner.self) { _ in HostileOuter.Inner(tag: "Outer.Inner") }
            c.register(type: HostileOther.Inner.self) { _ in HostileOther.Inner(tag: "Other.Inner") }
            c.register(type: Int.self, dependency: 1)
            c.register(type: Int?.self, dependency: 2)
            c.register(type: Int??.self, dependency: 3)
            c.register(type: [Int].self, dependency: [4])
            c.register(type: [Int?].self, dependency: [nil])
            c.register(type: [String: Int].self, dependency: ["five": 5])
            c.register(type: (Int, String).self) { _ in (6, "six") }
            c.register(type: (String, Int).self) { _ in ("seven", 7) }
            c.register(type: Void.self) { _ in () }
            c.register(type: Int.Type.self) { _ in Int.self }
            c.register(type: (@Sendable (Int) -> Int).self) { _ in { $0 + 8 } }
            c.register(type: Any.self) { _ in "any" }
            c.register(type: AnyObject.self) { _ in HostileConsumer() }

            #expect(try c.tryResolve(type: HostileBox<Int>.self).tag == "Box<Int>")
            #expect(try c.tryResolve(type: HostileBox<String>.self).tag == "Box<String>")
            #expect(try c.tryResolve(type: HostileBox<HostileBox<Int>>.self).tag == "Box<Box<Int>>")
            #expect(try c.tryResolve(type: HostileBox<Int?>.self).tag == "Box<Int?>")
            #expect(try c.tryResolve(type: HostileBox<Int>?.self)?.tag == "Box<Int>?")
            #expect(try c.tryResolve(type: HostileOuter.Inner.self).tag == "Outer.Inner")
            #expect(try c.tryResolve(type: HostileOther.Inner.self).tag == "Other.Inner")
            #expect(try c.tryResolve(type: Int.self) == 1)
            #expect(try c.tryResolve(type: Int?.self) == 2)
            #expect(try c.tryResolve(type: Int??.self) == 3)
            #expect(try c.tryResolve(type: [Int].self) == [4])
            #expect(try c.tryResolve(type: [Int?].self) == [nil])
            #expect(try c.tryResolve(type: [String: Int].self) == ["five": 5])
            #expect(try c.tryResolve(type: (Int, String).self) == (6, "six"))
            #expect(try c.tryResolve(type: (String, Int).self) == ("seven", 7))
            try c.tryResolve(type: Void.self)
            #expect(try c.tryResolve(type: Int.Type.self) == Int.self)
            #expect(try c.tryResolve(type: (@Sendable (Int) -> Int).self)(1) == 9)
            #expect(try c.tryResolve(type: Any.self) as? String == "any")
            #expect(try c.tryResolve(type: AnyObject.self) is HostileConsumer)

            // Unregistered neighbours are not found through a registered one.
            #expect(!c.isRegistered(type: HostileBox<Double>.self))
            #expect(!c.isRegistered(type: Int???.self))
            #expect(!c.isRegistered(type: [Int]?.self))
            #expect(!c.isRegistered(type: String?.self))
            #expect(!c.isRegistered(type: (Int, Int).self))

            // Removing one leaves the others.
            c.remove(type: Int.self)
            #expect(!c.isRegistered(type: Int.self))
            #expect(try c.tryResolve(type: Int?.self) == 2)
            #expect(try c.tryResolve(type: Int??.self) == 3)
            expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self) }
        }

        @Test("an Optional registration that yields nil is registered, not missing")
        func optionalYieldingNil() throws {
            let c = Container()
            c.register(type: Int?.self) { _ in nil }
            c.register(type: Int??.self) { _ in .some(nil) }
            #expect(try c.tryResolve(type: Int?.self) == nil)
            let viaIfRegistered: Int?? = c.resolveIfRegistered(type: Int?.self)
            #expect(viaIfRegistered == .some(nil), "registered: nil wrapped in .some")
            let inner: Int?? = try c.tryResolve(type: Int??.self)
            #expect(inner == .some(nil))
            #expect(c.resolveIfRegistered(type: Int.self) == nil)
        }

        @Test("generic metadata made in a generic context is the same key as the concrete type")
        func genericContextKeys() throws {
            func register<T>(_: T.Type, in c: Container, tag: String) {
                c.register(type: HostileBox<T>.self) { _ in HostileBox(tag: tag) }
            }
            func resolve<T>(_: T.Type, from c: Container) throws(ResolutionError) -> String {
                try c.tryResolve(type: HostileBox<T>.self).tag
            }
            let c = Container()
            register(Int.self, in: c, tag: "int")
            register(HostileOuter.Inner.self, in: c, tag: "inner")
            register([String?].self, in: c, tag: "array")
            #expect(try c.tryResolve(type: HostileBox<Int>.self).tag == "int")
            #expect(try c.tryResolve(type: HostileBox<HostileOuter.Inner>.self).tag == "inner")
            #expect(try resolve([String?].self, from: c) == "array")
            #expect(!c.isRegistered(type: HostileBox<HostileOther.Inner>.self))
            #expect(!c.isRegistered(type: HostileBox<[String]>.self))
        }

        @Test(".weak with values that are not plain references")
        func weakUnusualValues() throws {
            struct Empty: Sendable {}
            let counter = Counter()
            let c = Container()
            c.register(type: Tracked?.self, in: .weak) { _ in nil }
            c.register(type: Empty.self, in: .weak) { _ in Empty() }
            c.register(type: Any.self, in: .weak) { _ in Tracked(counter) }
            c.register(type: Tracked?.self, name: "some", in: .weak) { _ in Tracked(counter) }
            #expect(try c.tryResolve(type: Tracked?.self) == nil)
            #expect(try c.tryResolve(type: Tracked?.self) == nil)
            _ = try c.tryResolve(type: Empty.self)
            do {
                let held = try c.tryResolve(type: Any.self) as? Tracked
                #expect(held != nil)
                #expect(try c.tryResolve(type: Any.self) as? Tracked === held, "Any holding a class is shared while held")
                let some = try c.tryResolve(type: Tracked?.self, name: "some")
                #expect(try c.tryResolve(type: Tracked?.self, name: "some") === some)
            }
            #expect(afterReclamation { counter.alive == 0 })
        }
    }
}
