/// The writer-side bookkeeping of one container.
struct Registry {
    /// Live definitions in registration order; removal leaves a hole (nil)
    /// until `compact()` closes them.
    var ordered: [AnyDefinition?] = []
    var holes = 0
    /// How many live definitions take runtime arguments.
    var withArguments = 0
    /// Whether a `.graph` definition was ever listed here: the container's
    /// `deinit` then retires those rather than releasing them (see
    /// `Container.retireGraphDefinitions`).
    var hasGraphDefinitions = false
    /// Whether a scope's copy of a `.scoped` registration is listed here
    /// that its key does not lead to: one a registration made in the scope
    /// replaced (see `Container.insertLocked`), or one kept for an alias
    /// (see `Container.copyUnderKey`). Only then is a copy looked for here.
    var hasHiddenCopies = false

    // Both dictionaries start as `Dictionary()`, not `[:]`: the literal is a
    // call per container made (about 25 instructions each), the initialiser
    // the empty singleton.

    /// The aliases (`Registration.implements`) of each live definition that
    /// has any, removed with it. An alias retains its target (its factory
    /// forwards to it), never the other way round.
    var aliases = [ObjectIdentifier: [AnyDefinition]]()
    /// The parameter types of each live definition made by `autoregister`,
    /// which validation checks and the dependency graph draws without
    /// running the initialiser. Removed with the definition.
    var parameters = [ObjectIdentifier: [Any.Type]]()

    var live: [AnyDefinition] { ordered.compactMap { $0 } }

    mutating func append(_ definition: consuming AnyDefinition) {
        definition.order = ordered.count
        if ordered.capacity == 0 {
            // Room for a few from the start: the first append would make
            // room for one, and a request's scope, which registers its
            // values and gets a copy of each `.scoped` registration it
            // resolves, would pay an allocation again for the second.
            ordered.reserveCapacity(4)
        }
        if definition.takesArguments { withArguments += 1 }
        if definition.kind == .graph { hasGraphDefinitions = true }
        ordered.append(consume definition)
    }

    mutating func replace(_ old: AnyDefinition, with new: AnyDefinition) {
        parameters[ObjectIdentifier(old)] = nil
        new.order = old.order
        ordered[old.order] = new
        if old.takesArguments { withArguments -= 1 }
        if new.takesArguments { withArguments += 1 }
        if new.kind == .graph { hasGraphDefinitions = true }
    }

    mutating func drop(_ old: AnyDefinition) {
        parameters[ObjectIdentifier(old)] = nil
        ordered[old.order] = nil
        holes += 1
        if old.takesArguments { withArguments -= 1 }
        if holes > 32 && holes * 2 > ordered.count {
            compact()
        }
    }

    private mutating func compact() {
        // Typed: `ordered = ordered.compactMap { $0 }` would infer an
        // element type of `AnyDefinition?`, wrap every element, and keep
        // the holes.
        let live: [AnyDefinition] = ordered.compactMap { $0 }
        ordered = live
        for (index, definition) in ordered.enumerated() {
            definition?.order = index
        }
        holes = 0
    }
}
