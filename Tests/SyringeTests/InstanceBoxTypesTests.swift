import Dispatch
import Testing
@_spi(SyringeSwinject) @testable import Syringe

/// The per-type memory of `InstanceBox<T>`'s metadata (`InstanceBoxTypes`):
/// lossy, so with more types than slots some share one, and each must still
/// get its own box type, from any thread.
@Suite("Box types")
struct InstanceBoxTypesTests {
    /// Every type reached from `T` by `depth` more wrappings in an array or
    /// an optional: 2^(depth+1) − 1 distinct types, each checked.
    private static func checkBoxTypes<T>(from _: T.Type, depth: Int, mismatches: inout Int) {
        if InstanceBoxTypes.boxType(for: T.self) != InstanceBox<T>.self {
            mismatches += 1
        }
        guard depth > 0 else { return }
        checkBoxTypes(from: [T].self, depth: depth - 1, mismatches: &mismatches)
        checkBoxTypes(from: T?.self, depth: depth - 1, mismatches: &mismatches)
    }

    @Test("each of 1 023 types gets its own box type, first asked and remembered, with slots shared")
    func ownBoxTypes() {
        var mismatches = 0
        // 1 023 types over 256 slots: many share one, and overwrite each
        // other's entries between the passes.
        for _ in 0..<3 {
            Self.checkBoxTypes(from: Int.self, depth: 9, mismatches: &mismatches)
        }
        #expect(mismatches == 0)
    }

    @Test("threads asking for box types at once never get another type's")
    func concurrentBoxTypes() {
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var own = 0
            for _ in 0..<20 {
                if thread.isMultiple(of: 2) {
                    Self.checkBoxTypes(from: String.self, depth: 7, mismatches: &own)
                } else {
                    Self.checkBoxTypes(from: Double.self, depth: 7, mismatches: &own)
                }
            }
            mismatches.withLock { $0 += own }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test("a .shared instance of a type first boxed through the table resolves and is the same instance")
    func sharedThroughTable() throws {
        let container = Container()
        container.register(type: [Tracked?].self) { _ in [Tracked(Counter())] }
        let first = try container.tryResolve(type: [Tracked?].self)
        let second = try container.tryResolve(type: [Tracked?].self)
        #expect(first[0]! === second[0]!)
    }
}
