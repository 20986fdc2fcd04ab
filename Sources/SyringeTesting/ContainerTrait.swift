public import Syringe
public import Testing

/// A Swift Testing trait that runs each test with its own fresh
/// `Container.shared`, so tests that register into the shared container can
/// run in parallel without seeing each other's registrations. The container
/// is closed when the test ends, disposing its `.shared` instances.
///
/// ```swift
/// @Test(.freshContainer)
/// func loadsProfile() {
///     Container.shared.register { _ in FakeAPI() as API }
///     #expect(ProfileLoader().load() == .fake)   // ProfileLoader's @Injected api is the fake
/// }
///
/// @Suite(.container { $0.register { _ in FakeAPI() as API } })
/// struct ProfileTests { ... }
/// ```
public struct ContainerTrait: TestTrait, SuiteTrait, TestScoping {
    private let configure: @Sendable (Container) -> Void
    /// Whether, inside a suite whose trait gave the test a container, it
    /// configures that one rather than making its own (`.container { … }`).
    private let addsToEnclosing: Bool

    init(addsToEnclosing: Bool = false, configure: @escaping @Sendable (Container) -> Void) {
        self.addsToEnclosing = addsToEnclosing
        self.configure = configure
    }

    /// The container a trait made for the test running: what a test's own
    /// `.container { … }` adds to.
    @TaskLocal private static var enclosing: Container?

    /// Applied to a suite, the trait gives every test in it a container of its own.
    public var isRecursive: Bool { true }

    /// Runs `function` with `Container.shared` bound to a new container,
    /// configured by the trait's closure, and closes that container when the
    /// test ends, however it ends: its `.shared` instances are disposed, as
    /// at the app's shutdown, and a disposer that throws fails the test. The
    /// closure runs with it bound too, so that what it builds at once (an
    /// assembly's `loaded`) injects from the test's container, not the
    /// default one. Swift Testing calls this.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if addsToEnclosing, let enclosing = Self.enclosing {
            // The enclosing trait's scope binds it, and closes it.
            configure(enclosing)
            try await function()
            return
        }
        let container = Container()
        do {
            try await Container.$shared.withValue(container) {
                try await Self.$enclosing.withValue(container) {
                    configure(container)
                    try await function()
                }
            }
        } catch {
            // Closed after a failing test too; its own failure is the one
            // reported: a disposal failure only fails a test that passed.
            try? await container.close()
            throw error
        }
        try await container.close()
    }
}

extension Trait where Self == ContainerTrait {
    /// Runs the test with an empty `Container.shared` of its own.
    ///
    /// ```swift
    /// @Test(.freshContainer) func startsEmpty() { #expect(!Container.shared.isRegistered(type: API.self)) }
    /// ```
    public static var freshContainer: Self {
        ContainerTrait { _ in }
    }

    /// Runs the test with a `Container.shared` of its own, set up by `configure`.
    ///
    /// On a test (or suite) inside a suite whose trait gives each test a
    /// container (`.freshContainer`, `.container`), it adds to that one:
    /// the suite's registrations first, then these, which replace what they
    /// register again. `.freshContainer` and `.container(startingFrom:)`
    /// always start a container of their own.
    ///
    /// ```swift
    /// @Suite(.container { $0.register { _ in FakeAPI() as API } })
    /// struct ProfileTests {
    ///     @Test(.container { $0.register { _ in FakeClock() as Clock } })
    ///     func expires() { ... }   // FakeAPI and FakeClock
    /// }
    /// ```
    public static func container(_ configure: @escaping @Sendable (Container) -> Void) -> Self {
        ContainerTrait(addsToEnclosing: true, configure: configure)
    }

    /// Runs the test with a `Container.shared` of its own, registered by the
    /// production wiring and then by `overrides`, which replace what they
    /// register again: every consumer, `.shared` ones included, gets the
    /// replacement, because it is one container (a child container's
    /// override would not reach a parent's `.shared` service).
    ///
    /// ```swift
    /// @Test(.container(startingFrom: AppWiring.register) { $0.register(type: API.self, fake: RecordingAPI()) })
    /// func loadsProfile() throws {
    ///     let loader = try Container.shared.tryResolve(type: ProfileLoader.self)   // its API is the fake
    /// }
    /// ```
    // Disfavoured: `.container { … }` would also match this one, its
    // trailing closure taking `startingFrom`.
    @_disfavoredOverload
    public static func container(
        startingFrom wiring: @escaping @Sendable (Container) -> Void,
        _ overrides: @escaping @Sendable (Container) -> Void = { _ in }
    ) -> Self {
        ContainerTrait { container in
            wiring(container)
            overrides(container)
        }
    }
}
