import Syringe
import SyringeTesting
import Testing

/// The Swift snippets of `Syringe.docc/PropertyWrappersAndTheSharedContainer.md`.
/// The wrappers' block is the README's, run by its suite.
@Suite("Guide: Property Wrappers and the Shared Container")
struct DoccPropertyWrapperSnippets {
    protocol Manager: AnyObject, Sendable {}
    final class LiveManager: Manager {}
    final class FakeManager: Manager {}
    final class UsesShared { @Injected var manager: Manager }

    @Test("Container.shared is task-local", .freshContainer)
    func sharedIsTaskLocal() async {
        Container.shared.register { _ in LiveManager() as Manager }

        let testContainer = Container()
        testContainer.register { _ in FakeManager() as Manager }
        let manager = Container.$shared.withValue(testContainer) { UsesShared().manager }

        #expect(manager is FakeManager)
        #expect(UsesShared().manager is LiveManager, "outside withValue, Container.shared is this test's own")

        // Child tasks inherit the binding; a detached task does not, and sees the default container.
        let own = Container.shared
        let (inherited, detached) = await Container.$shared.withValue(testContainer) {
            async let child = Container.shared
            let detached = await Task.detached { Container.shared }.value
            return (await child, detached)
        }
        #expect(inherited === testContainer)
        #expect(detached !== testContainer && detached !== own)
    }
}
