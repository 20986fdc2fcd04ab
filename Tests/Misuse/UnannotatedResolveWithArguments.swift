// expected: Syringe cannot tell which type to resolve: name it, `resolve(type: Endpoint.self, arguments: …)`
import Syringe

func misuse(container: Container) {
    let endpoint = container.resolve(arguments: "example.org", 443)
    _ = endpoint
}
