/// Tracing: an event per resolve, for logs, metrics and "why is start-up slow".
extension Container {
    /// Calls `handler` once per resolve made through this container or its
    /// children and scopes, and per resolve that such a resolve makes in any
    /// container (a traced request is traced whole, with the tracer of the
    /// container it started from: a container's own tracer sees a resolve
    /// through it only when no tracer above has taken the request). A
    /// `resolveIfRegistered` that finds no registration is not a resolve,
    /// and is not reported. Replaces the handler set before, if any.
    ///
    /// The handler runs on the resolving thread, after the resolve returns
    /// (or fails) and a resolve's dependencies before it; `depth` says how
    /// they nest. Resolves the handler itself makes are
    /// not reported. While any container traces, every resolve in the
    /// process takes a slower, observed path; with none (the default) the
    /// cost is one load and one branch per resolve.
    ///
    /// Tracing also records which registration asked for which: see
    /// `dependencyGraph()`.
    ///
    /// The handler runs once the resolve in progress on its thread has
    /// returned, so what it resolves is a resolve of its own. The container
    /// keeps the handler until `stopTracing()`: a handler that captures the
    /// container (or something that holds it) keeps both alive, and keeps
    /// every resolve of the process on the slower path; capture it `weak`.
    ///
    /// ```swift
    /// container.trace { event in logger.debug("\(event)") }
    /// // Repo (.new) created in 2.1 µs, depth 1
    /// // TodoHandler (.new) created in 6.4 µs
    /// container.stopTracing()
    /// ```
    public func trace(_ handler: @escaping @Sendable (ResolutionEvent) -> Void) {
        observation.setHandler(handler)
    }

    /// Stops the tracing `trace(_:)` started on this container. What it
    /// recorded for `dependencyGraph()` is kept.
    ///
    /// ```swift
    /// container.stopTracing()
    /// ```
    public func stopTracing() {
        existingObservation?.setHandler(nil)
    }
}

/// One resolve, as `Container.trace(_:)` reports it.
///
/// ```swift
/// container.trace { event in
///     if event.outcome == .created, event.duration > .milliseconds(100) {
///         print("slow factory: \(event.request) took \(event.duration)")
///     }
/// }
/// ```
public struct ResolutionEvent: Sendable, CustomStringConvertible {
    /// What the resolve did.
    public enum Outcome: Sendable, Hashable {
        /// A factory ran: a new instance.
        case created
        /// An existing instance was returned (`.shared`, `.scoped`, `.weak`,
        /// or a `.graph` instance the graph already had).
        case reused
        /// The resolve failed; see `error`.
        case failed
    }

    /// The requested type.
    public let type: Any.Type
    /// The requested name, if any.
    public let name: String?
    /// The runtime-argument types of the request, e.g. `["String", "Int"]`.
    public let argumentTypes: [String]
    /// The registration's scope; nil for an alias made with `implements`, and
    /// for a request that found no registration.
    public let scope: Scope?
    /// Whether an instance was created, reused, or the resolve failed.
    public let outcome: Outcome
    /// How deep the resolve was nested: 0 for a top-level resolve, 1 for
    /// what its factory (or its `onResolved` callback) resolved, and so on.
    public let depth: Int
    /// How long the resolve took, its dependencies included.
    public let duration: Duration
    /// Why the resolve failed, when `outcome` is `.failed`.
    public let error: ResolutionError?

    /// The requested service as errors print it, e.g. `Animal named "Cat"`.
    public var request: String {
        TypeName.request(TypeName.of(type), name: name, argumentTypes: argumentTypes)
    }

    /// One line: `Repo (.new) created in 2.1 µs, depth 1`.
    public var description: String {
        var text = request
        if let scope {
            text += " (.\(scope))"
        }
        switch outcome {
        case .created: text += " created"
        case .reused: text += " reused"
        case .failed: text += " failed"
        }
        text += " in " + Self.format(duration)
        if depth > 0 {
            text += ", depth \(depth)"
        }
        if let error, outcome == .failed {
            text += ": " + (error.description.split(separator: "\n").first.map(String.init) ?? "")
        }
        return text
    }

    /// `850 ns`, `2.1 µs`, `64 µs`, `3.4 ms`.
    private static func format(_ duration: Duration) -> String {
        let nanoseconds = Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
        func short(_ value: Double, _ unit: String) -> String {
            value < 10 ? "\((value * 10).rounded() / 10) \(unit)" : "\(Int(value.rounded())) \(unit)"
        }
        if nanoseconds < 1_000 {
            return "\(Int(nanoseconds.rounded())) ns"
        }
        if nanoseconds < 1_000_000 {
            return short(nanoseconds / 1_000, "µs")
        }
        return short(nanoseconds / 1_000_000, "ms")
    }
}

extension Scope {
    /// The scope a definition of `kind` was registered with; nil for aliases.
    init?(_ kind: AnyDefinition.Kind) {
        switch kind {
        case .new: self = .new
        case .shared: self = .shared
        case .graph: self = .graph
        case .weak: self = .weak
        case .scoped, .scopeLocal: self = .scoped
        case .forward, .forwardToScoped: return nil
        }
    }
}
