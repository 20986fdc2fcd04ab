import Hummingbird

/// A todo as the API returns it.
public struct Todo: Codable, Equatable, Sendable, ResponseEncodable {
    public var id: Int
    public var title: String
    public var completed: Bool

    public init(id: Int, title: String, completed: Bool) {
        self.id = id
        self.title = title
        self.completed = completed
    }
}

/// The body of `POST /todos`.
public struct NewTodo: Codable, Sendable {
    public var title: String
    public var completed: Bool?

    public init(title: String, completed: Bool? = nil) {
        self.title = title
        self.completed = completed
    }
}

/// The body of `PATCH /todos/:id`: what is present changes.
public struct TodoChanges: Codable, Sendable {
    public var title: String?
    public var completed: Bool?

    public init(title: String? = nil, completed: Bool? = nil) {
        self.title = title
        self.completed = completed
    }
}

/// Titles are checked before anything is written: a bad one is a 400 that
/// names the problem.
enum TitleRule {
    static let maximumLength = 200

    static func check(_ title: String) throws {
        if title.allSatisfy(\.isWhitespace) {
            throw HTTPError(.badRequest, message: "title must not be empty")
        }
        // A title is one line of text. Tabs and line breaks have no place
        // in it, and a NUL would be stored whole but read back cut short
        // (SQLiteNIO reads text as a C string): all of Unicode's control
        // characters (U+0000–U+001F, U+007F–U+009F) are refused.
        if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw HTTPError(.badRequest, message: "title must not contain control characters")
        }
        if title.count > maximumLength {
            throw HTTPError(.badRequest, message: "title must be at most \(maximumLength) characters")
        }
    }
}
