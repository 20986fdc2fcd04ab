// expected: Syringe cannot tell which type to resolve: name it, `r.resolve(type: Service.self)`
import Syringe

final class Repo: Sendable {}

func misuse(container: Container) {
    container.register(type: Repo.self) { r in
        let service = try r.resolve()
        _ = service
        return Repo()
    }
}
