import Testing

/// Concurrency stress. Every test is bounded in count and in time (see
/// StressSupport.swift): the same sizes run in a debug build and under TSan
/// and ASan, where a loop simply gets fewer iterations before its deadline.
/// All checks are about correctness, none about speed.
///
/// The scenarios are nested suites, one file each (Stress*Tests.swift).
/// `.serialized` applies to everything nested here, so that no two stress
/// tests compete for the cores, and `.timeLimit` to each of their tests: a
/// hang fails the run instead of stalling it. Ten minutes, not two: in the
/// whole suite on a 2-core machine the alias test (1.5 s alone) runs beside
/// HostileScaleTests' 100 000 registrations and the churn test's process,
/// and finishes only when the 100 000 registrations do, after 95-145 s in
/// debug builds (the same at the commit before this limit was raised), which
/// failed a CI run at two minutes.
@Suite("Stress", .serialized, .timeLimit(.minutes(10)))
struct StressTests {
    /// How long the busy phase of one test may last.
    static let phase = 1.5
}
