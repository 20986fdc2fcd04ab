import CSyringeTable

/// Lets diagnostics see through `Optional` without knowing its wrapped type statically.
private protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// An `Array`'s element type, for the near matches of a request for one.
private protocol ArrayType {
    static var elementType: Any.Type { get }
}

extension Array: ArrayType {
    static var elementType: Any.Type { Element.self }
}

extension Container {
    /// Throws `notRegistered` for a key without arguments. Out of line, so
    /// that each type's specialised resolve carries one call where it carried
    /// nine arguments' setup and a throw: about 80 bytes of code per resolved
    /// type, which an object graph of a hundred types pays in
    /// instruction-cache misses on every resolve.
    @usableFromInline
    @inline(never)
    func throwNotRegistered<T>(_ type: T.Type, name: String?) throws(ResolutionError) -> Never {
        throw notRegistered(type, name: name, signature: NoArguments.identity, argumentTypes: [])
    }

    /// The error for a key that is registered nowhere in the chain, with near
    /// matches. Runs only on failure; cost is linear in the registrations.
    @usableFromInline
    /// `path` replaces the path of the resolve in progress (for validation's
    /// checks, which run none); `observed: false` keeps the request from
    /// observers.
    func notRegistered<T>(_ type: T.Type, name: String?, signature: UnsafeRawPointer, argumentTypes: [Any.Type],
                          asyncParent: AsyncFrame? = nil, path explicitPath: [String]? = nil, observed: Bool = true) -> ResolutionError {
        // Its own section: the async engine calls this outside any, and the
        // near matches read `.shared` instances (a nested section is free).
        let section = syr_read_enter()
        defer { syr_read_exit(section) }
        let step = TypeName.step(T.self, name: name, argumentTypes: argumentTypes)
        let path = explicitPath ?? ((asyncParent?.pathText ?? ResolutionContext.current.pathText) + [step])
        if isClosedOnChainNow {
            return ResolutionError(reason: .closed, type: T.self, name: name, argumentTypes: argumentTypes, path: path)
        }
        let finder = NearMatches(type: T.self, name: name.map(KeyName.canonical), signature: signature)
        var container: Container? = self
        while let current = container {
            for case let definition? in current.definitionsSnapshot {
                finder.consider(definition)
            }
            container = current.parent
        }
        // Types that print alike (`Billing.Config`, `Shipping.Config`) are
        // written out whole, in the request too: "arguments (Config): it is
        // registered with other runtime arguments: (Config)" said nothing.
        let printsAlike = finder.otherSignatures.contains(TypeName.signature(argumentTypes.map(TypeName.of)))
        let registered = printsAlike
            ? finder.otherSignatureTypes.map { TypeName.signature($0.map(TypeName.qualified)) }
            : finder.otherSignatures
        let reason: ResolutionError.Reason = registered.isEmpty ? .notRegistered : .argumentMismatch(registered: registered)
        let error = ResolutionError(reason: reason, type: T.self, name: name, argumentTypes: argumentTypes,
                                    qualifyingArguments: printsAlike,
                                    path: path, suggestions: finder.suggestions, unlistedSuggestions: finder.unlisted)
        if observed && syr_observed() {
            observeMissing(T.self, key: DefinitionKey(type: typeIdentity(T.self), signature: signature, name: name),
                           argumentTypes: argumentTypes, error: error, asyncParent: asyncParent)
        }
        return error
    }
}

/// Collects what a failed request may have meant, best first, at most five.
private final class NearMatches<T> {
    static var limit: Int { 5 }

    let name: String?
    let signature: UnsafeRawPointer
    let wanted: UnsafeRawPointer
    let wantedName: String
    /// `Wrapped` when `T` is `Optional<Wrapped>`.
    let unwrapped: UnsafeRawPointer?
    /// `Element` when `T` is `[Element]`.
    let element: UnsafeRawPointer?
    private(set) var otherSignatures: [String] = []
    /// The argument types of each of `otherSignatures`.
    private(set) var otherSignatureTypes: [[Any.Type]] = []
    /// Texts are built only for the five that are shown.
    private var ranked: [(rank: Int, text: () -> String)] = []
    private var seenTypes: Set<UnsafeRawPointer> = []
    /// Keys already considered: a child's registration hides its parent's
    /// under the same key, and a scope's copy of a `.scoped` registration
    /// has the original's key; each is one suggestion.
    private var seenKeys: Set<DefinitionKey> = []

    init(type: T.Type, name: String?, signature: UnsafeRawPointer) {
        self.name = name
        self.signature = signature
        self.wanted = typeIdentity(T.self)
        self.wantedName = TypeName.of(T.self)
        self.unwrapped = (T.self as? any OptionalType.Type).map { typeIdentity($0.wrappedType) }
        self.element = (T.self as? any ArrayType.Type).map { typeIdentity($0.elementType) }
    }

    var suggestions: [String] {
        let sorted = ranked.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
        return sorted.prefix(Self.limit).map { $0.element.text() }
    }

    var unlisted: Int {
        max(0, ranked.count - Self.limit)
    }

    func consider(_ definition: AnyDefinition) {
        // A scope's copy of a `.scoped` registration is none of its own: the
        // registration is considered where it was made, if the request can
        // see it there (a copy under a key of its own, of one made in a
        // child below the scope, read as registered with other arguments).
        guard definition.kind != .scopeLocal else {
            return
        }
        let key = definition.key
        guard seenKeys.insert(key).inserted else {
            return
        }
        let sameType = key.type == wanted
        let sameName = key.name == name
        let sameSignature = key.signature == signature
        if sameType && sameName && !sameSignature {
            let signature = TypeName.signature(definition.argumentTypes.map(TypeName.of))
            if !otherSignatures.contains(signature) {
                otherSignatures.append(signature)
                otherSignatureTypes.append(definition.argumentTypes)
            }
            return
        }
        guard sameSignature else {
            if sameType {
                // Neither its name nor its arguments are the ones asked for.
                ranked.append((2, { "\(definition.stepText), registered \(key.name == nil ? "without a name" : "under another name") and with other runtime arguments" }))
            }
            return
        }
        let wantedName = self.wantedName
        if sameType {
            ranked.append((1, { "\(definition.stepText), registered \(key.name == nil ? "without a name" : "under another name")" }))
        } else if sameName, key.type == unwrapped {
            ranked.append((0, { "\(definition.stepText), registered as the non-optional type; resolve \(TypeName.of(definition.serviceType)) instead" }))
        } else if key.type == element {
            // Other containers resolve every registration of a type as an
            // array: one suggestion for them all.
            if seenTypes.insert(key.type).inserted {
                let elementName = TypeName.of(definition.serviceType)
                ranked.append((0, { "\(elementName) is registered: all its registrations, as an array, are `resolveAll(type: \(elementName).self)`" }))
            }
        } else if sameName, let wrapped = (definition.serviceType as? any OptionalType.Type)?.wrappedType, typeIdentity(wrapped) == wanted {
            ranked.append((0, { "\(definition.stepText), registered as an Optional; resolve \(TypeName.of(definition.serviceType)) instead" }))
        } else if sameName, definition.sharedInstanceConforms(to: T.self) {
            ranked.append((0, { "\(definition.stepText), whose instance is a \(wantedName); register it `as \(wantedName)` or add `.implements(\(wantedName).self)`" }))
        } else if sameName, name != nil {
            ranked.append((2, { "\(definition.stepText), the same name under another type" }))
        } else if sameName, seenTypes.insert(key.type).inserted, Self.related(TypeName.of(definition.serviceType), wantedName) {
            ranked.append((3, { "\(definition.stepText), registered as its own type; if it is a \(wantedName), register it `as \(wantedName)` or add `.implements(\(wantedName).self)`" }))
        }
    }

    /// `ServiceImp` / `any Service`, `LiveClock` / `Clock`: one name contains the other.
    private static func related(_ registered: String, _ wanted: String) -> Bool {
        let base = { (name: String) in name.hasPrefix("any ") ? String(name.dropFirst(4)) : name }
        let (a, b) = (base(registered), base(wanted))
        return a != b && min(a.count, b.count) >= 3 && (a.contains(b) || b.contains(a))
    }
}
