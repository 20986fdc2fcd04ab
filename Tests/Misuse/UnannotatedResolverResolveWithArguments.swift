// expected: Syringe cannot tell which type to resolve: name it, `r.resolve(type: Endpoint.self, arguments: …)`
// Without Syringe's guidance: "trailing closure passed to parameter of type 'Client' that does not accept a closure".
import Syringe

final class Client: Sendable {}

func misuse(container: Container) {
    container.register(type: Client.self) { r in
        let endpoint = try r.resolve(arguments: "example.org")
        _ = endpoint
        return Client()
    }
}
