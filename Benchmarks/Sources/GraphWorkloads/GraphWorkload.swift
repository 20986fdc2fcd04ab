// Rows G1–G3: whole object graphs. generate-graphs.py writes each graph as a
// module of its own (GraphG1–GraphG3), which declares it as `GraphWorkload.g1`…
import Swinject
import Syringe
import SyringeOnDictionary

/// One generated object graph, and how each contender registers and resolves
/// it. Resolving goes through a closure made here, so that every contender's
/// call site is compiled in this module the same way.
public struct GraphWorkload: Sendable {
    public let nodes: Int
    public let edges: Int
    /// Objects one resolve of the root makes once the `.shared` ones exist.
    public let objectsPerResolve: Int
    public let registerSyringe: @Sendable (Syringe.Container) -> Void
    public let resolveSyringe: @Sendable (Syringe.Container) -> AnyObject
    public let registerOnDictionary: @Sendable (SyringeOnDictionary.Container) -> Void
    public let resolveOnDictionary: @Sendable (SyringeOnDictionary.Container) -> AnyObject
    public let registerSwinject: @Sendable (Swinject.Container) -> Void
    public let resolveSwinject: @Sendable (Swinject.Resolver) -> AnyObject
    /// Makes the `.shared` nodes (if any) and returns the hand-wired build of
    /// the rest: direct initialiser calls in dependency order.
    public let makeByHand: @Sendable () -> () -> AnyObject

    /// Public, unlike the memberwise initialiser: each graph's module
    /// (GraphG1–GraphG3) makes its own, as `GraphWorkload.g1` and so on.
    public init(
        nodes: Int, edges: Int, objectsPerResolve: Int,
        registerSyringe: @escaping @Sendable (Syringe.Container) -> Void,
        resolveSyringe: @escaping @Sendable (Syringe.Container) -> AnyObject,
        registerOnDictionary: @escaping @Sendable (SyringeOnDictionary.Container) -> Void,
        resolveOnDictionary: @escaping @Sendable (SyringeOnDictionary.Container) -> AnyObject,
        registerSwinject: @escaping @Sendable (Swinject.Container) -> Void,
        resolveSwinject: @escaping @Sendable (Swinject.Resolver) -> AnyObject,
        makeByHand: @escaping @Sendable () -> () -> AnyObject
    ) {
        self.nodes = nodes
        self.edges = edges
        self.objectsPerResolve = objectsPerResolve
        self.registerSyringe = registerSyringe
        self.resolveSyringe = resolveSyringe
        self.registerOnDictionary = registerOnDictionary
        self.resolveOnDictionary = resolveOnDictionary
        self.registerSwinject = registerSwinject
        self.resolveSwinject = resolveSwinject
        self.makeByHand = makeByHand
    }
}
