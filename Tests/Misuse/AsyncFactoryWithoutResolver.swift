// expected: a factory takes the Resolver it resolves dependencies from: write `{ (_: Resolver) async in await Service.make() }`
import Syringe

actor Database {
    static func open() async -> Database { Database() }
}

func misuse(container: Container) {
    container.register(type: Database.self) { await Database.open() }
}
