extension DependencyGraph {
    /// The graph in Graphviz's DOT language: one box per registration,
    /// grouped by the container that holds it, filled by scope; missing
    /// nodes dashed red; edges from callbacks dashed, from aliases dotted.
    ///
    /// ```swift
    /// try container.dependencyGraph().dot().write(toFile: "wiring.dot", atomically: true, encoding: .utf8)
    /// // dot -Tsvg wiring.dot -o wiring.svg
    /// ```
    public func dot() -> String {
        var lines = [
            "digraph Syringe {",
            "  rankdir=LR;",
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=11];",
            "  edge [color=\"#555555\"];",
        ]
        for (index, (title, group)) in holderGroups().enumerated() {
            if let title {
                lines.append("  subgraph cluster_\(index) {")
                lines.append("    label=\(Self.dotQuoted(title)); style=\"rounded,dashed\"; color=\"#999999\"; fontname=\"Helvetica\";")
                lines += group.map { "    " + dotNode($0) }
                lines.append("  }")
            } else {
                lines += group.map { "  " + dotNode($0) }
            }
        }
        for edge in edges {
            var line = "  n\(edge.from) -> n\(edge.to)"
            switch edge.origin {
            case .initializer, .factory: break
            case .onResolved: line += " [style=dashed, label=\"onResolved\", fontsize=9]"
            case .alias: line += " [style=dotted, arrowhead=empty]"
            }
            lines.append(line + ";")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func dotNode(_ node: Node) -> String {
        let label = Self.dotQuoted(node.label + "\n" + node.caption)
        switch node.kind {
        case .missing:
            return "n\(node.id) [label=\(label), style=\"rounded,dashed\", color=\"#c0392b\", fontcolor=\"#c0392b\"];"
        case .alias:
            return "n\(node.id) [label=\(label), style=\"rounded,dotted\"];"
        case .registration:
            return "n\(node.id) [label=\(label), fillcolor=\"\(node.fill)\"];"
        }
    }

    /// A DOT string literal: quotes and backslashes escaped, `&` as `&amp;`
    /// (Graphviz reads entities in labels: a name holding `&amp;` showed as
    /// `&`), newlines as `\n`,
    /// other control characters as `visible` writes them: Graphviz rejects
    /// a NUL in a string, and copies the others into its SVG, where most
    /// are not XML at all.
    private static func dotQuoted(_ text: String) -> String {
        "\"" + escaped(visible(text), ["\"": "\\\"", "\\": "\\\\", "&": "&amp;", "\n": "\\n", "\r\n": "\\n", "\r": "\\n"]) + "\""
    }

    /// `text` with each character that a drawing would hide or choke on
    /// written in Swift's literal syntax (`\u{0}`, `\u{1B}`): control
    /// characters but `\n` and `\r` (which each format draws as line
    /// breaks), U+2028, U+2029 and noncharacters. A name may hold any of
    /// them (`"a\u{0}b"` is a name of its own), so the drawing shows which.
    static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let hidden = switch scalar.properties.generalCategory {
            case .control: scalar != "\n" && scalar != "\r"
            case .lineSeparator, .paragraphSeparator: true
            default: scalar.properties.isNoncharacterCodePoint
            }
            if hidden {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with each character in `replacements` replaced.
    static func escaped(_ text: String, _ replacements: [Character: String]) -> String {
        var result = ""
        for character in text {
            if let replacement = replacements[character] {
                result += replacement
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The nodes grouped by holder, in node order: each container's (titled
    /// "container", "parent", "parent 2", …), the scope's, then the missing
    /// ones (untitled: outside any group).
    func holderGroups() -> [(title: String?, nodes: [Node])] {
        var groups: [(key: Node.Holder, nodes: [Node])] = []
        for node in nodes {
            if let index = groups.firstIndex(where: { $0.key == node.holder }) {
                groups[index].nodes.append(node)
            } else {
                groups.append((node.holder, [node]))
            }
        }
        return groups.map { group in
            switch group.key {
            case .container(let level): (level == 0 ? "container" : level == 1 ? "parent" : "parent \(level)", group.nodes)
            case .scope: ("scope", group.nodes)
            case .none: (nil, group.nodes)
            }
        }
    }
}

extension DependencyGraph.Node {
    /// The second line of a drawn node: its scope, `alias` or `missing`.
    var caption: String {
        switch kind {
        case .missing: "missing"
        case .alias: "alias"
        case .registration: scope.map { ".\($0)" } ?? ""
        }
    }

    /// A drawn node's fill, by scope.
    var fill: String {
        switch scope {
        case .shared: "#dbeafe"
        case .scoped: "#dcfce7"
        case .graph: "#fef9c3"
        case .weak: "#f3f4f6"
        case .new, nil: "#ffffff"
        }
    }
}
