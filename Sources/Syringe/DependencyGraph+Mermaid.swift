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
    /// markup written as its entity codes, line breaks as `<br/>`, and
    /// other control characters as `visible` writes them (a browser shows
    /// nothing or `�` for them, and an SVG file with one is not XML). The
    /// backtick too: after the opening quote (a type named with a raw
    /// identifier, `` `has space` ``) it starts a Markdown string, in which
    /// a backtick not followed by a quote does not parse.
    private static func mermaidQuoted(_ text: String) -> String {
        "\"" + escaped(visible(text), ["\"": "#quot;", "#": "#35;", "&": "#38;", "<": "#lt;", ">": "#gt;", "`": "#96;",
                                        "\n": "<br/>", "\r\n": "<br/>", "\r": "<br/>"]) + "\""
    }

    /// The class of each kind of node (`Node.styleClass`), in the order
    /// they are declared.
    private static let mermaidClasses: [(String, String)] = [
        ("syringe-new", "fill:#ffffff,stroke:#555555"),
        ("syringe-shared", "fill:#dbeafe,stroke:#555555"),
        ("syringe-scoped", "fill:#dcfce7,stroke:#555555"),
        ("syringe-graph", "fill:#fef9c3,stroke:#555555"),
        ("syringe-weak", "fill:#f3f4f6,stroke:#555555"),
        ("syringe-alias", "fill:#ffffff,stroke:#555555,stroke-dasharray:2 2"),
        ("syringe-missing", "fill:#ffffff,stroke:#c0392b,color:#c0392b,stroke-dasharray:4 4"),
    ]
}

extension DependencyGraph.Node {
    /// The Mermaid class of a drawn node: `syringe-` and its scope, `alias`
    /// or `missing`. Never the bare word: Mermaid's flowchart lexer reads
    /// `graph`, `end`, `class`, `style`, `click` and its other keywords as
    /// keywords even after `:::` or `classDef`, so a `.graph` registration's
    /// `:::graph` would not parse.
    var styleClass: String {
        switch kind {
        case .missing: "syringe-missing"
        case .alias: "syringe-alias"
        case .registration: "syringe-\(scope ?? .new)"
        }
    }
}
