import CSyringeTable

/// What depends on what, as far as Syringe knows: every registration of a
/// container and its parents, and the edges between them.
///
/// Edges come from what Syringe has seen, never from guessing:
/// - `.initializer`: an `autoregister`ed initialiser's parameter types,
///   known without running anything;
/// - `.factory` and `.onResolved`: what a factory or callback resolved, seen
///   by `validate()` or while the container was traced (`trace(_:)`);
/// - `.alias`: a registration made with `implements`, to its target.
///
/// A closure registration that neither validation nor a traced resolve ran
/// has no outgoing edges yet. The edges seen from a registration that was
/// replaced or removed since are not drawn, in the graphs of its
/// container's descendants either (whose own `validate()` or tracer saw
/// them). Requests that found no registration appear as missing nodes,
/// until their key is registered: then the edge is drawn once a resolve
/// or `validate()` sees it. So do requests for a registration removed
/// since, unless a parent's would be found instead.
///
/// ```swift
/// try container.validate()
/// let graph = container.dependencyGraph()
/// try graph.dot().write(toFile: "wiring.dot", atomically: true, encoding: .utf8)   // dot -Tsvg wiring.dot
/// print(graph.mermaid())                                                          // paste into Markdown
/// ```
public struct DependencyGraph: Sendable {
    /// A registration, or a request that found none.
    public struct Node: Sendable, Hashable, Identifiable {
        /// What a node stands for.
        public enum Kind: Sendable, Hashable {
            /// A registration made with `register` or `autoregister`.
            case registration
            /// An alias made with `implements`.
            case alias
            /// A request that found no registration.
            case missing
        }

        /// Where a node's registration is.
        public enum Holder: Sendable, Hashable {
            /// The container the graph was made from (level 0), its parent
            /// (level 1), and so on.
            case container(level: Int)
            /// A scope made by `makeScope()`: registrations made per request.
            case scope
            /// Nowhere: a missing node.
            case none
        }

        /// The node's index in `DependencyGraph.nodes`.
        public let id: Int
        /// The registered type, as error paths print it (`Service` for
        /// `any Service`); with its module (`ModuleA.Config`) when another
        /// node's type would print alike.
        public let type: String
        /// The registration's name, if any.
        public let name: String?
        /// The runtime-argument types, e.g. `["String", "Int"]`.
        public let argumentTypes: [String]
        /// The registration's scope; nil for aliases and missing nodes.
        public let scope: Scope?
        /// Registration, alias or missing.
        public let kind: Kind
        /// The container that holds the registration.
        public let holder: Holder

        /// The node as error paths print it: `Animal["Cat"]`, `Endpoint(String, Int)`
        /// (with its module when another node's type prints alike; see `type`).
        public var label: String {
            var text = type
            if let name {
                text += "[\"\(name)\"]"
            }
            if !argumentTypes.isEmpty {
                text += TypeName.signature(argumentTypes)
            }
            return text
        }
    }

    /// `from`'s construction asks for `to`.
    public struct Edge: Sendable, Hashable {
        /// How Syringe knows of the edge.
        public enum Origin: Sendable, Hashable, Comparable {
            /// A parameter of an `autoregister`ed initialiser.
            case initializer
            /// A resolve made by the factory, seen by validation or tracing.
            case factory
            /// A resolve made by an `onResolved` callback (property injection;
            /// may close a cycle legitimately).
            case onResolved
            /// An alias (`implements`) forwards to its target.
            case alias
        }

        /// The index of the node that asks.
        public let from: Int
        /// The index of the node asked for.
        public let to: Int
        /// How Syringe knows of it.
        public let origin: Origin
    }

    /// Registrations first (this container's in registration order, then
    /// each parent's), then scope-held and missing nodes: ordered by the
    /// first node that asks for each, then by label, so that the same
    /// wiring gives the same graph.
    public let nodes: [Node]
    /// Each edge once, sorted by `from`, then `to`.
    public let edges: [Edge]
}

extension Container {
    /// The dependency graph of this container and its parents; see
    /// `DependencyGraph` for where its edges come from.
    ///
    /// ```swift
    /// try container.validate()                    // runs every factory once, recording edges
    /// print(container.dependencyGraph().dot())
    /// ```
    public func dependencyGraph() -> DependencyGraph {
        var builder = DependencyGraphBuilder()
        var chain: [Container] = []
        var walked: Container? = self
        while let current = walked {
            chain.append(current)
            walked = current.parent
        }
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        var declared: [(definition: AnyDefinition, holder: Container, parameters: [Any.Type])] = []
        for (level, container) in chain.enumerated() {
            let (ordered, aliases, parameters) = container.writerLock.withLock {
                (container.registry.ordered, container.registry.aliases, container.registry.parameters)
            }
            for case let definition? in ordered where definition.kind != .scopeLocal {
                guard let identity = NodeIdentity.of(definition, heldBy: container) else { continue }
                builder.addNode(identity, definition: definition,
                                holder: container.isScope ? .scope : .container(level: level))
                if let types = parameters[ObjectIdentifier(definition)] {
                    declared.append((definition, container, types))
                }
            }
            for case let (targetID, aliasList) in aliases {
                guard let target = ordered.lazy.compactMap({ $0 }).first(where: { ObjectIdentifier($0) == targetID }),
                      let to = NodeIdentity.of(target, heldBy: container) else { continue }
                for alias in aliasList {
                    if let from = NodeIdentity.of(alias, heldBy: container) {
                        builder.addEdge(ObservedEdge(from: from, to: to, origin: .alias))
                    }
                }
            }
        }
        for (definition, holder, types) in declared {
            guard let from = NodeIdentity.of(definition, heldBy: holder) else { continue }
            let resolving = definition.resolvesFromHolder ? holder : self
            for type in types {
                let (to, target) = resolving.declaredTarget(of: type)
                builder.addEdge(ObservedEdge(from: from, to: to, origin: .initializer), target: target)
            }
        }
        var forgotten: [NodeIdentity: UInt64] = [:]
        for container in chain {
            forgotten.merge(container.existingObservation?.forgottenTimes ?? [:], uniquingKeysWith: max)
        }
        for container in chain {
            guard let observation = container.existingObservation else { continue }
            let seen = observation.seen
            for (edge, seenAt) in seen.edges {
                // Seen from a registration replaced or removed since (this
                // observation may be a descendant's of its holder).
                if let forgottenAt = forgotten[edge.from], seenAt < forgottenAt {
                    continue
                }
                // A request that found nothing when it was seen, whose key
                // has been registered since: no longer missing. Its edge to
                // the registration is drawn once a resolve or `validate()`
                // sees it.
                if edge.to.holder == .missing,
                   container.locate(type: edge.to.key.type, signature: edge.to.key.signature, name: edge.to.key.name) != nil {
                    continue
                }
                // To a registration of this graph's containers that was
                // removed since: missing now, as the request would find
                // nothing, unless it would find another registration (a
                // parent's), whose edge is drawn once it is seen.
                if case .container(let id) = edge.to.holder, let holder = chain.first(where: { $0.graphIdentity == id }),
                   holder.lookup(edge.to.key) == nil {
                    guard container.locate(type: edge.to.key.type, signature: edge.to.key.signature, name: edge.to.key.name) == nil else {
                        continue
                    }
                    builder.addEdge(ObservedEdge(from: edge.from, to: NodeIdentity(holder: .missing, key: edge.to.key), origin: edge.origin),
                                    target: .missing(of: edge.to.key))
                    continue
                }
                builder.addEdge(edge, target: seen.detached[edge.to])
            }
        }
        return builder.build()
    }

    /// Where a parameter of type `type` of an autoregistered initialiser
    /// resolved from this container leads: its node, or a missing node, and
    /// how it looks if the graph may not find it among its containers'.
    /// Inside a read-side section.
    func declaredTarget(of type: Any.Type) -> (NodeIdentity, DetachedNode?) {
        let key = DefinitionKey(type: typeIdentity(type), signature: NoArguments.identity, name: nil)
        if let located = locate(type: key.type, signature: key.signature) {
            let definition = Unmanaged<AnyDefinition>.fromOpaque(located.definition).takeUnretainedValue()
            if let identity = NodeIdentity.of(definition, heldBy: located.holder.takeUnretainedValue()) {
                return (identity, identity.holder == .scope ? .scopeHeld(definition.kind) : nil)
            }
        }
        return (NodeIdentity(holder: .missing, key: key), .missing(type: TypeName.of(type), name: nil, argumentTypes: []))
    }
}

extension AnyDefinition {
    /// Whether the factory resolves from the container holding the
    /// registration (`.shared`, `.weak`) rather than the one asked.
    var resolvesFromHolder: Bool {
        kind == .shared || kind == .weak
    }

    /// Whether its instance outlives a scope (`.shared`, `.weak`): what it
    /// depends on must not be `.scoped`.
    var isSingleton: Bool {
        kind == .shared || kind == .weak
    }
}

/// Collects nodes by identity, and the edges between known nodes.
private struct DependencyGraphBuilder {
    private var nodes: [DependencyGraph.Node] = []
    /// Each node's type, by its identity (`DefinitionKey.type`).
    private var types: [UnsafeRawPointer] = []
    private var index: [NodeIdentity: Int] = [:]
    /// The edges added, kept until `build()`: which of their ends become
    /// nodes, and with which ids, must not depend on the order they came
    /// in (observations keep them in sets).
    private var added: [ObservedEdge] = []
    /// How each end of an added edge looks if it is not a registration of
    /// the graph's containers; the first description given wins.
    private var looks: [NodeIdentity: DetachedNode] = [:]

    mutating func addNode(_ identity: NodeIdentity, definition: AnyDefinition, holder: DependencyGraph.Node.Holder) {
        guard index[identity] == nil else { return }
        let isAlias = definition.kind == .forward || definition.kind == .forwardToScoped
        add(identity, DependencyGraph.Node(id: nodes.count, type: TypeName.of(definition.serviceType), name: definition.key.name,
                                           argumentTypes: definition.argumentTypes.map(TypeName.of), scope: Scope(definition.kind),
                                           kind: isAlias ? .alias : .registration, holder: holder))
    }

    private mutating func add(_ identity: NodeIdentity, _ node: DependencyGraph.Node) {
        index[identity] = node.id
        nodes.append(node)
        types.append(identity.key.type)
    }

    /// The nodes, each of whose types prints like another node's
    /// (`ModuleA.Config`, `ModuleB.Config`: both `Config`) named with its
    /// module, so that no two types share a label.
    private func distinctlyNamedNodes() -> [DependencyGraph.Node] {
        var typesNamed: [String: Set<UnsafeRawPointer>] = [:]
        for (node, type) in zip(nodes, types) {
            typesNamed[node.type, default: []].insert(type)
        }
        return zip(nodes, types).map { node, type in
            guard typesNamed[node.type, default: []].count > 1 else { return node }
            let qualified = TypeName.bounded(_typeName(unsafeBitCast(type, to: Any.Type.self), qualified: true))
            return DependencyGraph.Node(id: node.id, type: qualified, name: node.name, argumentTypes: node.argumentTypes,
                                        scope: node.scope, kind: node.kind, holder: node.holder)
        }
    }

    /// Adds `edge`, drawn if its source is a node of this graph. Its target
    /// becomes a node if it is not one yet, as `target` describes it: a
    /// missing one, or a registration of a scope (which may no longer exist).
    mutating func addEdge(_ edge: ObservedEdge, target: DetachedNode? = nil) {
        added.append(edge)
        if let target, looks[edge.to] == nil {
            looks[edge.to] = target
        }
    }

    /// Makes nodes of the targets of the added edges that are not nodes
    /// yet, level by level from the registrations (a scope-held node's
    /// edges count once it is a node); those of a level ordered by the
    /// first node that asks for each, then by label. Returns the edges
    /// between nodes.
    private mutating func connect() -> Set<DependencyGraph.Edge> {
        var edges: Set<DependencyGraph.Edge> = []
        var pending = added
        while !pending.isEmpty {
            var unplaced: [ObservedEdge] = []
            var askers: [NodeIdentity: Int] = [:]
            for edge in pending {
                guard let from = index[edge.from] else {
                    unplaced.append(edge)
                    continue
                }
                if let to = index[edge.to] {
                    edges.insert(DependencyGraph.Edge(from: from, to: to, origin: edge.origin))
                } else if looks[edge.to] != nil {
                    askers[edge.to] = min(askers[edge.to] ?? from, from)
                    unplaced.append(edge)
                }
                // Otherwise a registration of a container that is not in this graph's chain.
            }
            guard !askers.isEmpty else { break }
            // Ties on the label broken by what it does not show: the
            // qualified type and argument types (two that print alike), and
            // whether the node is a scope's registration or missing.
            let placed = askers.map { identity, asker in
                (identity, asker, Self.node(identity, looking: looks[identity].unsafelyUnwrapped, id: 0).label,
                 Self.qualifiedTypes(of: identity.key), identity.holder == .scope ? 0 : 1)
            }
            for (identity, _, _, _, _) in placed.sorted(by: { ($0.1, $0.2, $0.3, $0.4) < ($1.1, $1.2, $1.3, $1.4) }) {
                add(identity, Self.node(identity, looking: looks[identity].unsafelyUnwrapped, id: nodes.count))
            }
            pending = unplaced
        }
        return edges
    }

    /// `key`'s type and argument types, written out whole.
    private static func qualifiedTypes(of key: DefinitionKey) -> String {
        ([unsafeBitCast(key.type, to: Any.Type.self)] + key.argumentTypes).map(TypeName.qualified).joined(separator: ",")
    }

    /// The node `identity`, which `look` describes.
    private static func node(_ identity: NodeIdentity, looking look: DetachedNode, id: Int) -> DependencyGraph.Node {
        switch look {
        case let .missing(type, name, argumentTypes):
            return DependencyGraph.Node(id: id, type: type, name: name, argumentTypes: argumentTypes, scope: nil, kind: .missing, holder: .none)
        case let .scopeHeld(kind):
            let key = identity.key
            let isAlias = kind == .forward || kind == .forwardToScoped
            return DependencyGraph.Node(id: id, type: key.typeName, name: key.name, argumentTypes: key.argumentTypeNames, scope: Scope(kind),
                                        kind: isAlias ? .alias : .registration, holder: .scope)
        }
    }

    mutating func build() -> DependencyGraph {
        // One edge per pair: the most certain origin wins (an initialiser's
        // parameter over a seen resolve).
        var best: [Pair: DependencyGraph.Edge] = [:]
        for edge in connect() {
            let pair = Pair(from: edge.from, to: edge.to)
            if let current = best[pair], current.origin <= edge.origin { continue }
            best[pair] = edge
        }
        return DependencyGraph(nodes: distinctlyNamedNodes(), edges: best.values.sorted { ($0.from, $0.to) < ($1.from, $1.to) })
    }

    private struct Pair: Hashable {
        let from: Int
        let to: Int
    }
}
