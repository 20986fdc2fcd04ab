// expected: Syringe cannot tell which type to resolve: name it, `resolve(type: Service.self)`
// Without Syringe's guidance, Swift 6.3 says "failed to produce diagnostic for expression".
import Syringe

func misuse(container: Container) {
    let service = container.resolve()
    _ = service
}
