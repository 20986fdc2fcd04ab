import Testing
import Syringe

extension HostileInputTests {
    @Suite("100 000 registrations")
    struct Scale {
        @Test("100 000 registrations, all resolvable afterwards")
        func hundredThousandRegistrations() throws {
            let count = 100_000
            let names = (0..<count).map { "registration-\($0)" }
            let c = Container()
            for (index, name) in names.enumerated() {
                c.register(type: Int.self, name: name, dependency: index)
            }
            var wrong = 0
            for (index, name) in names.enumerated() {
                if c.resolveIfRegistered(type: Int.self, name: name) != index { wrong += 1 }
            }
            #expect(wrong == 0, "\(wrong) of \(count) registrations lost or crossed")
            // Remove every other one; the rest survive the tombstones and rebuilds.
            for index in stride(from: 0, to: count, by: 2) {
                c.remove(type: Int.self, name: names[index])
            }
            for index in stride(from: 1, to: count, by: 2) {
                c.register(type: Int.self, name: names[index], dependency: -index)
            }
            wrong = 0
            for (index, name) in names.enumerated() {
                let expected: Int? = index % 2 == 0 ? nil : -index
                if c.resolveIfRegistered(type: Int.self, name: name) != expected { wrong += 1 }
            }
            #expect(wrong == 0, "\(wrong) of \(count) registrations wrong after removals and replacements")
            // A miss among 50 000 registrations of the same type: every one is a
            // near match; the error stays short.
            let missing = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: "registration-\(count)") })
            #expect(missing.description.utf8.count < HostileInputTests.errorTextLimit, "\(missing.description.utf8.count) bytes")
            #expect(missing.description.contains("and 49995 more"), "\(missing.description)")
        }
    }
}
