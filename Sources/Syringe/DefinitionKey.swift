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

    @usableFromInline
    var description: String {
        "type \(type), signature \(signature), name \(name.map { "\"\($0)\"" } ?? "nil")"
    }
}
