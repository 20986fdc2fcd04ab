/// A registration key as the writer side keeps it: identities plus the
/// canonical (NFC) name.
@usableFromInline
struct DefinitionKey: @unchecked Sendable, Hashable, CustomStringConvertible {
    let type: UnsafeRawPointer
    let signature: UnsafeRawPointer
    let name: String?

    @usableFromInline
    init(type: UnsafeRawPointer, signature: UnsafeRawPointer, name: String?) {
        self.type = type
        self.signature = signature
        self.name = name.map(KeyName.canonical)
    }

    /// The key's type, as the graph and error paths print it.
    var typeName: String {
        TypeName.of(unsafeBitCast(type, to: Any.Type.self))
    }

    /// The key's runtime argument types.
    var argumentTypes: [Any.Type] {
        signature == NoArguments.identity ? [] : SignatureTypes.shared.types(of: signature)
    }

    /// The key's runtime argument types, as the graph and error paths print them.
    var argumentTypeNames: [String] {
        argumentTypes.map(TypeName.of)
    }

    @usableFromInline
    var description: String {
        "type \(type), signature \(signature), name \(name.map { "\"\($0)\"" } ?? "nil")"
    }
}
