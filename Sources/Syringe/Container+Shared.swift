extension Container {
    /// The container that `@Injected`, `@LazyInjected` and `@WeakInjected`
    /// use when none is given.
    ///
    /// It is task-local: a test or a task can run with its own container
    /// while others run in parallel with theirs. A child task inherits its
    /// parent's binding; a detached task does not, and sees the default
    /// container (a failed injection there says so).
    ///
    /// ```swift
    /// Container.shared.register { _ in LiveManager() as Manager }
    ///
    /// let testContainer = Container()
    /// testContainer.register { _ in FakeManager() as Manager }
    /// let manager = Container.$shared.withValue(testContainer) { UsesShared().manager }
    /// ```
    @TaskLocal
    public static var shared = fallback

    /// `shared` where no binding is in effect.
    static let fallback = Container()
}
