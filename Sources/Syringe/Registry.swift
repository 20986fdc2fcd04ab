/// The writer-side bookkeeping of one container.
struct Registry {
    /// Live definitions in registration order; removal leaves a hole (nil)
    /// until `compact()` closes them.
    var ordered: [AnyDefinition?] = []
    var holes = 0
    /// How many live definitions take runtime arguments.
    var withArguments = 0
    /// Replaced or removed definitions, released shared instances, replaced
    /// hooks: a lock-free reader may still hold them, so they live as long as
    /// the container.
    var retired: [AnyObject] = []

    var live: [AnyDefinition] { ordered.compactMap { $0 } }

    mutating func append(_ definition: AnyDefinition) {
        definition.order = ordered.count
        ordered.append(definition)
        if !definition.argumentTypes.isEmpty { withArguments += 1 }
    }

    mutating func replace(_ old: AnyDefinition, with new: AnyDefinition) {
        new.order = old.order
        ordered[old.order] = new
        if !old.argumentTypes.isEmpty { withArguments -= 1 }
        if !new.argumentTypes.isEmpty { withArguments += 1 }
        retired.append(old)
    }

    mutating func drop(_ old: AnyDefinition) {
        ordered[old.order] = nil
        holes += 1
        if !old.argumentTypes.isEmpty { withArguments -= 1 }
        retired.append(old)
        if holes > 32 && holes * 2 > ordered.count {
            compact()
        }
    }

    private mutating func compact() {
        ordered = ordered.compactMap { $0 }
        for (index, definition) in ordered.enumerated() {
            definition?.order = index
        }
        holes = 0
    }
}
