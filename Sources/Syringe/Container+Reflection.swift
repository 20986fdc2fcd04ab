/// How `dump`, LLDB's `po` and a failed test expectation show a container:
/// what is registered in it, not how it stores it. Reflecting the storage
/// itself trapped: Swift 6.3's runtime reflection copies every stored
/// property, and a registration holds properties of non-copyable types.
extension Container: CustomReflectable {
    /// The container's registrations in the order they were made, each as
    /// an error path prints it with its scope (`Database (.shared)`,
    /// `Logger["audit"] (.new)`, `Reader (alias)`), then whether it is a
    /// scope, whether it is closed, and its parent.
    ///
    /// ```swift
    /// let app = Container()
    /// app.register(type: Database.self) { _ in Database() }
    /// dump(app)
    /// // ▿ Syringe.Container #0
    /// //   ▿ registrations: 1 element
    /// //     - "Database (.shared)"
    /// //   - isScope: false
    /// //   - isClosed: false
    /// //   - parent: nil
    /// ```
    public var customMirror: Mirror {
        // A scope's own instances of its ancestors' `.scoped` registrations
        // are not registrations of its own.
        let registrations = definitionsSnapshot.compactMap { definition -> String? in
            guard let definition, definition.kind != .scopeLocal else { return nil }
            return definition.reflectedText
        }
        return Mirror(self, children: [
            "registrations": registrations,
            "isScope": isScope,
            "isClosed": isClosed,
            "parent": parent as Any,
        ], displayStyle: .class)
    }
}

/// A registration as `Container.customMirror` lists it, for what reaches
/// one without its container (a `Registration`): reflecting its stored
/// properties trapped, as the container's did.
extension AnyDefinition: CustomReflectable {
    @usableFromInline
    var customMirror: Mirror {
        Mirror(self, children: ["registration": reflectedText], displayStyle: .class)
    }

    /// `Database (.shared)`, `Logger["audit"] (.new)`, `Reader (alias)`.
    var reflectedText: String {
        "\(stepText) (\(Scope(kind).map { ".\($0)" } ?? "alias"))"
    }
}
