import Foundation
import Syringe
import Testing

/// The property wrappers' crash text names what the compiler fills their
/// default arguments with: `#function` (the type that owns the property) and
/// the declaration's file and line.
// The time limit turns the old behaviour of the cycle test (a hang) into a
// failure. It is generous because it is for a hang, not slowness: under
// ThreadSanitizer each exit test starts a child process of the instrumented
// binary, and other exit tests (ReclamationTests, ChurnTests) run theirs at
// the same time.
@Suite("Property wrappers: what a failing injection reports", .timeLimit(.minutes(5)))
struct PropertyWrapperSiteTests {
    /// Records the default arguments exactly as `Injected` declares them.
    @propertyWrapper
    struct Site {
        let wrappedValue: String

        init(owner: String = #function, file: StaticString = #fileID, line: UInt = #line) {
            wrappedValue = "\(owner) \(file):\(line)"
        }
    }

    final class Owner {
        static let line = #line + 1
        @Site var manager: String
        init() {}
    }

    struct ValueOwner {
        static let line = #line + 1
        @Site var store: String
    }

    @Test("#function at a stored property is the owning type's name (not the property's), and #fileID/#line are its declaration's")
    func defaultArguments() {
        #expect(Owner().manager == "Owner SyringeTests/PropertyWrapperSiteTests.swift:\(Owner.line)")
        #expect(ValueOwner().store == "ValueOwner SyringeTests/PropertyWrapperSiteTests.swift:\(ValueOwner.line)")
    }

    @Test("a failing @Injected stops with the owning type, the declaration and the resolution error")
    func injectedFailureText() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @Injected(from: Container()) var manager: Service
                init() {}
            }
            _ = Screen()
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen, declared at SyringeTests/PropertyWrapperSiteTests.swift:"))
        #expect(text.contains("Syringe could not resolve Service: nothing is registered for it"))
    }

    @Test("an @Injected that fell back to the default Container.shared says so: a detached task does not inherit the binding")
    func detachedTaskFallbackText() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @Injected var manager: Service
                init() {}
            }
            let bound = Container()
            bound.register(type: Service.self) { _ in ServiceImp() }
            await Container.$shared.withValue(bound) {
                _ = Screen()   // bound here: resolves
                await Task.detached { _ = Screen() }.value
            }
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen"))
        #expect(text.contains("It was resolved from the default Container.shared"))
        #expect(text.contains("a detached task (`Task.detached`) does not inherit it"))
        #expect(text.contains("If an initialiser sets this property up"), "a declared @Injected may have been set up again in an initialiser")
    }

    @Test("an @Injected set up again in an initialiser has already resolved from Container.shared, and the text says to use @LazyInjected")
    func injectedReplacedInInitialiserText() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @Injected var manager: Service
                init(_ container: Container) {
                    _manager = Injected(from: container)
                }
            }
            let own = Container()
            own.register(type: Service.self) { _ in ServiceImp() }
            _ = Screen(own)
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen, declared at"))
        #expect(text.contains("It was resolved from the default Container.shared"))
        #expect(text.contains("If an initialiser sets this property up with its own container, that comes too late"))
        #expect(text.contains("`_service = LazyInjected(from: container)`"))
    }

    @Test("a failing @Injected with its own container does not mention the default one")
    func ownContainerFailureTextHasNoFallbackNote() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @Injected(from: Container()) var manager: Service
                init() {}
            }
            _ = Screen()
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen"))
        #expect(!text.contains("default Container.shared"))
    }

    @Test("a failing @LazyInjected stops on first access with the same text")
    func lazyInjectedFailureText() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @LazyInjected(from: Container()) var manager: Service
                init() {}
            }
            _ = Screen().manager
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen, declared at SyringeTests/PropertyWrapperSiteTests.swift:"))
    }

    @Test("a wrapper set up in an initialiser names that initialiser and the line there, not a declaration")
    func wrapperSetUpInInitialiserText() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen {
                @LazyInjected var manager: Service
                init(_ container: Container) {
                    _manager = LazyInjected(from: container)
                }
            }
            _ = Screen(Container()).manager
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property set up in init(_:) at SyringeTests/PropertyWrapperSiteTests.swift:"))
        #expect(!text.contains("declared at"))
    }

    @Test("a dependency cycle through a @LazyInjected property is reported as a cycle, not a hang")
    func lazyInjectedCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen: @unchecked Sendable {
                @LazyInjected(from: LazyCycle.container) var service: Service
                init() {}
            }
            let screen = Screen()
            LazyCycle.container.register(type: Service.self, in: .new) { _ in
                _ = screen.service  // reads the property being resolved
                return ServiceImp()
            }
            _ = screen.service
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("cannot inject a Service property of Screen"))
        #expect(text.contains("its construction depends on itself (a dependency cycle)"))
        #expect(text.contains("path: Service → Service"))
    }

    @Test("a cycle through a @LazyInjected property and a .shared creation on another thread is reported as a cycle, not a deadlock")
    func lazyInjectedCycleAcrossThreads() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Screen: @unchecked Sendable {
                @LazyInjected(from: LazyCycle.acrossThreads) var service: Service
                init() {}
            }
            let screen = Screen()
            let inFactory = DispatchSemaphore(value: 0)
            // `.shared`: one thread creates it, others wait for that creation.
            LazyCycle.acrossThreads.register(type: Service.self) { _ in
                inFactory.signal()
                usleep(300_000)     // meanwhile, the property's resolve waits for this creation
                _ = screen.service  // and this waits for the property's resolve
                return ServiceImp()
            }
            Thread { _ = try? LazyCycle.acrossThreads.tryResolve(type: Service.self) }.start()
            inFactory.wait()
            _ = screen.service
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("its construction depends on itself (a dependency cycle)"))
    }
}

/// Containers the exit tests' closures can reach without capturing.
enum LazyCycle {
    static let container = Container()
    static let acrossThreads = Container()
}
