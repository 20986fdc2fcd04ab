/// Human-readable names for diagnostics. Never used on a successful resolve.
enum TypeName {
    /// Longest name or error text quoted in a diagnostic, in Unicode scalars,
    /// so that a 1 MiB name cannot make a 1 MiB error message. Counted in
    /// scalars, not `Character`s: one grapheme cluster can be any length.
    static let limit = 80

    static func of(_ type: Any.Type) -> String {
        bounded(_typeName(type, qualified: false))
    }

    /// `of`, with the module and enclosing types: for two types that
    /// `of` prints alike.
    static func qualified(_ type: Any.Type) -> String {
        bounded(_typeName(type, qualified: true))
    }

    static func bounded(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else {
            return text
        }
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars.prefix(limit))
        return String(prefix) + "… (\(text.utf8.count) bytes)"
    }

    static func request(_ type: String, name: String?, argumentTypes: [String]) -> String {
        var text = type
        if let name {
            text += " named \"\(bounded(name))\""
        }
        if !argumentTypes.isEmpty {
            text += " with arguments " + signature(argumentTypes)
        }
        return text
    }

    static func signature(_ argumentTypes: [String]) -> String {
        "(" + argumentTypes.joined(separator: ", ") + ")"
    }

    /// A path element: `Animal["Cat"]`, `Endpoint(String, Int)`.
    static func step(_ type: Any.Type, name: String?, argumentTypes: [Any.Type]) -> String {
        var text = of(type)
        if let name {
            text += "[\"\(bounded(name))\"]"
        }
        if !argumentTypes.isEmpty {
            text += signature(argumentTypes.map(of))
        }
        return text
    }
}
