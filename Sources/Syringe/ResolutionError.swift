/// Why a resolve failed, with everything needed to fix it.
///
/// The description names what was asked for, the path from the top-level
/// request to the failing one, and near matches:
///
/// ```swift
/// do {
///     let screen = try container.tryResolve(type: Screen.self)
/// } catch {
///     print(error)
///     // Syringe could not resolve Service: nothing is registered for it in this container or its parents.
///     //   path: Screen → ViewModel → Service
///     //   did you mean:
///     //     • ServiceImp, registered as its own type; if it is a Service, register it `as Service` or add `.implements(Service.self)`
/// }
/// ```
public struct ResolutionError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Reason: Sendable {
        /// Nothing is registered for the requested type, name and arguments.
        case notRegistered
        /// Building the instance required itself (`A → B → A`), a
        /// registration with runtime arguments kept resolving itself deeper
        /// than 256 levels, or `onResolved` callbacks kept building new
        /// instances whose callbacks built more (a `.new` `A` whose callback
        /// resolves a new `A` through its dependencies).
        case cycle
        /// A factory (or an `onResolved` callback) threw `error`.
        case factoryFailed(any Error)
        /// The type and name are registered, but with other runtime-argument
        /// types; `registered` lists their signatures, e.g. `"(String, Int)"`.
        case argumentMismatch(registered: [String])
        /// An alias made with `implements` forwards to an instance that is not
        /// a value of the alias type; `instanceType` names the instance's type.
        case incompatibleAlias(instanceType: String)
        /// The registration is `.scoped`, and no scope (`makeScope()`,
        /// `withScope`) is on the path from the container asked to the root.
        case noScope
        /// The registration is `.scoped`, and `captor`, a `.shared` or `.weak`
        /// registration (`captorScope`), depends on it: its instance would
        /// keep one scope's instance for every later scope. Nothing is cached.
        case captiveDependency(captor: String, captorScope: Scope)
        /// The container resolved from (or the container or scope that owns
        /// the instance) has been closed.
        case closed
        /// The registration has `onDispose` disposers, and
        /// nothing would run them: a `.new` or `.graph` instance resolved
        /// where no scope is, or a `.weak` one, which nobody owns. A `.shared`
        /// or `.weak` factory resolves from the container it is registered
        /// in, above every scope: when one asked for the instance, the
        /// description names it as the cause. An instance its factory made
        /// all the same is disposed, on a task of its own, once the resolve
        /// has failed.
        case disposerWithoutOwner(scope: Scope)
        /// The registration has an async factory, and was resolved
        /// synchronously: resolve it with `await` (`resolveAsync`, or
        /// `try await r.resolve()` in an async factory).
        case registeredAsync
        /// The resolving task was cancelled while it waited for another
        /// task to create the instance.
        case cancelled
        /// The registration's factory is isolated to the main actor, and it
        /// was resolved synchronously off the main actor: resolve it with
        /// `await` (`resolveAsync`), or from the main actor.
        case isolatedToMainActor
    }

    /// The kind of failure.
    public var reason: Reason { storage.reason }
    /// The requested type.
    public var type: Any.Type { storage.type }
    /// The requested name, if any.
    public var name: String? { storage.name }
    /// The runtime-argument types of the request, e.g. `["String", "Int"]`.
    public var argumentTypes: [String] { storage.argumentTypes }
    /// The requests from the top-level one down to the failing one,
    /// e.g. `["Screen", "ViewModel", "Service"]`.
    public var path: [String] { storage.path }
    /// A few registrations that look like what was meant, best first; never more than five.
    public var suggestions: [String] { storage.suggestions }
    /// How many more near matches there were than `suggestions` lists.
    public var unlistedSuggestions: Int { storage.unlistedSuggestions }

    // One reference instead of ten words: every engine function that can
    // throw a `ResolutionError` (typed throws) then returns it in a register
    // rather than through a stack slot it must set up on every call,
    // successful or not.
    private let storage: Storage

    private final class Storage: Sendable {
        let reason: Reason
        let type: Any.Type
        let name: String?
        let argumentTypes: [String]
        let path: [String]
        let suggestions: [String]
        let unlistedSuggestions: Int
        /// `.factoryFailed` from an `onResolved` callback, not the factory;
        /// `.cycle` through callbacks, not factories alone.
        let byCallback: Bool
        /// For `.disposerWithoutOwner` of a `.new` or `.graph` instance: the
        /// `.shared` or `.weak` registration whose factory asked for it
        /// (see `capturedBy(_:)`). Kept out of `Reason`, which is public:
        /// only the text needs it.
        let captor: Captor?

        init(reason: Reason, type: Any.Type, name: String?, argumentTypes: [String], path: [String],
             suggestions: [String], unlistedSuggestions: Int, byCallback: Bool = false, captor: Captor? = nil) {
            self.byCallback = byCallback
            self.captor = captor
            self.reason = reason
            self.type = type
            self.name = name
            self.argumentTypes = argumentTypes
            self.path = path
            self.suggestions = suggestions
            self.unlistedSuggestions = unlistedSuggestions
        }
    }

    /// `qualifyingArguments` writes the argument types out with their
    /// module and enclosing types (see `Container.notRegistered`).
    init(reason: Reason, type: Any.Type, name: String?, argumentTypes: [Any.Type], qualifyingArguments: Bool = false,
         path: [String], suggestions: [String] = [], unlistedSuggestions: Int = 0) {
        storage = Storage(reason: reason, type: type, name: name,
                          argumentTypes: argumentTypes.map(qualifyingArguments ? TypeName.qualified : TypeName.of),
                          path: path, suggestions: suggestions, unlistedSuggestions: unlistedSuggestions)
    }

    /// A `.shared` or `.weak` registration, as the description names it.
    private struct Captor: Sendable {
        let name: String
        let scope: Scope
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// This error with another reason and path: the same request, and the
    /// same near matches.
    func with(reason: Reason, path: [String]) -> ResolutionError {
        with(reason: reason, path: path, byCallback: storage.byCallback)
    }

    /// This error as it reaches the alias (`implements`) whose target failed:
    /// `step`, the alias, inserted into the path after `above`, the path to
    /// the alias. An alias has no frame of its own, so the path its target
    /// fails with names the target only, a type the request never named.
    /// An error that did not arise below the alias is returned as it is.
    func throughAlias(_ step: String, below above: [String]) -> ResolutionError {
        guard path.count > above.count, path.starts(with: above) else {
            return self
        }
        return with(reason: reason, path: above + [step] + path[above.count...])
    }

    /// This `.factoryFailed` error as thrown by an `onResolved` callback, or
    /// this `.cycle` as one through callbacks: the description says so.
    func thrownByCallback() -> ResolutionError {
        with(reason: reason, path: path, byCallback: true)
    }

    /// This `.disposerWithoutOwner` error of a `.new` or `.graph` instance
    /// asked for by `captor`'s factory, a `.shared` or `.weak` registration
    /// (the innermost on the path): the description names it as the cause.
    /// Such a factory resolves from the container it is registered in, above
    /// every scope, so "resolve it from a scope" would be no advice: the
    /// caller may well have.
    func capturedBy(_ captor: AnyDefinition) -> ResolutionError {
        with(reason: reason, path: path, byCallback: storage.byCallback,
             captor: Captor(name: captor.stepText, scope: captor.kind == .weak ? .weak : .shared))
    }

    private func with(reason: Reason, path: [String], byCallback: Bool) -> ResolutionError {
        with(reason: reason, path: path, byCallback: byCallback, captor: storage.captor)
    }

    private func with(reason: Reason, path: [String], byCallback: Bool, captor: Captor?) -> ResolutionError {
        ResolutionError(storage: Storage(reason: reason, type: type, name: name, argumentTypes: argumentTypes, path: path,
                                         suggestions: suggestions, unlistedSuggestions: unlistedSuggestions, byCallback: byCallback,
                                         captor: captor))
    }

    /// What the arguments of a request that matched no registration's
    /// probably got wrong, if it is one of the usual slips: none passed,
    /// a tuple passed as one argument, or a number literal whose default
    /// type (`Int`, `Double`) is not the registered one.
    static func argumentHint(asked: [String], registered: [String]) -> String? {
        if asked.isEmpty {
            return "Pass them: `resolve(type: …, arguments: …)`."
        }
        if asked.count == 1, registered.contains(asked[0]) {
            return "Pass the arguments one by one, not as one tuple."
        }
        let integers: Set = ["Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
        let floats: Set = ["Float", "Float16", "Float80", "CGFloat"]
        for signature in registered {
            let types = signature.dropFirst().dropLast().split(separator: ", ").map(String.init)
            guard types.count == asked.count else { continue }
            let differing = zip(asked, types).filter { $0 != $1 }
            if !differing.isEmpty, differing.allSatisfy({ ($0 == "Int" && integers.contains($1)) || ($0 == "Double" && floats.contains($1)) }) {
                let (_, wanted) = differing[0]
                return "A number literal is an Int or a Double unless told otherwise: write `\(wanted)(…)`."
            }
        }
        return nil
    }

    /// The requested service as the description prints it, e.g. `Animal named "Cat"`.
    public var request: String {
        TypeName.request(TypeName.of(type), name: name, argumentTypes: argumentTypes)
    }

    /// The full diagnostic: the reason, the path when the failure is nested,
    /// and near matches.
    ///
    /// ```swift
    /// catch { logger.error("\(error)") }   // prints this text
    /// ```
    public var description: String {
        var text = "Syringe could not resolve \(request): "
        switch reason {
        case .notRegistered:
            text += "nothing is registered for it in this container or its parents."
            if type == Any.self || type == Any?.self {
                // `print(container.resolve())` compiles: Swift infers `Any`.
                text += " Swift inferred the type from where the result goes, which takes anything: "
                    + "name the type, `resolve(type: Service.self)`."
            }
        case .cycle where storage.byCallback:
            text += "onResolved callbacks on its path keep building new instances whose callbacks build more, "
                + "without end (a dependency cycle through onResolved). Register a registration on the path .graph, "
                + "so that the resolves in the callbacks reuse its instance rather than build another."
        case .cycle:
            text += "its construction depends on itself (a dependency cycle)."
        case .factoryFailed(let error):
            text += storage.byCallback ? "its onResolved callback threw " : "the factory threw "
            text += "\(TypeName.bounded(String(describing: error)))."
        case .argumentMismatch(let registered):
            // `()` is a registration without arguments: "other runtime
            // arguments: ()" read as if it took some.
            let withArguments = registered.filter { $0 != TypeName.signature([]) }
            if withArguments.isEmpty {
                text += "it is registered without runtime arguments."
            } else {
                text += "it is registered with other runtime arguments: \(withArguments.joined(separator: ", "))"
                text += withArguments.count < registered.count ? ", and without any." : "."
                if let hint = Self.argumentHint(asked: argumentTypes, registered: withArguments) {
                    text += " " + hint
                }
            }
        case .incompatibleAlias(let instanceType):
            text += "it is an alias (implements) of a registration whose instance, of type \(instanceType), is not a \(TypeName.of(type))."
        case .noScope:
            text += "it is registered .scoped, and no scope is on the path from this container to the root. "
                + "Resolve it from a scope: `let scope = container.makeScope()`, or `try await container.withScope { scope in … }`."
        case .captiveDependency(let captor, let captorScope):
            text += "it is registered .scoped, and \(captor), registered .\(captorScope), depends on it: "
                + "that instance would keep one scope's \(TypeName.of(type)) for every later scope (a captive dependency). "
                + "Register \(captor) .scoped or .new, or resolve \(TypeName.of(type)) where it is used."
        case .closed:
            text += "the container or scope it was resolved from, or that owns it, has been closed."
        case .registeredAsync:
            text += "it is registered with an async factory, and was resolved synchronously. "
                + "Resolve it with await: `try await container.resolveAsync(type: \(TypeName.of(type)).self)`, "
                + "or `try await r.resolve()` in a factory, which must then be async itself."
        case .cancelled:
            text += "the task was cancelled while it waited for another task to create the instance."
        case .isolatedToMainActor:
            text += "its factory is isolated to the main actor, and it was resolved synchronously off the main actor. "
                + "Resolve it from the main actor, or with await from anywhere: "
                + "`try await container.resolveAsync(type: \(TypeName.of(type)).self)`."
        case .disposerWithoutOwner(let scope):
            if scope == .weak {
                text += "it has an onDispose disposer, and a .weak instance has no owner to run it. "
                    + "Register it .scoped or .shared."
            } else if let captor = storage.captor {
                text += "it is registered .\(scope) with an onDispose disposer, and \(captor.name), registered .\(captor.scope), "
                    + "depends on it: a .\(captor.scope) factory resolves from the container it is registered in, "
                    + "where no scope is to run the disposer, whichever scope it was first resolved from. "
                    + "Register \(captor.name) .scoped or .new, or register \(TypeName.of(type)) .shared."
            } else {
                text += "it is registered .\(scope) with an onDispose disposer, and no scope is on the path "
                    + "to run it. Resolve it from a scope (`makeScope()`, `withScope`), or register it .scoped or .shared."
            }
        }
        if path.count > 1 {
            text += "\n  path: " + path.joined(separator: " → ")
        }
        if !suggestions.isEmpty {
            text += "\n  did you mean:"
            for suggestion in suggestions {
                text += "\n    • " + suggestion
            }
            if unlistedSuggestions > 0 {
                text += "\n    … and \(unlistedSuggestions) more"
            }
        }
        return text
    }
}

extension ResolutionError: CustomReflectable {
    /// The public fields, so that `dump(error)` and debuggers show them
    /// rather than the private storage that holds them.
    ///
    /// ```swift
    /// catch { dump(error) }   // reason, type, name, argumentTypes, path, …
    /// ```
    public var customMirror: Mirror {
        Mirror(self, children: [
            "reason": reason as Any,
            "type": type as Any,
            "name": name as Any,
            "argumentTypes": argumentTypes as Any,
            "path": path as Any,
            "suggestions": suggestions as Any,
            "unlistedSuggestions": unlistedSuggestions as Any,
        ], displayStyle: .struct)
    }
}
