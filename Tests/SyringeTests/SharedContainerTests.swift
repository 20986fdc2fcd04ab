import Synchronization
import Testing
import Syringe
import SyringeTesting

// MARK: Fixtures

fileprivate final class SCManager: Sendable {
    let label: String
    init(_ label: String) { self.label = label }
}

fileprivate final class SCUsesShared {
    @Injected var manager: SCManager
}

/// A key registered only by the tests below, to tell containers apart.
fileprivate struct SCKey: Sendable {
    let value: Int
}

/// Registered into the global default container only, by one test.
fileprivate struct SCOnlyInDefault {}

/// The global default `Container.shared`, read where no task-local value is
/// bound: a detached task does not inherit task-locals.
fileprivate func defaultSharedContainer() async -> Container {
    await Task.detached { Container.shared }.value
}

/// Every container a trait gave a test here, kept alive so identities stay unique.
fileprivate let containersGivenToTests = Locked<[Container]>([])

/// Records the current `Container.shared`; false if another test already got it.
fileprivate func recordFreshContainer() -> Bool {
    let current = Container.shared
    return containersGivenToTests.withLock { seen in
        if seen.contains(where: { $0 === current }) {
            return false
        }
        seen.append(current)
        return true
    }
}

/// Lets `parties` tasks go on only once all of them have arrived.
fileprivate actor SCBarrier {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) {
        self.parties = parties
    }

    func arriveAndWait() async {
        arrived += 1
        if arrived == parties {
            waiting.forEach { $0.resume() }
            waiting.removeAll()
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}

private func makeContainer(_ label: String) -> Container {
    let c = Container()
    c.register(type: SCManager.self) { _ in SCManager(label) }
    return c
}

// MARK: Container.shared

@Suite("Container.shared")
struct SharedContainerTests {
    @Test("withValue makes @Injected resolve from the test container")
    func withValueSync() {
        let testContainer = makeContainer("test")
        let manager = Container.$shared.withValue(testContainer) { SCUsesShared().manager }
        #expect(manager === testContainer.resolve(type: SCManager.self))
        #expect(manager.label == "test")
    }

    @Test("Container.shared is the bound container inside withValue, the default outside")
    func boundAndDefault() async {
        let defaultContainer = await defaultSharedContainer()
        #expect(await defaultSharedContainer() === defaultContainer, "the default is one container")
        #expect(Container.shared === defaultContainer, "no trait here: the default")
        let c = Container()
        Container.$shared.withValue(c) {
            #expect(Container.shared === c)
        }
        #expect(Container.shared === defaultContainer)
    }

    @Test("two tasks inside withValue at the same time each see their own container")
    func twoTasksAtOnce() async {
        let barrier = SCBarrier(parties: 2)
        let results = await withTaskGroup(of: (String, String, String).self) { group in
            for label in ["first", "second"] {
                group.addTask {
                    let c = makeContainer(label)
                    return await Container.$shared.withValue(c) {
                        // Both tasks are inside their withValue before either resolves.
                        await barrier.arriveAndWait()
                        let injected = SCUsesShared().manager.label
                        let direct = Container.shared.resolve(type: SCManager.self).label
                        return (label, injected, direct)
                    }
                }
            }
            var all: [(String, String, String)] = []
            for await result in group {
                all.append(result)
            }
            return all
        }
        #expect(results.count == 2)
        for (label, injected, direct) in results {
            #expect(injected == label)
            #expect(direct == label)
        }
    }

    @Test("nested withValue: the innermost wins, the outer one comes back")
    func nested() {
        let outer = makeContainer("outer")
        let inner = makeContainer("inner")
        Container.$shared.withValue(outer) {
            #expect(SCUsesShared().manager.label == "outer")
            Container.$shared.withValue(inner) {
                #expect(SCUsesShared().manager.label == "inner")
                #expect(Container.shared === inner)
            }
            #expect(SCUsesShared().manager.label == "outer")
            #expect(Container.shared === outer)
        }
    }

    @Test("child tasks inherit the bound container; detached tasks do not")
    func childTasksInherit() async {
        let c = makeContainer("bound")
        let defaultContainer = await defaultSharedContainer()
        await Container.$shared.withValue(c) {
            async let fromAsyncLet = SCUsesShared().manager.label
            let fromGroup = await withTaskGroup(of: String.self) { group in
                group.addTask { SCUsesShared().manager.label }
                group.addTask { await Task { SCUsesShared().manager.label }.value }
                var labels: [String] = []
                for await label in group {
                    labels.append(label)
                }
                return labels
            }
            let fromTask = await Task { Container.shared }.value
            let fromDetached = await Task.detached { Container.shared }.value
            #expect(await fromAsyncLet == "bound")
            #expect(fromGroup == ["bound", "bound"])
            #expect(fromTask === c)
            #expect(fromDetached === defaultContainer)
        }
    }

    @Test("a task's binding ends with its withValue even across suspension points")
    func bindingAcrossSuspension() async {
        let c = makeContainer("c")
        let seen = await Container.$shared.withValue(c) { () async -> Bool in
            await Task.yield()
            return Container.shared === c
        }
        #expect(seen)
        #expect(Container.shared !== c)
    }
}

// MARK: The SyringeTesting traits

@Suite("ContainerTrait")
struct ContainerTraitTests {
    @Test(".freshContainer: an empty Container.shared that is not the global default", .freshContainer)
    func freshIsNotDefault() async {
        let defaultContainer = await defaultSharedContainer()
        #expect(Container.shared !== defaultContainer)
        #expect(Container.shared.parent == nil)
        // Something only in the default container is not visible.
        defaultContainer.register(type: SCOnlyInDefault.self) { _ in SCOnlyInDefault() }
        defer { defaultContainer.remove(type: SCOnlyInDefault.self) }
        #expect(defaultContainer.isRegistered(type: SCOnlyInDefault.self))
        #expect(!Container.shared.isRegistered(type: SCOnlyInDefault.self))
    }

    // The pair below registers the same key with different values. If the
    // trait were a no-op (or shared one container between tests), whichever
    // runs second would find the first's container, or its registration.

    @Test(".freshContainer, first of a pair", .freshContainer)
    func freshFirst() {
        #expect(recordFreshContainer(), "another test already had this container")
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: 1) }
        Container.shared.register(type: SCManager.self) { _ in SCManager("first") }
        #expect(Container.shared.resolve(type: SCKey.self).value == 1)
        #expect(SCUsesShared().manager.label == "first")
    }

    @Test(".freshContainer, second of a pair", .freshContainer)
    func freshSecond() {
        #expect(recordFreshContainer(), "another test already had this container")
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: 2) }
        Container.shared.register(type: SCManager.self) { _ in SCManager("second") }
        #expect(Container.shared.resolve(type: SCKey.self).value == 2)
        #expect(SCUsesShared().manager.label == "second")
    }

    @Test(".freshContainer gives every case of a parameterised test its own", .freshContainer, arguments: [3, 4, 5])
    func freshPerCase(_ value: Int) {
        #expect(recordFreshContainer(), "another test case already had this container")
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: value) }
        #expect(Container.shared.resolve(type: SCKey.self).value == value)
    }

    @Test(".freshContainer reaches child tasks of the test", .freshContainer)
    func freshInChildTasks() async {
        Container.shared.register(type: SCManager.self) { _ in SCManager("fresh") }
        let test = Container.shared
        let labels = await withTaskGroup(of: String.self) { group in
            for _ in 0..<3 {
                group.addTask { SCUsesShared().manager.label }
            }
            var labels: [String] = []
            for await label in group { labels.append(label) }
            return labels
        }
        #expect(labels == ["fresh", "fresh", "fresh"])
        #expect(SCUsesShared().manager === test.resolve(type: SCManager.self))
    }

    @Test(".freshContainer closes the test's container when the test ends: its .shared instances are disposed")
    func freshContainerClosesItsContainer() async throws {
        let disposed = Locked<[String]>([])
        let seen = Locked<Container?>(nil)
        let trait = ContainerTrait.freshContainer
        try await trait.provideScope(for: Test.current!, testCase: nil) {
            seen.withLock { $0 = Container.shared }
            Container.shared.register(type: SCManager.self) { _ in SCManager("held") }
                .onDispose { manager in disposed.withLock { $0.append(manager.label) } }
            _ = Container.shared.resolve(type: SCManager.self)
            #expect(disposed.withLock { $0 }.isEmpty)
        }
        #expect(disposed.withLock { $0 } == ["held"])
        let container = try #require(seen.withLock { $0 })
        expectResolutionError(.closed) { try container.tryResolve(type: SCManager.self) }
    }

    @Test("a test that fails keeps its own failure; its container is closed all the same, and a disposer's failure fails a test that passed")
    func failingTestsAndDisposers() async throws {
        struct TestFailure: Error {}
        struct DisposerFailure: Error {}
        let disposed = Locked(0)
        let trait = ContainerTrait.freshContainer
        await #expect(throws: TestFailure.self) {
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                Container.shared.register(type: SCManager.self) { _ in SCManager("held") }
                    .onDispose { _ in disposed.withLock { $0 += 1 }; throw DisposerFailure() }
                _ = Container.shared.resolve(type: SCManager.self)
                throw TestFailure()
            }
        }
        #expect(disposed.withLock { $0 } == 1)
        await #expect(throws: DisposalError.self) {
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                Container.shared.register(type: SCManager.self) { _ in SCManager("held") }
                    .onDispose { _ in disposed.withLock { $0 += 1 }; throw DisposerFailure() }
                _ = Container.shared.resolve(type: SCManager.self)
            }
        }
        #expect(disposed.withLock { $0 } == 2)
    }

    @Test(".container { } configures the test's container", .container { c in
        c.register(type: SCManager.self) { _ in SCManager("configured") }
        c.register(type: SCKey.self, name: "k") { _ in SCKey(value: 7) }
    })
    func configured() async throws {
        #expect(recordFreshContainer(), "another test already had this container")
        try #require(Container.shared.isRegistered(type: SCManager.self), "the configuration did not reach Container.shared")
        #expect(Container.shared !== (await defaultSharedContainer()))
        #expect(SCUsesShared().manager.label == "configured")
        #expect(try Container.shared.tryResolve(type: SCKey.self, name: "k").value == 7)
    }

    @Test(".container { } runs the configuration for every case", .container { c in
        c.register(type: SCManager.self, in: .shared) { _ in SCManager("per case") }
    }, arguments: [1, 2])
    func configuredPerCase(_ value: Int) throws {
        #expect(recordFreshContainer(), "another test case already had this container")
        try #require(Container.shared.isRegistered(type: SCManager.self), "the configuration did not reach Container.shared")
        #expect(SCUsesShared().manager.label == "per case")
        // Re-registering here must not leak into the other case.
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: value) }
    }
}

@Suite("A suite with .freshContainer", .freshContainer)
struct FreshContainerSuiteTests {
    private func check(_ value: Int) async {
        #expect(recordFreshContainer(), "another test already had this container")
        #expect(Container.shared !== (await defaultSharedContainer()))
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: value) }
        #expect(Container.shared.resolve(type: SCKey.self).value == value)
    }

    @Test("first test of the suite has its own container")
    func first() async { await check(10) }

    @Test("second test of the suite has its own container")
    func second() async { await check(20) }

    @Test("third test of the suite has its own container")
    func third() async { await check(30) }
}

@Suite("A suite with .container { }", .container { c in
    c.register(type: SCManager.self) { _ in SCManager("suite") }
})
struct ConfiguredContainerSuiteTests {
    @Test("a test's own .freshContainer overrides the suite's", .freshContainer)
    func testTraitWins() {
        #expect(!Container.shared.isRegistered(type: SCManager.self))
    }

    @Test("a test's own .container { } overrides the suite's", .container { c in
        c.register(type: SCManager.self) { _ in SCManager("test") }
    })
    func testConfigurationWins() throws {
        try #require(Container.shared.isRegistered(type: SCManager.self))
        #expect(SCUsesShared().manager.label == "test")
    }

    private func check() throws {
        #expect(recordFreshContainer(), "another test already had this container")
        try #require(Container.shared.isRegistered(type: SCManager.self), "the configuration did not reach Container.shared")
        #expect(SCUsesShared().manager.label == "suite")
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        Container.shared.register(type: SCKey.self) { _ in SCKey(value: 0) }
    }

    @Test("first test sees the suite's configuration in a container of its own")
    func first() throws { try check() }

    @Test("second test sees the suite's configuration in a container of its own")
    func second() throws { try check() }
}

@Suite("ContainerTrait inside a suite's", .container { c in
    c.register(type: SCKey.self) { _ in SCKey(value: 1) }
    c.register(type: SCManager.self) { _ in SCManager("suite") }
})
struct ContainerTraitNestingTests {
    @Test("a test's .container { } adds to its suite's container: the suite's registrations, then the test's", .container { c in
        c.register(type: SCManager.self) { _ in SCManager("test") }
    })
    func containerAddsToTheSuites() {
        #expect(Container.shared.isRegistered(type: SCKey.self), "the suite's registration is gone")
        #expect(Container.shared.resolve(type: SCKey.self).value == 1)
        #expect(Container.shared.resolve(type: SCManager.self).label == "test")
    }

    @Test("a test without a trait of its own gets the suite's container")
    func suitesAlone() {
        #expect(Container.shared.resolve(type: SCManager.self).label == "suite")
    }

    @Test(".freshContainer inside it is empty all the same", .freshContainer)
    func freshStaysEmpty() {
        #expect(!Container.shared.isRegistered(type: SCKey.self))
    }

    @Test(".container(startingFrom:) inside it starts from its wiring alone", .container(startingFrom: { c in
        c.register(type: SCManager.self) { _ in SCManager("wiring") }
    }))
    func startingFromIsItsOwn() {
        #expect(!Container.shared.isRegistered(type: SCKey.self))
        #expect(Container.shared.resolve(type: SCManager.self).label == "wiring")
    }
}
