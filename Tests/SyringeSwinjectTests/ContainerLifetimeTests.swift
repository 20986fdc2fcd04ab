import Testing
@testable import SyringeSwinject

/// A container is its factories' `Resolver`, made once and kept by the
/// container without owning it (`SelfResolver`): these check that the
/// container still goes when its last owner lets go, stays while a factory's
/// product keeps its resolver, and is the very resolver factories receive.
@Suite("SyringeSwinject container lifetime")
struct ContainerLifetimeTests {
    final class KeepsResolver {
        let resolver: Resolver
        init(resolver: Resolver) { self.resolver = resolver }
    }

    @Test("a container that resolved through its factories' resolver is freed with its last owner")
    func freedAfterResolves() {
        weak var released: Container?
        do {
            let container = Container()
            released = container
            container.register(Cat.self) { _ in Cat() }.inObjectScope(.transient)
            container.register(Owner.self) { r in Owner(pet: r.resolve(Cat.self)!) }
            for _ in 0..<100 {
                #expect(container.resolve(Owner.self)?.pet.name == "cat")
            }
            #expect(released != nil)
        }
        #expect(released == nil, "the resolver the container keeps for its factories does not own it")
    }

    @Test("a product that keeps its factory's resolver keeps the container, and frees it when it goes")
    func keptByAProduct() {
        weak var released: Container?
        var product: KeepsResolver?
        do {
            let container = Container()
            released = container
            container.register(KeepsResolver.self) { r in KeepsResolver(resolver: r) }
            container.register(Cat.self) { _ in Cat(name: "Mimi") }
            product = container.resolve(KeepsResolver.self)
        }
        #expect(released != nil, "the product's resolver owns the container")
        #expect(product?.resolver.resolve(Cat.self)?.name == "Mimi")
        product = nil
        #expect(released == nil)
    }

    @Test("a factory's resolver is the container itself, in every scope")
    func resolverIsTheContainer() {
        let container = Container()
        let seen = Guarded<[ObjectIdentifier]>([])
        for (index, scope) in [ObjectScope.transient, .graph, .container, .weak].enumerated() {
            container.register(Cat.self, name: "\(index)") { r in
                seen.withLock { $0.append(ObjectIdentifier(r as! Container)) }
                return Cat()
            }.inObjectScope(scope)
            _ = container.resolve(Cat.self, name: "\(index)")
        }
        #expect(seen.withLock { $0 } == Array(repeating: ObjectIdentifier(container), count: 4))
    }

    @Test("containers made, used and dropped on many threads at once are each freed")
    func churnOnThreads() {
        final class WeakContainer: @unchecked Sendable {
            weak var container: Container?
            init(_ container: Container) { self.container = container }
        }
        let made = Guarded<[WeakContainer]>([])
        onThreads(4) { _ in
            for _ in 0..<500 {
                let container = Container()
                container.register(Cat.self) { _ in Cat() }.inObjectScope(.container)
                container.register(Owner.self) { r in Owner(pet: r.resolve(Cat.self)!) }.inObjectScope(.transient)
                _ = container.resolve(Owner.self)
                made.withLock { $0.append(WeakContainer(container)) }
            }
        }
        #expect(made.withLock { $0.count } == 2_000)
        #expect(made.withLock { $0.allSatisfy { $0.container == nil } }, "no container outlives its last owner")
    }
}
