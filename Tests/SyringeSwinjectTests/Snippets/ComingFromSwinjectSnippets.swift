import Testing
import SyringeSwinject

// The README's and "Coming from Swinject"'s example, as Swinject code.
// `Animal` and `Cat` are the suite's fixtures; a Swinject user's `Person`:
private protocol Person: AnyObject {}

private final class PetOwner: Person {
    let pet: Animal
    init(pet: Animal) { self.pet = pet }
}

@Suite("Snippets: Coming from Swinject")
struct ComingFromSwinjectSnippets {
    @Test("the switch: Swinject code resolving on SyringeSwinject")
    func theSwitch() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Person.self) { r in PetOwner(pet: r.resolve(Animal.self)!) }
            .inObjectScope(.container)
        let owner = container.resolve(Person.self) as? PetOwner

        #expect(owner?.pet.name == "Mimi")
        #expect(container.resolve(Person.self) === owner)
    }
}
