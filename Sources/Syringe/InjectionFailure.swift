/// Where a property wrapper was declared, as the compiler fills in its
/// default arguments there: `#function` is what contains the property (the
/// owning type's name for a stored property; there is no way to get the
/// property's own name), and `#fileID`/`#line` are the declaration's.
struct InjectionSite: Sendable {
    let owner: String
    let file: StaticString
    let line: UInt
}

/// What the property wrappers do when a resolve fails: stop, saying which
/// property, where, and why.
enum InjectionFailure {
    static func resolve<T>(_ type: T.Type, name: String?, from container: Container, at site: InjectionSite) -> T {
        do {
            return try container.tryResolve(type: type, name: name)
        } catch {
            stop(error, type: T.self, at: site)
        }
    }

    static func stop<T>(_ error: ResolutionError, type: T.Type, at site: InjectionSite) -> Never {
        fatalError(message(error, type: type, at: site), file: site.file, line: site.line)
    }

    /// The text `stop` prints.
    static func message<T>(_ error: ResolutionError, type: T.Type, at site: InjectionSite) -> String {
        "Syringe: cannot inject a \(TypeName.of(T.self)) property of \(site.owner), declared at \(site.file):\(site.line).\n\(error.description)"
    }
}
