import CSyringeTable

/// A lock for short critical sections that never wait on anything: the C
/// target's `syr_lock_t` (a futex on Linux, an `os_unfair_lock` on Apple
/// platforms; see `include/syringe_lock.h`), in one allocation. About 20
/// instructions to take and release uncontended, where a pthread mutex
/// takes about 63; a request scope takes locks several times.
///
/// Syringe takes it for writers (registration, removal), for the async
/// engine's bookkeeping, and for its process-wide tables; never while a
/// factory or a disposer runs. A resolve of an existing `.shared` instance,
/// and every `.new` and `.graph` resolve, never touches one. Where a thread
/// must sleep until something changes, `ConditionMutex` and `Condition` are
/// used instead.
///
/// ```swift
/// let lock = Lock()
/// let count = lock.withLock { counter += 1; return counter }
/// ```
@_spi(SyringeSwinject) public
// @unchecked: the storage is a lock made for use from many threads.
struct Lock: @unchecked Sendable {
    private let storage = LockStorage.make()

    @_spi(SyringeSwinject) public
    init() {}

    @_spi(SyringeSwinject) public
    func lock() {
        storage.withUnsafeMutablePointerToElements { syr_lock_acquire($0) }
    }

    @_spi(SyringeSwinject) public
    func unlock() {
        storage.withUnsafeMutablePointerToElements { syr_lock_release($0) }
    }

    @_spi(SyringeSwinject) public
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// The lock lives in the tail of this object, at an address that never
/// changes while threads use it.
private final class LockStorage: ManagedBuffer<Void, syr_lock_t> {
    static func make() -> LockStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in }, to: LockStorage.self)
        storage.withUnsafeMutablePointerToElements { syr_lock_init($0) }
        return storage
    }
}
