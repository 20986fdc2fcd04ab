/// Runs a documentation snippet's statements and collects the value of each
/// expression statement that has one (not `Void`), in order.
///
/// Snippets show what a bare expression evaluates to in a comment beside it
/// (`c.isRegistered(type: Animal.self, name: "Cat")   // true`). Written as a
/// statement of an ordinary function, Swift warns that its result is unused;
/// in a body built by this result builder it is used: collected, so that the
/// test checks the comment against the value of that very line.
///
/// ```swift
/// let values = doccStatementValues {
///     let c = Container()
///     c.isRegistered(type: Dog.self)   // false
/// }
/// #expect(values.compactMap { $0 as? Bool } == [false])
/// ```
///
/// A registration's `Registration` result is collected too; tests pick the
/// values they check by type.
@resultBuilder
enum DoccStatementValues {
    static func buildExpression(_ value: Void) -> [Any] { [] }
    static func buildExpression<T>(_ value: T) -> [Any] { [value] }
    static func buildBlock(_ components: [Any]...) -> [Any] { components.flatMap { $0 } }
}

/// The values of `body`'s expression statements; see `DoccStatementValues`.
func doccStatementValues(@DoccStatementValues _ body: () throws -> [Any]) rethrows -> [Any] {
    try body()
}
