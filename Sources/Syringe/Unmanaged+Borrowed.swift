extension Unmanaged {
    /// Calls `body` with the instance borrowed: no retain and release around
    /// the call, which `takeUnretainedValue()` costs (it returns a copy).
    /// The caller guarantees that something else holds the instance
    /// meanwhile.
    ///
    /// `_withUnsafeGuaranteedRef` with its error type kept: that one
    /// rethrows untyped.
    @inlinable
    @inline(__always)
    func withBorrowed<R, Failure: Error>(_ body: (Instance) throws(Failure) -> R) throws(Failure) -> R {
        let result: Result<R, Failure> = _withUnsafeGuaranteedRef { instance in
            do throws(Failure) {
                return .success(try body(instance))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
