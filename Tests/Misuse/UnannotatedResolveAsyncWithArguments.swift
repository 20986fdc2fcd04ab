// expected: Syringe cannot tell which type to resolve: name it, `resolveAsync(type: Endpoint.self, arguments: …)`
// Without Syringe's guidance: "failed to produce diagnostic for expression".
import Syringe

func misuse(container: Container) async throws {
    let endpoint = try await container.resolveAsync(arguments: "example.org", 443)
    _ = endpoint
}
