// The probe `check-inlining.sh` compiles: async factories that resolve two
// and four registrations, as a service's factories do. Not part of any
// target; see check-inlining.sh.
import Syringe

final class First { init() {} }
final class Second { init() {} }
final class Pair { init(first: First, second: Second) {} }
final class Four { init(first: First, second: Second, pair: Pair, named: First) {} }

public func factories() -> Container {
    let container = Container()
    container.register(type: First.self, in: .new) { (_: Resolver) async in First() }
    container.register(type: Second.self, in: .new) { (_: Resolver) async in Second() }
    container.register(type: First.self, name: "named", in: .new) { (_: Resolver) async in First() }
    container.register(type: Pair.self, in: .new) { (r: Resolver) async throws in
        Pair(first: try await r.resolve(), second: try await r.resolve())
    }
    container.register(type: Four.self, in: .new) { (r: Resolver) async throws in
        Four(first: try await r.resolve(), second: try await r.resolve(), pair: try await r.resolve(),
             named: try await r.resolve(type: First.self, name: "named"))
    }
    return container
}
