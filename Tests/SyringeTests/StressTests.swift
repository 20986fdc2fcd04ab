import Testing

/// Concurrency stress. Every test is bounded in count and in time (see
/// StressSupport.swift): the same sizes run in a debug build and under TSan
/// and ASan, where a loop simply gets fewer iterations before its deadline.
/// All checks are about correctness, none about speed.
///
/// The scenarios are nested suites, one file each (Stress*Tests.swift).
/// `.serialized` applies to everything nested here, so that no two stress
/// tests compete for the cores, and `.timeLimit` to each of their tests: a
/// hang fails the run instead of stalling it. Ten minutes, not two: on a
/// 2-core machine the churn test's process (ChurnTests: three threads busy
/// for about two minutes) runs beside the rest of the suite and starves it.
/// Without it the whole debug suite takes 15 s and HostileScaleTests' 100 000
/// registrations 9 s; beside it they took 95-145 s, and so did the alias
/// test (1.5 s alone), which failed a CI run at two minutes.
@Suite("Stress", .serialized, .timeLimit(.minutes(10)))
struct StressTests {
    /// How long the busy phase of one test may last.
    static let phase = 1.5
}
