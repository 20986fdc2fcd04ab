import Testing
import Syringe

/// Never registered anywhere.
protocol HostileNeverRegistered {}

extension HostileInputTests {
    @Suite("Many failing resolves and their errors")
    struct Misses {
        @Test("1 000 failing resolves of an unregistered type: each a clear, bounded ResolutionError")
        func thousandMisses() throws {
            let c = Container()
            // Many registrations around the misses: other types, and a type with
            // many names (near matches for every miss of that type).
            for index in 0..<1_000 {
                c.register(type: Int.self, name: "int-\(index)", dependency: index)
                c.register(type: String.self, name: "string-\(index)", dependency: "\(index)")
            }
            c.register(type: HostileConsumer.self) { (r: Resolver, name: String) in
                _ = try r.resolve(type: HostileNeverRegistered.self, name: name)
                return HostileConsumer()
            }
            let child = Container(parent: c)
            var checked = 0
            var problems: [String] = []  // one #expect at the end: 7 000 of them would dominate the run time
            func check(_ ok: Bool, _ message: @autoclosure () -> String) {
                if !ok && problems.count < 20 { problems.append(message()) }
            }
            for index in 0..<1_000 {
                let name = "missing-\(index)"
                // Records an issue itself when nothing or something else is thrown.
                let error = expectResolutionError(.notRegistered) {
                    switch index % 5 {
                    case 0: _ = try c.tryResolve(type: HostileNeverRegistered.self, name: name)
                    case 1: _ = try c.tryResolve(type: HostileNeverRegistered.self, name: name, arguments: index, name)
                    case 2: _ = try c.tryResolve(type: HostileConsumer.self, arguments: name)
                    case 3: _ = try child.tryResolve(type: HostileNeverRegistered.self, name: name)
                    default: _ = try c.tryResolve(type: Int.self, name: name)  // registered type, other names
                    }
                }
                guard let error else { continue }
                let text = error.description
                check(error.name == name, "\(name): error names \(String(describing: error.name))")
                check(text.hasPrefix("Syringe could not resolve "), text)
                check(text.contains("named \"\(name)\""), text)
                check(text.contains(index % 5 == 4 ? "Int" : "HostileNeverRegistered"), text)
                check(text.utf8.count < HostileInputTests.errorTextLimit, "\(name): \(text.utf8.count) bytes")
                check(error.suggestions.filter { !$0.hasPrefix("…") }.count <= 5, "\(name): \(error.suggestions)")
                if index % 5 == 2 {
                    check(error.path.count == 2, "\(name): path \(error.path)")
                }
                checked += 1
            }
            #expect(problems.isEmpty, "\(problems)")
            #expect(checked == 1_000)
            #expect(c.resolveIfRegistered(type: HostileNeverRegistered.self, name: "missing-0") == nil)
            #expect(c.resolveAll(type: HostileNeverRegistered.self).isEmpty)
            // Nothing was lost on the way.
            #expect(try c.tryResolve(type: Int.self, name: "int-999") == 999)
            #expect(try child.tryResolve(type: String.self, name: "string-0") == "0")
        }

        @Test("suggestions hold at most five entries, as documented, even with many near matches")
        func atMostFiveSuggestions() throws {
            let c = Container()
            for index in 0..<20 {
                c.register(type: Int.self, name: "near-\(index)", dependency: index)
            }
            let error = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: "far") })
            // ResolutionError.suggestions: "A few registrations that look like
            // what was meant; never more than five."
            #expect(error.suggestions.count <= 5, "\(error.suggestions)")
        }
    }
}
