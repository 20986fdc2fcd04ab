// expected: a registration with runtime arguments takes no scope
// Without Syringe's guidance: "contextual closure type … expects 1 argument, but 2 were used".
import Syringe

final class Endpoint: Sendable {
    init(url: String) {}
}

func misuse(container: Container) {
    container.register(type: Endpoint.self, in: .shared) { (_: Resolver, url: String) in Endpoint(url: url) }
}
