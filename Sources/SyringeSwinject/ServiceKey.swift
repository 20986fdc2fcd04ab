/// An extra key component for registrations made by extensions of the
/// container (SwinjectStoryboard keys storyboard registrations this way):
/// two keys that differ only in their option are different registrations.
///
/// ```swift
/// struct Storyboard: ServiceKeyOption {
///     let name: String
///     func isEqualTo(_ another: ServiceKeyOption) -> Bool { (another as? Storyboard)?.name == name }
///     func hash(into hasher: inout Hasher) { hasher.combine(name) }
///     var description: String { "Storyboard: \(name)" }
/// }
/// container._register(UIViewController.self, factory: { (r: Resolver) in Login() }, option: Storyboard(name: "Main"))
/// ```
public protocol ServiceKeyOption: CustomStringConvertible {
    /// Whether this option equals `another`.
    func isEqualTo(_ another: ServiceKeyOption) -> Bool
    /// Hashes the option's essential components.
    func hash(into hasher: inout Hasher)
}

/// What a registration is found by: the service type, the arguments type of
/// its factory (`Resolver` or `(Resolver, Arg1, …)`), its name and its option.
///
/// The writer side keeps registrations in a dictionary of these (for
/// `description`, `hasAnyRegistration` and the debug helper); resolves look
/// them up in the C table by the identities of the same components.
struct ServiceKey: Hashable, @unchecked Sendable {
    let serviceType: Any.Type
    let argumentsType: Any.Type
    let name: String?
    let option: ServiceKeyOption?

    init(serviceType: Any.Type, argumentsType: Any.Type, name: String? = nil, option: ServiceKeyOption? = nil) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.name = name
        self.option = option
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(serviceType))
        hasher.combine(ObjectIdentifier(argumentsType))
        hasher.combine(name)
        option?.hash(into: &hasher)
    }

    static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        guard lhs.serviceType == rhs.serviceType, lhs.argumentsType == rhs.argumentsType, lhs.name == rhs.name else {
            return false
        }
        switch (lhs.option, rhs.option) {
        case (nil, nil):
            return true
        case let (left?, right?):
            return left.isEqualTo(right)
        default:
            return false
        }
    }
}
