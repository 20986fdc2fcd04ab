import Foundation
import Testing
@testable import SyringeSwinject

@Suite("SyringeSwinject registrations")
struct RegistrationTests {
    @Test("a forward and a registration of the same key replace each other, as in Swinject's one dictionary")
    func forwardReplacesRegistration() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "registered") }
        container.register(Cat.self) { _ in Cat(name: "forwarded") }.implements(Animal.self)
        #expect(container.resolve(Animal.self)?.name == "forwarded")
        container.register(Animal.self) { _ in Cat(name: "registered again") }
        #expect(container.resolve(Animal.self)?.name == "registered again")
    }

    @Test("a forward in a child container comes before the parent's registration")
    func childForwardFirst() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "parent") }
        let child = Container(parent: parent)
        child.register(Cat.self) { _ in Cat(name: "child") }.implements(Animal.self)
        #expect(child.resolve(Animal.self)?.name == "child")
        #expect(parent.resolve(Animal.self)?.name == "parent")
    }

    @Test("an entry kept after its container is gone does not keep it, and implements then does nothing, as in Swinject")
    func entryOutlivesItsContainer() {
        var container: Container? = Container()
        weak let gone = container
        let entry = container!.register(Cat.self) { _ in Cat(name: "kept") }
        container = nil
        #expect(gone == nil)
        entry.implements(Animal.self)  // reaches no container: nothing to register into, and no crash
    }

    @Test("names match by canonical equivalence, as Swift strings do")
    func canonicalNames() {
        let container = Container()
        container.register(Animal.self, name: "caf\u{E9}") { _ in Cat(name: "precomposed") }
        #expect(container.resolve(Animal.self, name: "cafe\u{301}")?.name == "precomposed")
        #expect(container.hasAnyRegistration(of: Animal.self, name: "cafe\u{301}"))
    }

    @Test("an untyped _register factory resolves through the typed resolve and through _resolve")
    func untypedRegistration() {
        let container = Container()
        container._register(Animal.self, factory: { (_: Resolver) -> Any in Cat(name: "untyped") })
        #expect(container.resolve(Animal.self)?.name == "untyped")
        let invoked: Animal? = container._resolve(name: nil, option: nil) { (factory: (Resolver) -> Any) in factory(container) }
        #expect(invoked?.name == "untyped")
    }

    @Test("registrations with an option are found only with that option")
    func optionKeys() {
        let container = Container()
        container._register(Animal.self, factory: { (_: Resolver) -> Any in Cat(name: "main") }, option: Storyboard(name: "Main"))
        let main: Animal? = container._resolve(name: nil, option: Storyboard(name: "Main")) { (factory: (Resolver) -> Any) in factory(container) }
        let other: Animal? = container._resolve(name: nil, option: Storyboard(name: "Other")) { (factory: (Resolver) -> Any) in factory(container) }
        #expect(main?.name == "main")
        #expect(other == nil)
        #expect(container.resolve(Animal.self) == nil)
    }

    @Test("entry indices are reused once entries are freed, so graph slots stay as many as live entries")
    func indicesReused() async {
        // In a process of its own: indices are process-wide, and the other
        // suites running beside this one take and give them back meanwhile.
        await #expect(processExitsWith: .success) {
            let container = Container()
            let first = ServiceEntry(serviceType: Int.self, argumentsType: Any.self, factory: 0).index
            var highest = 0
            for round in 0..<50 {
                weak let named = container.register(Node.self, name: "n") { _ in Node() }
                weak let unnamed = container.register(Node.self) { _ in Node() }
                highest = max(highest, unnamed?.index ?? 0, named?.index ?? 0)
                _ = container.resolve(Node.self)
                container.removeAll()
                // Nothing else resolves in this process: the reclaimer frees
                // at once.
                if named != nil || unnamed != nil {
                    fail("round \(round): removeAll left an entry alive")
                }
            }
            // Without reuse, 100 entries would have taken indices up to first + 100.
            if highest > first + 1 {
                fail("100 entries, two alive at a time, took indices up to \(highest), from \(first)")
            }
        }
    }

    @Test("the logging function receives failed resolves with the available registrations")
    func failedResolveIsLogged() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat() }
        let lines = loggedLines { _ = container.resolve(Animal.self, name: "failedResolveIsLogged") }
            .filter { $0.contains("Name: \"failedResolveIsLogged\"") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("Name: \"cat\"") == true)
    }
}

private struct Storyboard: ServiceKeyOption {
    let name: String
    func isEqualTo(_ another: ServiceKeyOption) -> Bool { (another as? Storyboard)?.name == name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
    var description: String { "Storyboard: \(name)" }
}

/// Ends an exit test's process with a failure, saying why on standard error.
private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("requirement failed: \(message)\n".utf8))
    exit(1)
}
