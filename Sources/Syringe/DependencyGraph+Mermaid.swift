extension DependencyGraph {
    /// The graph as a Mermaid flowchart, for Markdown that renders Mermaid
    /// (GitHub, GitLab, many wikis): the same grouping and styles as `dot()`.
    ///
    /// ````swift
    /// let markdown = "```mermaid\n" + container.dependencyGraph().mermaid() + "```\n"
    /// ````
    public func mermaid() -> String {
        var lines = ["flowchart LR"]
        for (groupIndex, group) in holderGroups().enumerated() {
            if let title = group.title {
                lines.append("  subgraph c\(groupIndex) [\(Self.mermaidQuoted(title))]")
                lines += group.nodes.map { "    " + mermaidNode($0) }
                lines.append("  end")
            } else {
                lines += group.nodes.map { "  " + mermaidNode($0) }
            }
        }
        for edge in edges {
            switch edge.origin {
            case .initializer, .factory: lines.append("  n\(edge.from) --> n\(edge.to)")
            case .onResolved: lines.append("  n\(edge.from) -.->|onResolved| n\(edge.to)")
            case .alias: lines.append("  n\(edge.from) -.-> n\(edge.to)")
            }
        }
        let used = Set(nodes.map(\.styleClass))
        for (name, style) in Self.mermaidClasses where used.contains(name) {
            lines.append("  classDef \(name) \(style)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func mermaidNode(_ node: Node) -> String {
        "n\(node.id)[\(Self.mermaidQuoted(node.label + "\n" + node.caption))]:::\(node.styleClass)"
    }

    /// A Mermaid label in quotes, with the characters Mermaid would read as
    /// markup written as its entity codes, and line breaks as `<br/>`.
    private static func mermaidQuoted(_ text: String) -> String {
        "\"" + escaped(text, ["\"": "#quot;", "#": "#35;", "<": "#lt;", ">": "#gt;", "\n": "<br/>", "\r\n": "<br/>", "\r": "<br/>"]) + "\""
    }

    /// The class of each kind of node, in the order they are declared.
    private static let mermaidClasses: [(String, String)] = [
        ("new", "fill:#ffffff,stroke:#555555"),
        ("shared", "fill:#dbeafe,stroke:#555555"),
        ("scoped", "fill:#dcfce7,stroke:#555555"),
        ("graph", "fill:#fef9c3,stroke:#555555"),
        ("weak", "fill:#f3f4f6,stroke:#555555"),
        ("alias", "fill:#ffffff,stroke:#555555,stroke-dasharray:2 2"),
        ("missing", "fill:#ffffff,stroke:#c0392b,color:#c0392b,stroke-dasharray:4 4"),
    ]
}

extension DependencyGraph.Node {
    /// The Mermaid class of a drawn node.
    var styleClass: String {
        switch kind {
        case .missing: "missing"
        case .alias: "alias"
        case .registration: scope.map { "\($0)" } ?? "new"
        }
    }
}
