// Support for the 1 000 generated classes of S7, R and M (ManyTypesA/B, written
// by generate-many-types.sh). They live in two modules so that, on two cores,
// both halves compile in parallel: every generated type specialises the whole
// inlinable resolve path of Syringe (and of its Dictionary-table baseline), and that
// is most of this package's build time.
import Swinject
import Syringe
import SyringeOnDictionary

/// The base of the generated classes.
open class ManyBase {
    public required init() {}
}

/// What S7, R and M do with one of the generated types, for each container.
///
/// Built by a generic initialiser (inlinable, so specialised in the generated
/// modules) called with each concrete class, so every closure is specialised
/// for its type: a resolve through it is what a call site
/// `container.resolve(type: T042.self)` compiles to, plus one indirect call
/// (the same for every container).
public struct ManyType: Sendable {
    public let registerSyringe: @Sendable (Syringe.Container, String?) -> Void
    public let resolveSyringe: @Sendable (Syringe.Container) -> AnyObject
    public let registerOnDictionary: @Sendable (SyringeOnDictionary.Container, String?) -> Void
    public let resolveOnDictionary: @Sendable (SyringeOnDictionary.Container) -> AnyObject
    public let registerSwinject: @Sendable (Swinject.Container, String?) -> Void
    public let resolveSwinject: @Sendable (Swinject.Resolver) -> AnyObject

    @inlinable
    public init<T: ManyBase>(_: T.Type) {
        registerSyringe = { container, name in
            container.register(type: T.self, name: name, in: .shared) { _ in T() }
        }
        resolveSyringe = { container in container.resolve(type: T.self) }
        registerOnDictionary = { container, name in
            container.register(type: T.self, name: name, in: .shared) { _ in T() }
        }
        resolveOnDictionary = { container in container.resolve(type: T.self) }
        registerSwinject = { container, name in
            container.register(T.self, name: name) { _ in T() }.inObjectScope(.container)
        }
        resolveSwinject = { resolver in resolver.resolve(T.self)! }
    }
}

/// A fixed pseudo-random permutation of `0..<count` (SplitMix64, fixed seed,
/// Fisher–Yates), so every run visits the types in the same order.
public func fixedPermutation(of count: Int, seed: UInt64 = 0x5EED_1234_ABCD_0001) -> [Int] {
    var state = seed
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    var order = Array(0..<count)
    for index in stride(from: count - 1, to: 0, by: -1) {
        let other = Int(next() % UInt64(index + 1))
        order.swapAt(index, other)
    }
    return order
}
