import Testing

/// Concurrency stress. Every test is bounded in count and in time (see
/// StressSupport.swift): the same sizes run in a debug build and under TSan
/// and ASan, where a loop simply gets fewer iterations before its deadline.
/// All checks are about correctness, none about speed.
///
/// The scenarios are nested suites, one file each (Stress*Tests.swift).
/// `.serialized` applies to everything nested here, so that no two stress
/// tests compete for the cores, and `.timeLimit` to each of their tests.
@Suite("Stress", .serialized, .timeLimit(.minutes(2)))
struct StressTests {
    /// How long the busy phase of one test may last.
    static let phase = 1.5
}
