import Testing
import Syringe

@Suite("Registering and resolving")
struct RegistrationTests {
    @Test("a dog by its own type, as in the seed article")
    func resolvesByType() {
        let c = Container()
        c.register(type: Dog.self, dependency: Dog())
        let dog = c.resolve(type: Dog.self)
        #expect(dog.sound == "wooof")
    }

    @Test("a sick person behind a protocol")
    func resolvesProtocol() throws {
        let c = Container()
        c.register(type: Person.self, dependency: SickPerson())
        let person = try c.tryResolve(type: Person.self)
        #expect(person.cough() == "cough")
        #expect(person is SickPerson)
    }

    @Test("cat and tiger under one protocol, told apart by name")
    func resolvesByName() throws {
        let c = Container()
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        c.register(type: Animal.self, name: "Tiger", dependency: Tiger())
        #expect(try c.tryResolve(type: Animal.self, name: "Cat").sound == "miaow")
        #expect(try c.tryResolve(type: Animal.self, name: "Tiger").sound == "roar")
        #expect(!c.isRegistered(type: Animal.self))
    }

    @Test("the registered type can come from the factory through `as`")
    func typeFromFactory() {
        let c = Container()
        c.register { _ in ServiceImp() as Service }
        let service: Service = c.resolve()
        #expect(service is ServiceImp)
        #expect(!c.isRegistered(type: ServiceImp.self))
    }

    @Test("the dependency: form is lazy and shared")
    func dependencyIsLazy() {
        let c = Container()
        let counter = Counter()
        c.register(type: Tracked.self, dependency: Tracked(counter))
        #expect(counter.created == 0)
        let first = c.resolve(type: Tracked.self)
        let second = c.resolve(type: Tracked.self)
        #expect(first === second)
        #expect(counter.created == 1)
    }

    @Test("factories resolve their dependencies through the resolver")
    func factoryDependencies() {
        struct Config { let url: String }
        struct Repo { let config: Config }
        let c = Container()
        c.register(type: Config.self) { _ in Config(url: "db://") }
        c.register(type: Repo.self, in: .new) { r in Repo(config: try r.resolve()) }
        #expect(c.resolve(type: Repo.self).config.url == "db://")
    }

    @Test("a later registration of the same key replaces the earlier one")
    func replaces() {
        let c = Container()
        c.register(type: Animal.self, name: "pet") { _ in Cat() }
        c.register(type: Animal.self, name: "pet") { _ in Dog() }
        #expect(c.resolve(type: Animal.self, name: "pet") is Dog)
    }

    @Test("resolveIfRegistered is nil only when nothing is registered")
    func resolveIfRegistered() {
        let c = Container()
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        #expect(c.resolveIfRegistered(type: Animal.self, name: "Lion") == nil)
        #expect(c.resolveIfRegistered(type: Animal.self, name: "Cat") is Cat)
    }

    @Test("isRegistered, remove, and removeAll")
    func removal() {
        let c = Container()
        c.register(type: Dog.self, dependency: Dog())
        c.register(type: Animal.self, name: "Cat", dependency: Cat())
        c.register(type: Animal.self, name: "Tiger", dependency: Tiger())
        #expect(c.isRegistered(type: Dog.self))
        #expect(c.isRegistered(type: Animal.self, name: "Cat"))

        c.remove(type: Dog.self)
        #expect(!c.isRegistered(type: Dog.self))
        c.remove(type: Animal.self, name: "Cat")
        #expect(!c.isRegistered(type: Animal.self, name: "Cat"))
        #expect(c.isRegistered(type: Animal.self, name: "Tiger"))

        c.removeAll()
        #expect(!c.isRegistered(type: Animal.self, name: "Tiger"))
        c.register(type: Dog.self, dependency: Dog())
        #expect(c.isRegistered(type: Dog.self))
    }

    @Test("remove takes argument-taking registrations of the same type and name too")
    func removeWithArguments() {
        let c = Container()
        c.register(type: String.self, name: "greeting") { (_: Resolver, name: String) in "hi \(name)" }
        c.register(type: String.self, name: "greeting") { _ in "hi" }
        c.register(type: String.self, name: "other") { (_: Resolver, name: String) in name }
        c.remove(type: String.self, name: "greeting")
        #expect(!c.isRegistered(type: String.self, name: "greeting"))
        #expect(!c.isRegistered(type: String.self, name: "greeting", argumentTypes: String.self))
        #expect(c.isRegistered(type: String.self, name: "other", argumentTypes: String.self))
    }

    @Test("5 000 named registrations each resolve to their own instance")
    func manyNames() throws {
        let c = Container()
        for index in 0..<5_000 {
            c.register(type: Int.self, name: "n\(index)", dependency: index)
        }
        for index in 0..<5_000 {
            #expect(try c.tryResolve(type: Int.self, name: "n\(index)") == index)
        }
        #expect(c.resolveIfRegistered(type: Int.self, name: "n5000") == nil)
    }
}
