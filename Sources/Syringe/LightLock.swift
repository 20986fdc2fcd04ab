import Synchronization

/// A lock for short critical sections that never wait on anything: a
/// `Mutex` (a futex on Linux, an `os_unfair_lock` on Apple platforms),
/// uncontended about 20 instructions to take and release, where a pthread
/// mutex (`Lock`) takes about 63. `Lock` stays where a condition variable
/// waits on the mutex (`InstanceCreation`).
///
/// ```swift
/// let lock = LightLock()
/// let count = lock.withLock { counter += 1; return counter }
/// ```
struct LightLock: ~Copyable, @unchecked Sendable {
    // @unchecked: a `Mutex` and an atomic, made for use from many threads.
    private let mutex = Mutex(())
    /// Stored with release order before each unlock and loaded with
    /// acquire order after each lock: for ThreadSanitizer, which sees the
    /// mutex's atomics only on its uncontended path (the contended one
    /// hands the lock over in the kernel, from uninstrumented code), and
    /// would otherwise report what one holder wrote and the next one read
    /// as a race. A plain load and a plain store on x86-64 and arm64.
    private let handoff = Atomic<UInt32>(0)

    init() {}

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        // The result leaves through a local: `Mutex.withLock` returns a
        // `sending` value, which what the callers guard is not.
        var result: R?
        try mutex.withLock { (_) throws(E) in
            _ = handoff.load(ordering: .acquiring)
            defer { handoff.store(0, ordering: .releasing) }
            result = try body()
        }
        return result.unsafelyUnwrapped
    }
}
