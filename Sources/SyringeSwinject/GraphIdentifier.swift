import Synchronization

/// Identifies one object graph: everything one outermost resolve (and the
/// resolves its factories make) builds. `.graph` instances are shared within
/// a graph; `Container.restoreObjectGraph(_:)` and
/// `Container.withObjectGraph(_:closure:)` resolve into a graph again.
///
/// ```swift
/// container.register(Dog.self) { r in
///     graph = (r as? Container)?.currentObjectGraph
///     return Dog()
/// }
/// ```
public struct GraphIdentifier: Hashable, Identifiable, Sendable {
    /// Unique in the process: no two graphs, and no two identifiers made
    /// with `init()`, share one.
    public let id: UInt

    /// A new identifier, distinct from every other.
    public init() {
        id = GraphNumbers.take(1)
    }

    init(number: UInt) {
        id = number
    }
}

/// Hands out graph numbers. A thread takes a block at a time (see
/// `ResolutionState`), so that starting a graph touches no shared memory;
/// numbers are never reused, so an identifier kept to restore a graph can
/// never name a later one.
enum GraphNumbers {
    private static let next = Atomic<UInt>(1)

    /// The first of `count` fresh consecutive numbers.
    static func take(_ count: UInt) -> UInt {
        next.wrappingAdd(count, ordering: .relaxed).oldValue
    }
}
