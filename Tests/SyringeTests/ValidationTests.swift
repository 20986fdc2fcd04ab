import Testing
@testable import Syringe
import SyringeTesting

// Fixtures of the validation tests: a small app with deliberate mistakes.
private protocol VLogger: Sendable {}
private final class VConsoleLogger: VLogger {}
private final class VRepo: Sendable { init(logger: any VLogger) {} }
private final class VHandler: Sendable { init(repo: VRepo) {} }
private final class VSMTP: Sendable {}
private final class VMailer: Sendable { init(smtp: VSMTP) {} }
private final class VCycleA: Sendable {}
private final class VCycleB: Sendable {}
private final class VAutoC: Sendable { init(d: VAutoD) {} }
private final class VAutoD: Sendable { init(c: VAutoC) {} }
private final class VSession: Sendable {}
private final class VCache: Sendable { init(session: VSession) {} }
private final class VRequestContext: Sendable {}
private final class VAudit: Sendable { init(context: VRequestContext) {} }
private final class VEndpoint: Sendable { init(host: String, port: Int) {} }
private final class VClient: Sendable { init(endpoint: VEndpoint) {} }
private protocol VReader: Sendable {}
private final class VStore: Sendable {}
private final class VConfig: Sendable {}
private final class VPool: Sendable {}
private final class VTokenCache: Sendable { init(pool: VPool) {} }
private final class VAnimal: Sendable {}
private final class VZoo: Sendable { init(animal: VAnimal) {} }
private final class VParentService: Sendable { init(clock: VClock) {} }
private final class VClock: Sendable {}
private struct VConfigMissing: Error, Equatable {}

@Suite struct ValidationTests {
    /// A dozen and one deliberate mistakes, one of each kind validation finds,
    /// each in a registration of its own: one `validate()` reports them all.
    @Test func reportsEveryMistakeAtOnce() throws {
        let parent = Container()
        // 1. A parent's singleton depends on what only the child registers:
        //    resolved from the parent, it is missing there.
        parent.register(type: VParentService.self) { r in VParentService(clock: try r.resolve()) }
        let app = Container(parent: parent)
        app.register(type: VClock.self) { _ in VClock() }
        // 2. A missing dependency of a closure registration, two levels down.
        app.register(type: VRepo.self, in: .new) { r in VRepo(logger: try r.resolve()) }
        app.register(type: VHandler.self, in: .new) { r in VHandler(repo: try r.resolve()) }
        // 3. A missing parameter of an autoregistered initialiser.
        app.autoregister(in: .new, initializer: VMailer.init(smtp:))
        // 4. A cycle between closures.
        app.register(type: VCycleA.self, in: .new) { r in _ = try r.resolve(type: VCycleB.self); return VCycleA() }
        app.register(type: VCycleB.self, in: .new) { r in _ = try r.resolve(type: VCycleA.self); return VCycleB() }
        // 5. A cycle between autoregistered initialisers.
        app.autoregister(in: .new, initializer: VAutoC.init(d:))
        app.autoregister(in: .new, initializer: VAutoD.init(c:))
        // 6. A singleton capturing a scoped instance (closure).
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }
        app.register(type: VCache.self) { r in VCache(session: try r.resolve()) }
        // 7. The same, autoregistered.
        app.register(type: VRequestContext.self, in: .scoped) { _ in VRequestContext() }
        app.autoregister(initializer: VAudit.init(context:))
        // 8. Runtime arguments of other types than registered.
        app.register(type: VEndpoint.self) { (_: Resolver, host: String, port: Int) in VEndpoint(host: host, port: port) }
        app.register(type: VClient.self, in: .new) { r in VClient(endpoint: try r.resolve(arguments: "example.org")) }
        // 9. An alias whose instance is not of the alias type.
        app.register(type: VStore.self) { _ in VStore() }.implements(VReader.self)
        // 10. A factory that throws.
        app.register(type: VConfig.self) { _ in throw VConfigMissing() }
        // 11. A disposer nobody would run.
        app.register(type: VPool.self, in: .weak) { _ in VPool() }.onDispose { _ in }
        // 12. An async registration resolved synchronously.
        app.register(type: VTokenCache.self, in: .new) { r in VTokenCache(pool: try r.resolve()) }
        app.register(type: VPool.self, name: "async") { (_: Resolver) async throws in VPool() }
        app.register(type: VTokenCache.self, name: "async", in: .new) { r in VTokenCache(pool: try r.resolve(name: "async")) }
        // 13. A name that is not registered, with a near match.
        app.register(type: VAnimal.self, name: "Cat") { _ in VAnimal() }
        app.register(type: VZoo.self, in: .new) { r in VZoo(animal: try r.resolve(name: "Dog")) }

        let error = try #require(throws: ValidationError.self) { try app.validate() }
        let found = error.problems.map { "\($0.request): \(ExpectedReason.name(of: $0.reason)) via \($0.path.joined(separator: " → "))" }
        let expected = [
            "VLogger: notRegistered via VRepo → VLogger",
            "VSMTP: notRegistered via VMailer → VSMTP",
            "VCycleA: cycle via VCycleA → VCycleB → VCycleA",
            "VAutoC: cycle via VAutoC → VAutoD → VAutoC",
            "VSession: captiveDependency via VCache → VSession",
            "VRequestContext: captiveDependency via VAudit → VRequestContext",
            "VEndpoint with arguments (String): argumentMismatch via VClient → VEndpoint(String)",
            "VReader: incompatibleAlias via VReader",
            "VConfig: factoryFailed via VConfig",
            "VPool: disposerWithoutOwner via VPool",
            "VPool named \"async\": registeredAsync via VTokenCache[\"async\"] → VPool[\"async\"]",
            "VAnimal named \"Dog\": notRegistered via VZoo → VAnimal[\"Dog\"]",
            "VClock: notRegistered via VParentService → VClock",
        ]
        #expect(Set(found) == Set(expected), "found: \(found)")
        #expect(found.count == expected.count)
        // Each problem is described as a resolve would describe it, near matches included.
        let dog = try #require(error.problems.first { $0.request == "VAnimal named \"Dog\"" })
        #expect(dog.suggestions.contains { $0.contains("VAnimal[\"Cat\"]") })
        #expect(error.description.hasPrefix("Syringe found 13 problems in "))
        #expect(error.description.contains("13. Syringe could not resolve"))
        // The argument-free, synchronous registrations were all checked; the async one was not.
        #expect(error.report.skipped == [.init(registration: "VEndpoint(String, Int)", reason: .runtimeArguments),
                                         .init(registration: "VPool[\"async\"]", reason: .asyncFactory)])
    }

    @Test func aCleanContainerValidatesAndReportsWhatItChecked() throws {
        let app = Container()
        app.register { _ in VConsoleLogger() as any VLogger }
        app.register(type: VRepo.self, in: .new) { r in VRepo(logger: try r.resolve()) }
        app.autoregister(in: .graph, initializer: VHandler.init(repo:))
        let report = try app.validate()
        #expect(report.validated == ["VLogger", "VRepo", "VHandler"])
        #expect(report.skipped.isEmpty)
        #expect(report.description == "3 registrations validated")
    }

    @Test func theReportListsRegistrationsInRegistrationOrder() async throws {
        let app = Container()
        app.autoregister(in: .new, initializer: VRepo.init(logger:))
        app.register(type: VPool.self) { (_: Resolver) async throws in VPool() }
        app.register { _ in VConsoleLogger() as any VLogger }
        #expect(try app.validate().validated == ["VRepo", "VLogger"])
        #expect(try await app.validateAsync().validated == ["VRepo", "VPool", "VLogger"])
    }

    @Test func aProblemReachedFromManyRootsIsReportedOnceWithItsShortestPath() throws {
        let app = Container()
        app.register(type: VRepo.self, in: .new) { r in VRepo(logger: try r.resolve()) }
        app.register(type: VHandler.self, in: .new) { r in VHandler(repo: try r.resolve()) }
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        #expect(error.problems.count == 1)
        #expect(error.problems.first?.path == ["VRepo", "VLogger"])
    }

    @Test func twoTypesThatPrintAlikeAreTwoProblems() throws {
        let app = Container()
        registerFirstConfig(in: app)
        registerSecondConfig(in: app)
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        // Both print "Config": each one's missing Double, and each one's throwing factory.
        #expect(error.problems.map(\.request).sorted() == ["Config named \"throws\"", "Config named \"throws\"", "Double", "Double"])
        #expect(error.problems.filter { $0.request == "Double" }.map(\.path) == [["Config", "Double"], ["Config", "Double"]])
    }

    @Test func autoregisteredInitialisersAreCheckedWithoutRunning() throws {
        let runs = Locked(0)
        let app = Container()
        app.register(type: VSMTP.self, in: .new) { _ in VSMTP() }
        app.autoregister(in: .new) { (smtp: VSMTP) -> VMailer in
            runs.withLock { $0 += 1 }
            return VMailer(smtp: smtp)
        }
        try app.validate()
        #expect(runs.withLock { $0 } == 0)
        _ = try app.tryResolve(type: VMailer.self)
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func sharedInstancesCreatedByValidationAreKept() throws {
        let made = Locked(0)
        let app = Container()
        app.register(type: VClock.self) { _ in made.withLock { $0 += 1 }; return VClock() }
        try app.validate()
        #expect(made.withLock { $0 } == 1)
        _ = try app.tryResolve(type: VClock.self)
        try app.validate()
        #expect(made.withLock { $0 } == 1)
    }

    @Test func scopedInstancesAreMadeInAScopeOfThePassAndDisposed() throws {
        let disposed = Locked(0)
        let app = Container()
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }.onDispose { _ in disposed.withLock { $0 += 1 } }
        try app.validate()
        #expect(disposed.withLock { $0 } == 1)
    }

    @Test func registrationsWithArgumentsAreSkippedWithoutASampleAndRunWithOne() throws {
        let seen = Locked<[String]>([])
        let app = Container()
        app.register(type: VEndpoint.self) { (_: Resolver, host: String, port: Int) in
            seen.withLock { $0.append("\(host):\(port)") }
            return VEndpoint(host: host, port: port)
        }
        let report = try app.validate()
        #expect(report.skipped == [.init(registration: "VEndpoint(String, Int)", reason: .runtimeArguments)])
        #expect(seen.withLock { $0 }.isEmpty)

        var samples = SampleArguments()
        samples.add(for: VEndpoint.self, arguments: "example.org", 443)
        let sampled = try app.validate(samples: samples)
        #expect(sampled.skipped.isEmpty)
        #expect(sampled.validated == ["VEndpoint(String, Int)"])
        #expect(seen.withLock { $0 } == ["example.org:443"])
    }

    @Test func aSampleNoRegistrationTakesIsAProblemNamingWhatIsRegistered() async throws {
        let app = Container()
        app.register(type: VEndpoint.self) { (_: Resolver, host: String, port: Int) in VEndpoint(host: host, port: port) }
        app.register(type: VConsoleLogger.self, in: .new) { _ in VConsoleLogger() }
        var samples = SampleArguments()
        samples.add(for: VEndpoint.self, arguments: 443)                        // other argument types
        samples.add(for: VEndpoint.self, name: "tls", arguments: "example.org", 443)   // another name
        samples.add(for: VConsoleLogger.self, arguments: true)                      // registered without arguments
        for async in [false, true] {
            let error = try await #require(throws: ValidationError.self) {
                async ? try await app.validateAsync(samples: samples) : try app.validate(samples: samples)
            }
            // In the order of their requests' texts.
            #expect(error.problems.map(\.path) == [
                ["SampleArguments", "VConsoleLogger(Bool)"],
                ["SampleArguments", "VEndpoint[\"tls\"](String, Int)"],
                ["SampleArguments", "VEndpoint(Int)"],
            ])
            #expect(error.problems.map { ExpectedReason.name(of: $0.reason) } == ["argumentMismatch", "notRegistered", "argumentMismatch"])
            #expect(error.problems[0].description.contains("it is registered without runtime arguments."))
            #expect(error.problems[2].description.contains("it is registered with other runtime arguments: (String, Int)."))
            // The registration the samples missed is still listed as not validated.
            #expect(error.report.skipped == [.init(registration: "VEndpoint(String, Int)", reason: .runtimeArguments)])
        }
    }

    @Test func validateAsyncRunsAsyncFactoriesAndFindsTheirProblems() async throws {
        let app = Container()
        app.register(type: VPool.self) { (_: Resolver) async throws in VPool() }
        app.register(type: VTokenCache.self, in: .new) { (r: Resolver) async throws in VTokenCache(pool: try await r.resolve()) }
        app.register(type: VRepo.self, in: .new) { (r: Resolver) async throws in VRepo(logger: try await r.resolve()) }
        let syncReport = try app.validate()
        #expect(syncReport.skipped.count == 3)
        let error = try await #require(throws: ValidationError.self) { try await app.validateAsync() }
        #expect(error.problems.map(\.path) == [["VRepo", "VLogger"]])
        #expect(error.report.validated == ["VPool", "VTokenCache", "VRepo"])
        #expect(error.report.skipped.isEmpty)
    }

    @Test func theReportSaysAMainActorFactoryIsOnTheMainActorNotAsync() throws {
        let app = Container()
        app.register(type: VSession.self, in: .new, isolatedTo: MainActor.self) { _ in VSession() }
        app.register(type: VPool.self) { (_: Resolver) async throws in VPool() }
        let report = try app.validate()
        #expect(report.description == """
            0 registrations validated; not validated:
              • VSession: its factory is isolated to the main actor; `validateAsync()` checks it
              • VPool: its factory is async; `validateAsync()` checks it
            """)
    }

    @Test func validateAsyncReportsASynchronousResolveOfAnAsyncRegistrationWhateverTheOrder() async throws {
        func wiring(asyncFirst: Bool) -> Container {
            let app = Container()
            let registerPool = { app.register(type: VPool.self) { (_: Resolver) async throws in VPool() } }
            if asyncFirst { registerPool() }
            app.register(type: VSession.self, in: .new) { r in _ = try r.resolve(type: VPool.self); return VSession() }
            if !asyncFirst { registerPool() }
            return app
        }
        for asyncFirst in [true, false] {
            let error = try await #require(throws: ValidationError.self) { try await wiring(asyncFirst: asyncFirst).validateAsync() }
            #expect(error.problems.map(\.path) == [["VSession", "VPool"]])
            #expect(error.problems.first.map { ExpectedReason.name(of: $0.reason) } == "registeredAsync")
        }
        // Made before the pass (at start-up, say): the synchronous resolve returns it, as it would in the app.
        let started = wiring(asyncFirst: false)
        _ = try await started.resolveAsync(type: VPool.self)
        try await started.validateAsync()
    }

    @Test func aScopeWithSampleRequestValuesValidatesWhatDependsOnThem() throws {
        let app = Container()
        app.register(type: VRequestContext.self, in: .scoped) { r in
            _ = try r.resolve(type: VAnimal.self)   // a per-request value, registered in each scope
            return VRequestContext()
        }
        #expect(throws: ValidationError.self) { try app.validate() }
        let scope = app.makeScope()
        scope.register(type: VAnimal.self, dependency: VAnimal())
        try scope.validate()
    }

    @Test("a .weak autoregistered initialiser taking a .scoped service is reported as a captive of a .weak instance")
    func weakCaptorIsNamedAsWeak() throws {
        let app = Container()
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }
        app.autoregister(in: .weak, initializer: VSessionHolder.init(session:))
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        guard case .captiveDependency(let captor, let scope) = error.problems.first?.reason else {
            Issue.record("not a captive dependency: \(error)")
            return
        }
        #expect(captor == "VSessionHolder")
        #expect(scope == .weak)
    }

    /// A main-actor `.shared` registration, and an autoregistered and a
    /// closure `.new` one resolving it synchronously: valid on the main actor.
    @MainActor
    private static func mainActorWiring() -> Container {
        let app = Container()
        app.register(type: VMainModel.self, in: .shared, isolatedTo: MainActor.self) { _ in VMainModel() }
        app.autoregister(type: VUsesMainModel.self, in: .new, initializer: VUsesMainModel.init)
        app.register(type: VUsesMainModelToo.self, in: .new) { r in VUsesMainModelToo(model: try r.resolve()) }
        return app
    }

    @Test @MainActor func validateAsyncOnTheMainActorResolvesMainActorRegistrationsThere() async throws {
        let report = try await Self.mainActorWiring().validateAsync()
        #expect(Set(report.validated) == ["VMainModel", "VUsesMainModel", "VUsesMainModelToo"])
        // Records an issue for each problem it finds: none.
        await expectValidAsync(Self.mainActorWiring())
        // Off the main actor, the synchronous resolves of the main-actor
        // registration are what the app would get there.
        let offMain = try await Task.detached {
            try await #require(throws: ValidationError.self) { try await Self.mainActorWiring().validateAsync() }
        }.value
        #expect(offMain.problems.count == 2)
        #expect(offMain.problems.allSatisfy { ExpectedReason.name(of: $0.reason) == "isolatedToMainActor" })
    }

    @Test func expectValidRecordsOneIssuePerProblem() {
        let app = Container()
        app.register(type: VRepo.self, in: .new) { r in VRepo(logger: try r.resolve()) }
        app.register(type: VZoo.self, in: .new) { r in VZoo(animal: try r.resolve()) }
        let recorded = Locked<[String]>([])
        withKnownIssue {
            expectValid(app)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            let names = ["VLogger", "VAnimal"].filter { text.contains($0) }
            recorded.withLock { $0.append(names.joined(separator: "+")) }
            return names.count == 1
        }
        #expect(recorded.withLock { $0.sorted() } == ["VAnimal", "VLogger"], "one issue per problem, each naming its own")
        let clean = Container()
        clean.register { _ in VConsoleLogger() as any VLogger }
        #expect(expectValid(clean).validated == ["VLogger"])
    }
}

private final class VMainModel: Sendable {}
private final class VUsesMainModel: Sendable { init(model: VMainModel) {} }
private final class VUsesMainModelToo: Sendable { init(model: VMainModel) {} }
private final class VSingleton: Sendable { init(middle: VMiddleNew) {} }
private final class VMiddleNew: Sendable { init(session: VSession) {} }
private final class VClosureMiddle: Sendable { init(session: VSession) {} }
private final class VOverClosure: Sendable { init(middle: VClosureMiddle) {} }
private actor VAsyncOverClosure { init(middle: VClosureMiddle) async {} }
private final class VAsyncDisposed: Sendable {}
private final class VSyncDisposed: Sendable {}

@Suite struct ValidationReviewTests {
    /// A `.shared` autoregistered initialiser capturing a `.scoped` instance
    /// through a `.new` one is still captive.
    @Test func aCaptiveDependencyTwoLevelsDownIsFound() throws {
        let app = Container()
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }
        app.autoregister(in: .new, initializer: VMiddleNew.init(session:))
        app.autoregister(initializer: VSingleton.init(middle:))
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        #expect(error.problems.map(\.path) == [["VSingleton", "VMiddleNew", "VSession"]])
        if case .captiveDependency(let captor, _) = error.problems.first?.reason {
            #expect(captor == "VSingleton")
        } else {
            Issue.record("not a captive dependency: \(error)")
        }
    }

    /// The same through a registration made with a factory closure, which
    /// no walk of declared parameters sees into: it is resolved as the
    /// singleton's creation resolves it, from the application container,
    /// where the `.scoped` instance it asks for is captive. (Resolved on
    /// its own, from the pass's scope, it is fine.)
    @Test func aCaptiveDependencyBehindAFactoryClosureIsFound() throws {
        let app = Container()
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }
        app.register(type: VClosureMiddle.self, in: .new) { r in VClosureMiddle(session: try r.resolve()) }
        app.autoregister(initializer: VOverClosure.init(middle:))
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        #expect(error.problems.map(\.path) == [["VOverClosure", "VClosureMiddle", "VSession"]])
        guard case .captiveDependency(let captor, let scope) = error.problems.first?.reason else {
            Issue.record("not a captive dependency: \(error)")
            return
        }
        #expect(captor == "VOverClosure" && scope == .shared)
        // What validation reports is what the resolve does.
        let resolveError = try #require(throws: ResolutionError.self) { try app.makeScope().tryResolve(type: VOverClosure.self) }
        #expect(resolveError.path == ["VOverClosure", "VClosureMiddle", "VSession"])
        #expect(ExpectedReason.name(of: resolveError.reason) == "captiveDependency")
    }

    /// `validateAsync()` does the same for an async autoregistered
    /// initialiser.
    @Test func validateAsyncFindsACaptiveDependencyBehindAFactoryClosure() async throws {
        let app = Container()
        app.register(type: VSession.self, in: .scoped) { _ in VSession() }
        app.register(type: VClosureMiddle.self, in: .new) { r in VClosureMiddle(session: try r.resolve()) }
        app.autoregister(type: VAsyncOverClosure.self, initializer: VAsyncOverClosure.init(middle:))
        let error = try await #require(throws: ValidationError.self) { try await app.validateAsync() }
        #expect(error.problems.map(\.path) == [["VAsyncOverClosure", "VClosureMiddle", "VSession"]])
        #expect(error.problems.map { ExpectedReason.name(of: $0.reason) } == ["captiveDependency"])
        // A singleton that is not autoregistered needs no probe: its own
        // resolve, from its holder, finds its captive (once, not twice).
        let plain = Container()
        plain.register(type: VSession.self, in: .scoped) { _ in VSession() }
        plain.register(type: VClosureMiddle.self, in: .new) { r in VClosureMiddle(session: try r.resolve()) }
        plain.register(type: VOverClosure.self) { r in VOverClosure(middle: try r.resolve()) }
        let plainError = try #require(throws: ValidationError.self) { try plain.validate() }
        #expect(plainError.problems.map(\.path) == [["VOverClosure", "VClosureMiddle", "VSession"]])
    }

    /// Many paths through a layered graph of autoregistered initialisers are
    /// walked once each edge, not once each path (3^12 paths here).
    @Test func aLayeredGraphOfInitialisersValidates() throws {
        final class Layer<Level>: Sendable {
            init(a: LayerA<Level>, b: LayerB<Level>, c: LayerC<Level>) {}
        }
        final class LayerA<Level>: Sendable {}
        final class LayerB<Level>: Sendable {}
        final class LayerC<Level>: Sendable {}
        let app = Container()
        // Twelve levels of three types, each needing all three of the next.
        func add<Level, Next>(_: Level.Type, next: Next.Type) {
            app.autoregister(initializer: { (a: LayerA<Next>, b: LayerB<Next>, c: LayerC<Next>) in LayerA<Level>() })
            app.autoregister(initializer: { (a: LayerA<Next>, b: LayerB<Next>, c: LayerC<Next>) in LayerB<Level>() })
            app.autoregister(initializer: { (a: LayerA<Next>, b: LayerB<Next>, c: LayerC<Next>) in LayerC<Level>() })
        }
        enum L0 {}; enum L1 {}; enum L2 {}; enum L3 {}; enum L4 {}; enum L5 {}; enum L6 {}
        enum L7 {}; enum L8 {}; enum L9 {}; enum L10 {}; enum L11 {}; enum L12 {}
        add(L0.self, next: L1.self); add(L1.self, next: L2.self); add(L2.self, next: L3.self)
        add(L3.self, next: L4.self); add(L4.self, next: L5.self); add(L5.self, next: L6.self)
        add(L6.self, next: L7.self); add(L7.self, next: L8.self); add(L8.self, next: L9.self)
        add(L9.self, next: L10.self); add(L10.self, next: L11.self); add(L11.self, next: L12.self)
        app.register(type: LayerA<L12>.self) { _ in LayerA<L12>() }
        app.register(type: LayerB<L12>.self) { _ in LayerB<L12>() }
        app.register(type: LayerC<L12>.self) { _ in LayerC<L12>() }
        let report = try app.validate()
        #expect(report.validated.count == 39)
    }

    /// When a disposer is async, `validate()` (which cannot await) disposes
    /// everything on one task, newest first, as `close()` would.
    @Test func asyncDisposersRunInOrderAfterASynchronousValidation() async throws {
        let order = Locked<[String]>([])
        let app = Container()
        app.register(type: VSyncDisposed.self, in: .scoped) { _ in VSyncDisposed() }
            .onDispose { _ in order.withLock { $0.append("sync, made first") } }
        app.register(type: VAsyncDisposed.self, in: .scoped) { r in _ = try r.resolve(type: VSyncDisposed.self); return VAsyncDisposed() }
            .onDispose { _ async in order.withLock { $0.append("async, made last") } }
        try app.validate()
        for _ in 0..<1_000 where order.withLock({ $0.count }) < 2 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(order.withLock { $0 } == ["async, made last", "sync, made first"])
    }
}

private final class VDisposableNew: Sendable {}
private final class VOwnerOfNothing: Sendable { init(dep: VDisposableNew) {} }
private final class VDisposableWeak: Sendable {}
private final class VMainActorModel: Sendable {}
private final class VScreen: Sendable { init(model: VMainActorModel) {} }
private final class VStartedPool: Sendable {}
private final class VPoolRepo: Sendable { init(pool: VStartedPool) {} }
private final class VRequestScoped: Sendable {}
private final class VRequestShared: Sendable { init(scoped: VRequestScoped) {} }
private final class VRequestBuilder: Sendable { init(scoped: VRequestScoped) {} }
private final class VRequestSharedOverClosure: Sendable { init(builder: VRequestBuilder) {} }
private final class VChildOnlyValue: Sendable {}
private final class VScopedOverChildValue: Sendable {}
private protocol VCycleReader: Sendable {}
private final class VCycleStore: VCycleReader, Sendable { init(user: VCycleUser) {} }
private final class VCycleUser: Sendable { init(reader: any VCycleReader) {} }
private protocol VAliasedReader: Sendable {}
private final class VAliasedStore: VAliasedReader, Sendable {}
private final class VReaderUser: Sendable { init(reader: any VAliasedReader) {} }
private final class VScopedStore: VAliasedReader, Sendable {}

/// Each problem validation reports is the one the real resolve reports
/// (reason and path), and what the real resolve does not fail on, it does
/// not report.
@Suite struct ValidationMatchesResolveTests {
    /// The one problem `validate()` found, and the real resolve's error.
    private func problems(_ app: Container, resolving resolve: () throws -> Void) throws -> (found: ResolutionError, real: ResolutionError) {
        let error = try #require(throws: ValidationError.self) { try app.validate() }
        #expect(error.problems.count == 1, "\(error)")
        let real = try #require(throws: ResolutionError.self) { try resolve() }
        return (try #require(error.problems.first), real)
    }

    @Test(arguments: [Scope.new, .graph])
    func anAutoregisteredSingletonOverADisposableInstanceOwnedByNobodyIsReported(scope: Scope) throws {
        let app = Container()
        app.autoregister(in: scope, initializer: VDisposableNew.init).onDispose { _ in }
        app.autoregister(initializer: VOwnerOfNothing.init(dep:))
        let (found, real) = try problems(app) { _ = try app.makeScope().tryResolve(type: VOwnerOfNothing.self) }
        #expect(found.path == ["VOwnerOfNothing", "VDisposableNew"] && found.path == real.path)
        guard case .disposerWithoutOwner(let owner) = found.reason, case .disposerWithoutOwner(let realOwner) = real.reason else {
            Issue.record("not a disposer without owner: \(found), \(real)")
            return
        }
        #expect(owner == scope && realOwner == scope)
    }

    @Test func anAutoregisteredWeakRegistrationWithADisposerIsReported() throws {
        let app = Container()
        app.autoregister(in: .weak, initializer: VDisposableWeak.init).onDispose { _ in }
        let (found, real) = try problems(app) { _ = try app.makeScope().tryResolve(type: VDisposableWeak.self) }
        #expect(found.path == ["VDisposableWeak"] && found.path == real.path)
        guard case .disposerWithoutOwner(.weak) = found.reason, case .disposerWithoutOwner(.weak) = real.reason else {
            Issue.record("not a .weak disposer without owner: \(found), \(real)")
            return
        }
    }

    /// A synchronous resolve runs a main-actor factory on the main actor,
    /// and fails elsewhere: validation says the same, wherever it runs.
    @MainActor
    @Test func aMainActorRegistrationTakenByAnInitialiserValidatesOnTheMainActor() throws {
        let app = Container()
        app.register(type: VMainActorModel.self, in: .new, isolatedTo: MainActor.self) { _ in VMainActorModel() }
        app.autoregister(in: .new, initializer: VScreen.init(model:))
        _ = try app.tryResolve(type: VScreen.self)
        try app.validate()
    }

    @Test func aMainActorRegistrationTakenByAnInitialiserOffTheMainActorIsReportedAsTheResolveFails() throws {
        let app = Container()
        app.register(type: VMainActorModel.self, in: .new, isolatedTo: MainActor.self) { _ in VMainActorModel() }
        app.autoregister(in: .new, initializer: VScreen.init(model:))
        let (found, real) = try problems(app) { _ = try app.tryResolve(type: VScreen.self) }
        #expect(found.path == ["VScreen", "VMainActorModel"] && found.path == real.path)
        #expect(ExpectedReason.name(of: found.reason) == "isolatedToMainActor")
        #expect(ExpectedReason.name(of: real.reason) == "isolatedToMainActor")
    }

    /// The `.shared` instance of an async registration made before the
    /// pass (at start-up): an initialiser's synchronous resolve returns it.
    @Test func anInitialiserTakingAnAsyncSingletonThatExistsValidates() async throws {
        func wiring() -> Container {
            let app = Container()
            app.register(type: VStartedPool.self) { (_: Resolver) async throws in VStartedPool() }
            app.autoregister(in: .new, initializer: VPoolRepo.init(pool:))
            return app
        }
        let fresh = wiring()
        let error = try await #require(throws: ValidationError.self) { try await fresh.validateAsync() }
        #expect(error.problems.map(\.path) == [["VPoolRepo", "VStartedPool"]])
        #expect(error.problems.map { ExpectedReason.name(of: $0.reason) } == ["registeredAsync"])
        let started = wiring()
        _ = try await started.resolveAsync(type: VStartedPool.self)
        _ = try started.tryResolve(type: VPoolRepo.self)
        try await started.validateAsync()
        try started.validate()
    }

    /// A `.shared` instance made in a scope lives no longer than the scope.
    @Test func anAutoregisteredSingletonOfAScopeTakingAScopedOneIsNotCaptive() throws {
        let made = Locked(0)
        let app = Container()
        app.register(type: VRequestScoped.self, in: .scoped) { _ in made.withLock { $0 += 1 }; return VRequestScoped() }
        app.register(type: VRequestBuilder.self, in: .new) { r in VRequestBuilder(scoped: try r.resolve()) }
        let scope = app.makeScope()
        scope.autoregister(initializer: VRequestShared.init(scoped:))
        scope.autoregister(initializer: VRequestSharedOverClosure.init(builder:))
        try scope.validate()
        // The pass made its `.scoped` instance in a scope of its own, not in the user's.
        #expect(made.withLock { $0 } == 1)
        _ = try scope.tryResolve(type: VRequestShared.self)
        _ = try scope.tryResolve(type: VRequestSharedOverClosure.self)
        #expect(made.withLock { $0 } == 2)
        // In the application container it is captive, as its resolve says.
        app.autoregister(initializer: VRequestShared.init(scoped:))
        let (found, real) = try problems(app) { _ = try app.makeScope().tryResolve(type: VRequestShared.self) }
        #expect(found.path == ["VRequestShared", "VRequestScoped"] && found.path == real.path)
        #expect(ExpectedReason.name(of: found.reason) == "captiveDependency")
    }

    /// A plain container under a scope resolves `.scoped` registrations in
    /// that scope, with the scope's registrations, not its own.
    @Test func aScopedRegistrationSeenFromAChildOfAScopeIsResolvedAsThatScopeWould() async throws {
        let disposed = Locked(0)
        let app = Container()
        app.register(type: VScopedOverChildValue.self, in: .scoped) { r in
            _ = try r.resolve(type: VChildOnlyValue.self)
            return VScopedOverChildValue()
        }
        app.register(type: VRequestScoped.self, in: .scoped) { _ in VRequestScoped() }.onDispose { _ in disposed.withLock { $0 += 1 } }
        let scope = app.makeScope()
        let child = Container(parent: scope)
        child.register(type: VChildOnlyValue.self) { _ in VChildOnlyValue() }
        let (found, real) = try problems(child) { _ = try child.tryResolve(type: VScopedOverChildValue.self) }
        #expect(found.path == ["VScopedOverChildValue", "VChildOnlyValue"] && found.path == real.path)
        #expect(ExpectedReason.name(of: found.reason) == "notRegistered")
        // What the pass made is disposed, and none of it was the user's scope's.
        #expect(disposed.withLock { $0 } == 1)
        try await scope.close()
        #expect(disposed.withLock { $0 } == 1)
    }

    /// An alias of an autoregistered registration is checked through its
    /// target, without running the initialiser, whose `.shared` instance
    /// the pass does not create.
    @Test func anAliasOfAnAutoregisteredSingletonDoesNotRunItsInitialiser() throws {
        let runs = Locked(0)
        let app = Container()
        app.autoregister(initializer: { () -> VAliasedStore in runs.withLock { $0 += 1 }; return VAliasedStore() })
            .implements((any VAliasedReader).self)
        app.autoregister(in: .new, initializer: VReaderUser.init(reader:))
        let report = try app.validate()
        #expect(runs.withLock { $0 } == 0)
        #expect(Set(report.validated) == ["VAliasedStore", "VAliasedReader", "VReaderUser"])
        _ = try app.tryResolve(type: VReaderUser.self)
        #expect(runs.withLock { $0 } == 1)
    }

    /// A cycle through an alias lists the alias, as the resolve's does.
    @Test func aCycleThroughAnAliasListsTheAlias() throws {
        let app = Container()
        app.autoregister(in: .new, initializer: VCycleStore.init(user:)).implements((any VCycleReader).self)
        app.autoregister(in: .new, initializer: VCycleUser.init(reader:))
        let (found, real) = try problems(app) { _ = try app.tryResolve(type: VCycleUser.self) }
        #expect(found.path == ["VCycleStore", "VCycleUser", "VCycleReader", "VCycleStore"])
        #expect(real.path == ["VCycleUser", "VCycleReader", "VCycleStore", "VCycleUser"])
        #expect(ExpectedReason.name(of: found.reason) == "cycle" && ExpectedReason.name(of: real.reason) == "cycle")
    }

    /// What goes wrong behind an alias goes wrong at its target, with the
    /// alias on the path before it, as in the resolve.
    @Test func aCaptiveBehindAnAliasIsReportedAtItsTarget() throws {
        let app = Container()
        app.register(type: VScopedStore.self, in: .scoped) { _ in VScopedStore() }.implements((any VAliasedReader).self)
        app.autoregister(initializer: VReaderUser.init(reader:))
        let (found, real) = try problems(app) { _ = try app.makeScope().tryResolve(type: VReaderUser.self) }
        #expect(found.path == ["VReaderUser", "VAliasedReader", "VScopedStore"] && found.path == real.path)
        #expect(ExpectedReason.name(of: found.reason) == "captiveDependency")
        #expect(ExpectedReason.name(of: real.reason) == "captiveDependency")
    }
}

extension ExpectedReason {
    /// The case name of `reason`, without its payload.
    static func name(of reason: ResolutionError.Reason) -> String {
        switch reason {
        case .notRegistered: "notRegistered"
        case .cycle: "cycle"
        case .factoryFailed: "factoryFailed"
        case .argumentMismatch: "argumentMismatch"
        case .incompatibleAlias: "incompatibleAlias"
        case .noScope: "noScope"
        case .captiveDependency: "captiveDependency"
        case .closed: "closed"
        case .disposerWithoutOwner: "disposerWithoutOwner"
        case .registeredAsync: "registeredAsync"
        case .cancelled: "cancelled"
        case .isolatedToMainActor: "isolatedToMainActor"
        }
    }
}

/// Two registrations of types that print alike, "Config" (local types: a
/// test module's stand-in for two modules' `Config`), each requesting a
/// missing `Double`, and two more that throw.
private func registerFirstConfig(in app: Container) {
    struct Config: Sendable {}
    struct Thrown: Error {}
    app.register(type: Config.self, in: .new) { r in _ = try r.resolve(type: Double.self); return Config() }
    app.register(type: Config.self, name: "throws", in: .new) { _ in throw Thrown() }
}

private func registerSecondConfig(in app: Container) {
    struct Config: Sendable {}
    struct Thrown: Error {}
    app.register(type: Config.self, in: .new) { r in _ = try r.resolve(type: Double.self); return Config() }
    app.register(type: Config.self, name: "throws", in: .new) { _ in throw Thrown() }
}

private final class VSessionHolder: Sendable {
    let session: VSession
    init(session: VSession) { self.session = session }
}
