/// Applies assemblies to a container: every assembly registers first, in
/// order, then each is told `loaded(resolver:)`.
///
/// ```swift
/// let assembler = Assembler([PetAssembly(), FoodAssembly()])
/// let cat = assembler.resolver.resolve(Animal.self)
/// assembler.apply(assembly: LateAssembly())
/// ```
public final class Assembler: Sendable {
    private let container: Container

    /// Resolves from the assembled container.
    public var resolver: Resolver {
        container
    }

    /// An assembler over `container`.
    public init(container: Container? = Container()) {
        self.container = container ?? Container()
    }

    /// An assembler over a new container, a child of `parentAssembler`'s.
    public init(parentAssembler: Assembler?, defaultObjectScope: ObjectScope = .graph, behaviors: [Behavior] = []) {
        container = Container(parent: parentAssembler?.container, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
    }

    /// Applies `assemblies` to `container`.
    @available(*, deprecated, message: "Use not throwing alternative: init(_:, container:)")
    public convenience init(assemblies: [Assembly], container: Container? = Container()) throws {
        self.init(assemblies, container: container ?? Container())
    }

    /// Applies `assemblies` to `container`.
    public init(_ assemblies: [Assembly], container: Container = Container()) {
        self.container = container
        run(assemblies)
    }

    /// Applies `assemblies` to a new child of `parentAssembler`'s container.
    @available(*, deprecated, message: "Use not throwing alternative: init(_:, parent:)")
    public convenience init(assemblies: [Assembly], parentAssembler: Assembler?) throws {
        self.init(assemblies, parent: parentAssembler)
    }

    /// Applies `assemblies` to a new container, a child of `parent`'s.
    public init(_ assemblies: [Assembly], parent: Assembler?, defaultObjectScope: ObjectScope = .graph, behaviors: [Behavior] = []) {
        container = Container(parent: parent?.container, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
        run(assemblies)
    }

    /// Applies one more assembly.
    public func apply(assembly: Assembly) {
        run([assembly])
    }

    /// Applies more assemblies.
    public func apply(assemblies: [Assembly]) {
        run(assemblies)
    }

    private func run(_ assemblies: [Assembly]) {
        for assembly in assemblies {
            assembly.assemble(container: container)
        }
        for assembly in assemblies {
            assembly.loaded(resolver: resolver)
        }
    }
}
