// expected: a registration with runtime arguments takes no scope
// Without Syringe's guidance: "cannot pass function of type … async throws … to parameter expecting synchronous function type".
import Syringe

final class Endpoint: Sendable {
    init(url: String) async {}
}

func misuse(container: Container) {
    container.register(type: Endpoint.self, in: .new) { (_: Resolver, url: String) async throws in await Endpoint(url: url) }
}
