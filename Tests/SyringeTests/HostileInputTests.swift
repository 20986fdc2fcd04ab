import Testing

/// Hostile and unusual input: odd names, odd types, huge sizes, many misses.
/// Nothing may crash; every failure must be a ResolutionError with a clear,
/// bounded message; no registration may be lost or crossed.
///
/// The kinds of input are nested suites, one file each (Hostile*Tests.swift).
@Suite("Hostile and unusual input")
struct HostileInputTests {
    /// Longest acceptable error description, in UTF-8 bytes.
    static let errorTextLimit = 2_048
}

/// A type used only as a key: registered as `AnyObject`, and built by a
/// factory that resolves what is never registered.
final class HostileConsumer: Sendable {}
