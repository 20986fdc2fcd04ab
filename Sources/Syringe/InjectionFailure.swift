/// Where a property wrapper was declared, as the compiler fills in its
/// default arguments there: `#function` is what contains the property (the
/// owning type's name for a stored property; there is no way to get the
/// property's own name), and `#fileID`/`#line` are the declaration's. For a
/// wrapper made in a function (an initialiser that assigns `_service`, a
/// local property), they are that function's name and the line there.
struct InjectionSite: Sendable {
    let owner: String
    let file: StaticString
    let line: UInt
    /// Whether the wrapper resolves when it is made (`@Injected`,
    /// `@WeakInjected`), as its owner's initialisation begins, rather than
    /// on first read (`@LazyInjected`).
    var resolvesWhenMade = false
}

/// What the property wrappers do when a resolve fails: stop, saying which
/// property, where, and why.
enum InjectionFailure {
    static func resolve<T>(_ type: T.Type, name: String?, from container: Container, at site: InjectionSite) -> T {
        do {
            return try container.tryResolve(type: type, name: name)
        } catch {
            stop(error, type: T.self, from: container, at: site)
        }
    }

    static func stop<T>(_ error: ResolutionError, type: T.Type, from container: Container, at site: InjectionSite) -> Never {
        fatalError(message(error, type: type, from: container, at: site), file: site.file, line: site.line)
    }

    /// The text `stop` prints. When the property fell back to the default
    /// `Container.shared`, it says so: the usual cause is a task (often a
    /// detached one) that does not carry the binding the caller expected.
    static func message<T>(_ error: ResolutionError, type: T.Type, from container: Container, at site: InjectionSite) -> String {
        // `#function` names the owning type at a stored property's
        // declaration, and the function where the wrapper was made
        // otherwise (an initialiser's `_service = LazyInjected(from: container)`).
        let declared = !site.owner.contains("(")
        let place = !declared
            ? "set up in \(site.owner) at \(site.file):\(site.line)"
            : "of \(site.owner), declared at \(site.file):\(site.line)"
        var text = "Syringe: cannot inject a \(TypeName.of(T.self)) property \(place).\n\(error.description)"
        if container === Container.fallback {
            text += "\nIt was resolved from the default Container.shared: no `Container.$shared.withValue(…)` binding "
                + "is in effect in this task. The binding is task-local, and a detached task (`Task.detached`) "
                + "does not inherit it: bind it there again, or pass the container (`@Injected(from:)`)."
            if declared && site.resolvesWhenMade {
                // Swift makes a wrapper declared without arguments before the
                // owner's initialiser runs, so one that the initialiser
                // replaces (`_service = Injected(from: container)`) has
                // already resolved from Container.shared, and failed here.
                text += "\nIf an initialiser sets this property up with its own container, that comes too late: "
                    + "this wrapper resolves as the owner's initialisation begins. Declare it @LazyInjected there "
                    + "(`_service = LazyInjected(from: container)`), which resolves on first read."
            }
        }
        return text
    }
}
