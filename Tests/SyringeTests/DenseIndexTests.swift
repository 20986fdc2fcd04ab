#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@_spi(SyringeSwinject) @testable import Syringe

/// Definition indices (`DenseIndices`): a definition freed on a thread that
/// resolves leaves its index with that thread, whose next definition takes it
/// back without the shared pool's lock.
@Suite("Dense definition indices")
struct DenseIndexTests {
    /// The index of the one definition `container` registered.
    private static func index(of container: Container) -> Int {
        container.writerLock.withLock { container.registry.ordered[0]!.index }
    }

    private static func registering() -> Container {
        let container = Container()
        container.register(type: Int.self, dependency: 1)
        return container
    }

    @Test("a definition freed on a thread hands its index to that thread's next definition, not to another thread's")
    func indexStaysWithItsThread() {
        let freed = Locked<Int>(-1)
        let reused = Locked<Int>(-1)
        let elsewhere = Locked<Int>(-1)
        let step = Locked<Int>(0)
        func waitFor(_ value: Int) {
            while step.withLock({ $0 }) != value { sched_yield() }
        }

        let owner = Thread {
            let first = Container()
            first.register(type: Int.self, in: .new) { _ in 0 }
            _ = first.resolve(type: Int.self)   // this thread's context exists first
            var container: Container? = Self.registering()
            freed.withLock { $0 = Self.index(of: container!) }
            // Every registration polls the reclaimer, which may free other
            // tests' retired definitions on this thread, and a context
            // keeps at most 16 indices (the rest go to the shared pool, as
            // they should). Emptied, it has room for the one freed next.
            let context = ResolutionContext.current
            while let spare = context.takeSpareIndex() {
                DenseIndices.definitions.giveBack(spare)
            }
            container = nil   // frees the definition here: its index stays with this thread
            step.withLock { $0 = 1 }
            waitFor(2)
            let again = Self.registering()
            reused.withLock { $0 = Self.index(of: again) }
        }
        let other = Thread {
            waitFor(1)
            // The shared pool does not have it: this definition gets another.
            let container = Self.registering()
            elsewhere.withLock { $0 = Self.index(of: container) }
            step.withLock { $0 = 2 }
        }
        owner.start()
        other.start()
        owner.join()
        other.join()

        #expect(freed.withLock { $0 } >= 0)
        #expect(elsewhere.withLock { $0 } != freed.withLock { $0 })
        #expect(reused.withLock { $0 } == freed.withLock { $0 })
    }
}
