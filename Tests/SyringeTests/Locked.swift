@_spi(SyringeSwinject) @testable import Syringe

/// A value guarded by the library's own `Lock`.
///
/// Not `Synchronization.Mutex`: on Linux that one is built on raw futexes,
/// which ThreadSanitizer does not see, so every access it guards would be
/// reported as a race. `Lock` is a pthread mutex, which it does see.
final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.withLock { () throws(E) -> R in try body(&value) }
    }
}
