import Testing
import Syringe

extension HostileInputTests {
    @Suite("Writers inside resolves")
    struct Reentrancy {
        @Test("factories and callbacks that register, remove and release while they are being resolved")
        func writersInsideResolves() throws {
            let counter = Counter()
            let c = Container()
            // The factories capture the container weakly: a strong capture would be
            // a cycle of the test's own making (container → registration → factory).
            // Removes its own registration while creating its shared instance.
            c.register(type: Tracked.self, name: "self-removing") { [weak c] _ in
                c?.remove(type: Tracked.self, name: "self-removing")
                return Tracked(counter)
            }
            // Releases every shared instance while creating its own.
            c.register(type: Tracked.self, name: "releasing") { [weak c] _ in
                c?.releaseSharedInstances()
                return Tracked(counter)
            }
            // Grows the table (many rebuilds) in the middle of a resolve.
            c.register(type: Int.self, name: "growing", in: .new) { [weak c] _ in
                for index in 0..<2_000 {
                    c?.register(type: Int.self, name: "grown-\(index)", dependency: index)
                }
                return -1
            }
            // Replaces its own registration from its callback.
            c.register(type: String.self, name: "replaced-by-callback", in: .new) { _ in "first" }
                .onResolved { [weak c] _, _ in
                    c?.register(type: String.self, name: "replaced-by-callback", in: .new) { _ in "second" }
                }

            let removing = try c.tryResolve(type: Tracked.self, name: "self-removing")
            #expect(!c.isRegistered(type: Tracked.self, name: "self-removing"))
            let releasing = try c.tryResolve(type: Tracked.self, name: "releasing")
            #expect(try c.tryResolve(type: Tracked.self, name: "releasing") === releasing, "created once")
            #expect(try c.tryResolve(type: Int.self, name: "growing") == -1)
            // A typed parameter: with `$0`, `!= $0` against an `Int?` lets the
            // compiler type the closure `(Int?) -> Bool` and interpolate "Optional(0)".
            let lost = (0..<2_000).filter { (index: Int) in c.resolveIfRegistered(type: Int.self, name: "grown-\(index)") != index }
            #expect(lost.isEmpty, "registered inside a resolve, then lost: \(lost.prefix(10))")
            #expect(try c.tryResolve(type: String.self, name: "replaced-by-callback") == "first")
            #expect(try c.tryResolve(type: String.self, name: "replaced-by-callback") == "second")
            #expect(removing !== releasing)
            #expect(counter.created == 2)

            // A removeAll from inside a factory.
            c.register(type: Tracked.self, name: "clearing", in: .new) { [weak c] _ in
                c?.removeAll()
                return Tracked(counter)
            }
            _ = try c.tryResolve(type: Tracked.self, name: "clearing")
            expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: "grown-0") }
        }
    }
}
