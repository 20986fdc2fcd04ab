import CSyringeTable
import Foundation
import Testing

@Suite("Table size limits")
struct TableSizeLimitTests {
    /// Key counts no storage can hold, each once mishandled: `keys * 2`
    /// overflowing made the capacity loop spin forever (SIZE_MAX, SIZE_MAX / 2)
    /// or wrap to a tiny table (2^63); 2^59 and 2^60 keys need 2^60 and 2^61
    /// slots, whose byte size (48 bytes a slot) wrapped to zero, so storage of
    /// a few bytes was handed out for them.
    static let impossibleCounts: [UInt] = [.max, .max / 2, 1 << 63, (1 << 62) + 1, 1 << 60, 1 << 59]

    @Test("create(expected:) returns NULL promptly when no storage can hold that many keys",
          arguments: impossibleCounts)
    func impossibleExpectedCount(keys: UInt) {
        let returnedNull = onNewThread(deadline: .now() + 10) {
            syr_table_create(Int(bitPattern: keys)) == nil
        }
        #expect(returnedNull != nil, "syr_table_create(\(keys)) did not return within 10 s")
        #expect(returnedNull != false, "syr_table_create(\(keys)) returned a table")
    }
}
