import Testing
import Syringe

@Suite("Child containers")
struct ChildContainerTests {
    @Test("a child resolves its own registrations first, then its parent's")
    func lookupOrder() {
        let parent = Container()
        parent.register(type: Animal.self, dependency: Cat())
        parent.register(type: Animal.self, name: "Tiger", dependency: Tiger())
        let child = Container(parent: parent)
        child.register(type: Animal.self, dependency: Dog())
        #expect(child.resolve(type: Animal.self) is Dog)
        #expect(child.resolve(type: Animal.self, name: "Tiger") is Tiger)
        #expect(parent.resolve(type: Animal.self) is Cat)
        #expect(child.parent === parent)
    }

    @Test("a shared instance lives in the container that holds the registration")
    func sharedLivesInHolder() {
        let parent = Container()
        let counter = Counter()
        parent.register(type: Tracked.self) { _ in Tracked(counter) }
        let first = Container(parent: parent)
        let second = Container(parent: parent)
        #expect(first.resolve(type: Tracked.self) === second.resolve(type: Tracked.self))
        #expect(parent.resolve(type: Tracked.self) === first.resolve(type: Tracked.self))
        #expect(counter.created == 1)
    }

    @Test("a parent's shared factory resolves from the parent; a .new one from the child")
    func factoryContainer() {
        struct Holder { let animal: Animal }
        let parent = Container()
        parent.register(type: Animal.self, dependency: Cat())
        parent.register(type: Holder.self, name: "shared") { r in Holder(animal: try r.resolve()) }
        parent.register(type: Holder.self, name: "new", in: .new) { r in Holder(animal: try r.resolve()) }
        let child = Container(parent: parent)
        child.register(type: Animal.self, dependency: Dog())
        #expect(child.resolve(type: Holder.self, name: "shared").animal is Cat)
        #expect(child.resolve(type: Holder.self, name: "new").animal is Dog)
    }

    @Test("a child outlives nothing: dropping it frees it and keeps the parent working")
    func droppedChild() {
        let parent = Container()
        parent.register(type: Int.self, dependency: 1)
        weak var dropped: Container?
        do {
            let child = Container(parent: parent)
            child.register(type: Int.self, dependency: 2)
            #expect(child.resolve(type: Int.self) == 2)
            dropped = child
        }
        #expect(dropped == nil, "the parent (or a resolve) kept the child")
        #expect(parent.resolve(type: Int.self) == 1)
    }
}
