@_spi(SyringeSwinject) @testable import Syringe

/// A value guarded by the library's own `Lock`.
///
/// Not `Synchronization.Mutex`: on Linux its contended path hands the lock
/// over in the kernel, which ThreadSanitizer does not see, so an access it
/// guards could be reported as a race. `Lock`'s every handoff is a compiler
/// atomic, which it does see.
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
