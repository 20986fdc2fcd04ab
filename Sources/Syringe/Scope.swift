/// How long a resolved instance lives, and who shares it.
///
/// ```swift
/// container.register(type: Clock.self, in: .shared) { _ in SystemClock() }
/// container.register(type: Request.self, in: .new) { _ in Request() }
/// ```
public enum Scope: Sendable, Hashable, CustomStringConvertible {
    /// A new instance for every resolve.
    case new
    /// One instance per container that holds the registration, created lazily
    /// and exactly once, even when many threads ask for it first at the same time.
    case shared
    /// One instance per top-level resolve and container: every request
    /// through the same container inside the object graph built by one
    /// outermost `resolve` gets the same instance. A `.shared`, `.weak` or
    /// `.scoped` instance that a resolve through a child of its container
    /// makes builds in its own container's graph, so that it never keeps one
    /// made with the child's registrations.
    case graph
    /// Shared while somebody outside the container holds the instance;
    /// created anew after the last outside reference is gone.
    case weak
    /// One instance per scope (`makeScope()`, `withScope`): a request's unit
    /// of work, shared by everything resolved in that scope and disposed
    /// when the scope closes. Resolving it where no scope is, or from a
    /// `.shared` or `.weak` factory registered above every scope, is a `ResolutionError`.
    case scoped

    /// The scope's name as written in code: `"new"`, `"shared"`, `"graph"`, `"weak"`, `"scoped"`.
    ///
    /// ```swift
    /// print(Scope.graph)   // graph
    /// ```
    public var description: String {
        switch self {
        case .new: "new"
        case .shared: "shared"
        case .graph: "graph"
        case .weak: "weak"
        case .scoped: "scoped"
        }
    }
}
