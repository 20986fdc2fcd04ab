import Synchronization
import Syringe

// The seed articles' examples: animals by name, a person by protocol, Dip's
// circular client/server.

protocol Animal: AnyObject {
    var sound: String { get }
}

final class Cat: Animal { let sound = "miaow" }
final class Dog: Animal { let sound = "wooof" }
final class Tiger: Animal { let sound = "roar" }

protocol Person {
    func cough() -> String
}

final class SickPerson: Person {
    func cough() -> String { "cough" }
}

protocol Server: AnyObject {
    var client: Client? { get set }
}

protocol Client: AnyObject {
    var server: Server { get }
}

final class ServerImp: Server, @unchecked Sendable {
    weak var client: Client?
}

final class ClientImp: Client {
    let server: Server
    init(server: Server) { self.server = server }
}

protocol Service: AnyObject {}
final class ServiceImp: Service {}

/// Counts creations and live instances of `Tracked`, per test (tests run in parallel).
final class Counter: Sendable {
    private let createdCount = Atomic(0)
    private let aliveCount = Atomic(0)
    private let deinitialisedCount = Atomic(0)

    var created: Int { createdCount.load(ordering: .relaxed) }
    var alive: Int { aliveCount.load(ordering: .relaxed) }
    /// Deinitialisations counted one by one, so that one run twice shows.
    var deinitialised: Int { deinitialisedCount.load(ordering: .relaxed) }

    fileprivate func born() -> Int {
        aliveCount.add(1, ordering: .relaxed)
        return createdCount.add(1, ordering: .relaxed).newValue
    }

    fileprivate func died() {
        aliveCount.subtract(1, ordering: .relaxed)
        deinitialisedCount.add(1, ordering: .relaxed)
    }
}

/// An instance that reports its creation and destruction to a `Counter`.
final class Tracked: Sendable {
    let counter: Counter
    /// 1 for the first instance of its counter, 2 for the second, …
    let serial: Int

    init(_ counter: Counter) {
        self.counter = counter
        serial = counter.born()
    }

    deinit {
        counter.died()
    }
}

/// Two dependencies resolved by one factory, to tell one shared instance
/// (`.graph` within a resolve) from two separate ones.
final class Pair<Element: AnyObject> {
    let first: Element
    let second: Element

    init(first: Element, second: Element) {
        self.first = first
        self.second = second
    }
}

extension Pair: Sendable where Element: Sendable {}

struct Failure: Error, Equatable {
    let code: Int
}
