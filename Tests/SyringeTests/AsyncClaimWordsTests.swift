import Synchronization
import Testing
@testable import Syringe

/// A registration's async claim lives in a word found by its dense index
/// (`AsyncClaimWords`), taken and released without a lock unless a task
/// waits (`AsyncClaims`).
@Suite("Async claim words")
struct AsyncClaimWordsTests {
    @Test("each index has one word of its own, the same at every call, 0 until claimed, across chunk boundaries")
    func wordsByIndex() throws {
        let indices = [0, 1, 4_095, 4_096, 4_097, 123_456, (1 << 24) - 1]
        let words = try indices.map { try #require(AsyncClaimWords.word(for: $0)) }
        #expect(Set(words).count == indices.count)
        for (index, word) in zip(indices, words) {
            #expect(AsyncClaimWords.word(for: index) == word)
        }
        // Neighbours in one chunk are adjacent; the next chunk is elsewhere.
        #expect(words[1] == words[0] + 1)
        #expect(words[4] == words[3] + 1)
        // The highest indices are claimed by no test: their words are still 0.
        #expect(words[6].pointee.load(ordering: .relaxed) == 0)
    }

    @Test("past the directory's reach there is no word; such claims are kept in the table")
    func pastTheReach() {
        #expect(AsyncClaimWords.word(for: 1 << 24) == nil)
        #expect(AsyncClaimWords.word(for: Int(UInt32.max)) == nil)
    }

    @Test("a claim taken without waiting, and one many tasks waited for, both leave the word 0")
    func releasedClaimsLeaveZero() async throws {
        let c = Container()
        c.register(type: Connection.self) { _ async in await Connection(Counter()) }
        c.register(type: Tracked.self) { _ async throws in
            try await Task.sleep(for: .milliseconds(50))
            return Tracked(Counter())
        }
        _ = try await c.resolveAsync(type: Connection.self)
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<50 {
                group.addTask { ObjectIdentifier(try await c.resolveAsync(type: Tracked.self)) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        for definition in c.registry.live {
            let word = try #require(AsyncClaimWords.word(for: definition.index))
            #expect(word.pointee.load(ordering: .relaxed) == 0, "\(definition.stepText)'s claim was left set")
        }
    }
}
