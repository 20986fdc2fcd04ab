// expected: a factory takes the Resolver it resolves dependencies from: write `{ _ in Service() }`
// Without Syringe's guidance: "ambiguous use of 'register'", with notes pointing at `dependency:` and `instance:`.
import Syringe

protocol Logger: Sendable {}
final class ConsoleLogger: Logger {}

func misuse(container: Container) {
    container.register { ConsoleLogger() as any Logger }
}

func misuseWithType(container: Container) {
    container.register(type: ConsoleLogger.self, in: .new) { ConsoleLogger() }
}
