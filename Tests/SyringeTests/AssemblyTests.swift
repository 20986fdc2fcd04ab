import Synchronization
import Testing
import Syringe

@Suite("Assemblies")
struct AssemblyTests {
    @Test("every assemble runs, in the order given, before any loaded, in the same order")
    func order() {
        let expected = [
            "assemble A", "assemble B", "assemble C",
            "loaded A", "loaded B", "loaded C",
        ]

        let variadicLog = Locked<[String]>([])
        Container().apply(
            AssemblyTestRecorder(name: "A", log: variadicLog),
            AssemblyTestRecorder(name: "B", log: variadicLog),
            AssemblyTestRecorder(name: "C", log: variadicLog)
        )
        #expect(variadicLog.withLock { $0 } == expected)

        let arrayLog = Locked<[String]>([])
        Container().apply(["A", "B", "C"].map { AssemblyTestRecorder(name: $0, log: arrayLog) })
        #expect(arrayLog.withLock { $0 } == expected)
    }

    @Test("an assembly applied later replaces an earlier one's registration")
    func laterOverrides() {
        let first = AssemblyTestGreeter(greeting: "hello")
        let second = AssemblyTestGreeter(greeting: "bonjour")

        let sameCall = Container()
        sameCall.apply(first, second)
        #expect(sameCall.resolve(type: AssemblyTestGreeting.self).text == "bonjour")

        let reversed = Container()
        reversed.apply(second, first)
        #expect(reversed.resolve(type: AssemblyTestGreeting.self).text == "hello")

        let laterCall = Container()
        laterCall.apply(first)
        laterCall.apply(second)
        #expect(laterCall.resolve(type: AssemblyTestGreeting.self).text == "bonjour")
    }

    @Test("loaded resolves what assemblies before and after it in the same call registered")
    func loadedSeesWholeBatch() {
        let seen = Locked<[String?]>([])
        Container().apply(
            AssemblyTestGreeter(greeting: "from A"),
            AssemblyTestInspector(seen: seen),
            AssemblyTestFarewell(text: "from C")
        )
        #expect(seen.withLock { $0 } == ["from A", "from C"])
    }

    @Test("a second apply runs only its own assemblies' loaded")
    func secondApply() {
        let counts = Locked<[String: Int]>([:])
        let container = Container()
        container.apply(
            AssemblyTestCounter(name: "A", counts: counts),
            AssemblyTestCounter(name: "B", counts: counts)
        )
        #expect(counts.withLock { $0 } == ["assemble A": 1, "assemble B": 1, "loaded A": 1, "loaded B": 1])

        container.apply(AssemblyTestCounter(name: "C", counts: counts))
        #expect(counts.withLock { $0 } == [
            "assemble A": 1, "assemble B": 1, "loaded A": 1, "loaded B": 1,
            "assemble C": 1, "loaded C": 1,
        ])
    }

    @Test("applying into a child registers into the child only")
    func child() {
        let parent = Container()
        let child = Container(parent: parent)
        let loadedInto = Locked<[Container]>([])
        child.apply(AssemblyTestGreeter(greeting: "hi", loadedInto: loadedInto))

        #expect(child.isRegistered(type: AssemblyTestGreeting.self))
        #expect(!parent.isRegistered(type: AssemblyTestGreeting.self))
        #expect(loadedInto.withLock { $0.count == 1 && $0[0] === child })
    }

    @Test("an assembly's configuration reaches its registrations")
    func configuration() {
        let staging = Container()
        staging.apply(AssemblyTestNetwork(baseURL: "https://staging.example.org"))
        let production = Container()
        production.apply(AssemblyTestNetwork(baseURL: "https://api.example.org"))

        #expect(staging.resolve(type: AssemblyTestClient.self).baseURL == "https://staging.example.org")
        #expect(production.resolve(type: AssemblyTestClient.self).baseURL == "https://api.example.org")
    }

    @Test("applying no assemblies leaves the container as it was")
    func empty() {
        let counter = Counter()
        let container = Container()
        container.register(type: Tracked.self) { _ in Tracked(counter) }
        let before = container.resolve(type: Tracked.self)

        container.apply([])
        container.apply()

        #expect(container.resolve(type: Tracked.self) === before)
        #expect(counter.created == 1)
    }
}

// Assemblies that record what `apply` does with them.

/// Logs its `assemble` and `loaded` calls, by name, in call order.
private struct AssemblyTestRecorder: Assembly {
    let name: String
    let log: Locked<[String]>

    func assemble(into container: Container) {
        log.withLock { $0.append("assemble \(name)") }
    }

    func loaded(_ container: Container) {
        log.withLock { $0.append("loaded \(name)") }
    }
}

/// Counts its `assemble` and `loaded` calls, by name.
private struct AssemblyTestCounter: Assembly {
    let name: String
    let counts: Locked<[String: Int]>

    func assemble(into container: Container) {
        counts.withLock { $0["assemble \(name)", default: 0] += 1 }
    }

    func loaded(_ container: Container) {
        counts.withLock { $0["loaded \(name)", default: 0] += 1 }
    }
}

private struct AssemblyTestGreeting: Sendable { let text: String }
private struct AssemblyTestFarewellText: Sendable { let text: String }

/// Registers an `AssemblyTestGreeting`; records which container its `loaded` got.
private struct AssemblyTestGreeter: Assembly {
    let greeting: String
    var loadedInto: Locked<[Container]>?

    func assemble(into container: Container) {
        // The text only: capturing `self` would capture `loadedInto`, which
        // holds the container, and the container would hold itself.
        let greeting = greeting
        container.register { _ in AssemblyTestGreeting(text: greeting) }
    }

    func loaded(_ container: Container) {
        loadedInto?.withLock { $0.append(container) }
    }
}

/// Registers an `AssemblyTestFarewellText`; keeps the default `loaded`.
private struct AssemblyTestFarewell: Assembly {
    let text: String

    func assemble(into container: Container) {
        container.register { _ in AssemblyTestFarewellText(text: text) }
    }
}

/// Registers nothing; its `loaded` records the greeting and farewell it can
/// resolve, nil for one not registered yet.
private struct AssemblyTestInspector: Assembly {
    let seen: Locked<[String?]>

    func assemble(into container: Container) {}

    func loaded(_ container: Container) {
        let greeting = container.resolveIfRegistered(type: AssemblyTestGreeting.self)?.text
        let farewell = container.resolveIfRegistered(type: AssemblyTestFarewellText.self)?.text
        seen.withLock { $0 = [greeting, farewell] }
    }
}

private struct AssemblyTestClient: Sendable { let baseURL: String }

/// A module configured by its base URL.
private struct AssemblyTestNetwork: Assembly {
    let baseURL: String

    func assemble(into container: Container) {
        container.register { _ in AssemblyTestClient(baseURL: baseURL) }
    }
}
