// expected: Syringe cannot tell which type to resolve: name it, `tryResolve(type: Service.self)`
import Syringe

func misuse(container: Container) throws {
    let service = try container.tryResolve()
    _ = service
}
