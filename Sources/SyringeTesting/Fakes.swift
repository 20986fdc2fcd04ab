public import Syringe

extension Container {
    /// Registers a test double you made first as the `.shared` instance of
    /// `type`, even when it is not `Sendable` (most fakes are classes that
    /// record what they were asked, and are not).
    ///
    /// `register(type:dependency:)` cannot take such a fake: its closure is
    /// `@Sendable`, and capturing a non-`Sendable` value in one is an error.
    /// This takes the instance itself, and that is safe enough for tests:
    /// Syringe never reads or writes the fake's state, it only hands the
    /// same reference to every resolve (and, as for any `.shared`
    /// instance, calls its `dispose()` when the container closes, if it is
    /// `Disposable`). A test that resolves from its own task
    /// uses the fake from that task only, as if it had never registered it;
    /// a test that resolves from several tasks at once shares the fake
    /// between them, and must make the fake thread-safe, as it would when
    /// sharing it any other way. Only `SyringeTesting` offers this: app
    /// code registers factories.
    ///
    /// ```swift
    /// final class RecordingAPI: API { var requests: [String] = [] … }   // not Sendable
    ///
    /// @Test func loadsProfile() throws {
    ///     let api = RecordingAPI()
    ///     let container = AppWiring.makeContainer()
    ///     container.register(type: API.self, fake: api)
    ///     _ = try container.tryResolve(type: ProfileLoader.self).load()
    ///     #expect(api.requests == ["/profile"])
    /// }
    /// ```
    // `type:` has no default: without one, a trailing closure with typed
    // parameters (a factory with arguments) would match `fake:`, the
    // closure itself becoming the value.
    @discardableResult
    public func register<T>(type: T.Type, name: String? = nil, fake: T) -> Registration<T> {
        let box = FakeBox(fake)
        return register(type: type, name: name, in: .shared) { _ in box.instance }
    }
}

/// Carries a test double into a registration's `@Sendable` factory; see
/// `Container.register(type:name:fake:)` for why that is safe enough.
private final class FakeBox<T>: @unchecked Sendable {
    let instance: T

    init(_ instance: T) {
        self.instance = instance
    }
}
