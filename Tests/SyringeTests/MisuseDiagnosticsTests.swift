import Foundation
import Testing
import Syringe

/// Known mistakes and what the compiler says about them: each file of
/// `Tests/Misuse` is one mistake, type-checked against the Syringe module
/// this test was built with; its first line names the message it must get.
@Suite struct MisuseDiagnosticsTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Misuse")

    static var mistakes: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test func everyMistakeIsListed() {
        #expect(Self.mistakes.count == 13)
    }

    @Test(arguments: mistakes)
    func mistakeGetsItsMessage(_ file: String) throws {
        let source = Self.directory.appendingPathComponent(file)
        let text = try String(contentsOf: source, encoding: .utf8)
        let expected = try #require(text.split(separator: "\n").first.flatMap { line in
            line.hasPrefix("// expected: ") ? String(line.dropFirst("// expected: ".count)) : nil
        }, "\(file) must start with `// expected: <message>`")
        let output = try typecheckAgainstSyringe(source).output
        #expect(output.contains("error: "), "\(file) compiled, but it is a mistake:\n\(output)")
        #expect(output.contains(expected), "\(file): the compiler did not say \(expected):\n\(output)")
        #expect(!output.contains("failed to produce diagnostic"), "\(file):\n\(output)")
    }
}

private protocol MisuseDependency: Sendable {}
private struct MisuseDependencyImp: MisuseDependency {}
private final class MisuseNeeds: Sendable {
    let dependency: any MisuseDependency
    init(dependency: any MisuseDependency) { self.dependency = dependency }
}

/// The corrected forms of the mistakes above compile (this file is part of
/// the test target) and do what they say.
@Suite struct MisuseFixedTests {
    @Test func aTypedTrailingClosureIsAFactoryWithArgumentsNotAnInstance() throws {
        let container = Container()
        // Before: bound to `register(dependency:)`, registering the closure
        // itself as a shared value of function type.
        container.register { (_: Resolver, dependency: any MisuseDependency) -> MisuseNeeds in
            MisuseNeeds(dependency: dependency)
        }
        let needs = try container.tryResolve(type: MisuseNeeds.self, arguments: MisuseDependencyImp() as any MisuseDependency)
        #expect(needs.dependency is MisuseDependencyImp)
    }

    @Test func asyncFactoriesWithAScopeAndWithArgumentsCompile() async throws {
        @Sendable func make(_: Resolver) async -> MisuseDependencyImp { MisuseDependencyImp() }
        let container = Container()
        container.register(type: MisuseDependencyImp.self, in: .new, factory: make)
        container.register(type: MisuseDependencyImp.self, name: "trailing", in: .new) { (_: Resolver) async in MisuseDependencyImp() }
        container.register(type: MisuseNeeds.self) { (_: Resolver, dependency: MisuseDependencyImp) async in MisuseNeeds(dependency: dependency) }
        _ = try await container.resolveAsync(type: MisuseDependencyImp.self)
        _ = try await container.resolveAsync(type: MisuseDependencyImp.self, name: "trailing")
        let needs = try await container.resolveAsync(type: MisuseNeeds.self, arguments: MisuseDependencyImp())
        #expect(needs.dependency is MisuseDependencyImp)
    }

    @Test func annotatedAndNamedResolvesCompile() throws {
        let container = Container()
        container.register { _ in MisuseDependencyImp() as any MisuseDependency }
        let annotated: any MisuseDependency = container.resolve()
        let named = try container.tryResolve(type: (any MisuseDependency).self)
        #expect(annotated is MisuseDependencyImp && named is MisuseDependencyImp)
    }

    @Test func localizedDescriptionIsTheFullDiagnostic() {
        let error = #expect(throws: ResolutionError.self) { try Container().tryResolve(type: MisuseNeeds.self) }
        #expect(error?.localizedDescription == error?.description)
        #expect(error?.localizedDescription.hasPrefix("Syringe could not resolve MisuseNeeds") == true)
    }

    @Test func aFailedResolveStopsAtTheCallersLine() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            _ = container.resolve(type: MisuseNeeds.self)
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("SyringeTests/MisuseDiagnosticsTests.swift:"), "\(text)")
        #expect(!text.contains("Container+Resolve.swift"), "\(text)")
        #expect(text.contains("Syringe could not resolve MisuseNeeds"), "\(text)")
    }

    @Test func aSendableOwnerHoldsWrappersOfSendableTypes() async {
        // The corrected form of `LazyInjectedOfNonSendableType` and
        // `WeakInjectedOfNonSendableType`: with `Sendable` types, an owner
        // that is `Sendable` compiles and is shared between tasks.
        // A container of the test's own, not a global: the weak
        // reference's side table lives as long as the instance.
        let container = Container()
        container.register { _ in MisuseNeeds(dependency: MisuseDependencyImp()) }
        let owner = Container.$shared.withValue(container) { SendableOwner() }
        let fromTask = await Task.detached { ObjectIdentifier(owner.lazy) }.value
        #expect(fromTask == ObjectIdentifier(owner.lazy))
        #expect(owner.weak === owner.lazy)
    }
}

/// Resolves from `Container.shared` as it is bound when made.
private struct SendableOwner: Sendable {
    @LazyInjected var lazy: MisuseNeeds
    @WeakInjected var weak: MisuseNeeds?
}
