// expected: Container.shared is task-local and cannot be assigned: bind it for a piece of work with `Container.$shared.withValue(container) { … }`
// Without Syringe's guidance: "cannot assign to property: 'shared' is a get-only property".
import Syringe

func misuse() {
    Container.shared = Container()
}
