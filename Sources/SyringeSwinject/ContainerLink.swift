@_spi(SyringeSwinject) import Syringe

/// An entry's way back to the container it was registered in, for
/// `implements`; the container clears it when it goes, so an entry kept
/// longer finds no container, as Swinject's does.
///
/// Not a `weak` reference to the container: the first weak reference to an
/// object gives it a side table, and from then on every retain and release
/// of it takes the runtime's slow path, which a resolve pays on each
/// reference to its container. An `unowned` reference uses the counts in the
/// object itself. It is read only under `lock`, which `clear()` (the
/// container's `deinit`) also takes, so no reader can see the container once
/// its `deinit` has cleared the link; one that races the container's last
/// release traps in the runtime's unowned check instead of reading freed
/// memory.
final class ContainerLink: @unchecked Sendable {
    private let lock = Lock()
    private unowned var target: Container?

    /// Called once by the container's initialiser, which cannot hand out
    /// `self` before its stored properties are set.
    func attach(_ container: Container) {
        lock.withLock { target = container }
    }

    /// The container, unless it is gone.
    var container: Container? {
        lock.withLock { target }
    }

    /// Called by the container's `deinit`.
    func clear() {
        lock.withLock { target = nil }
    }
}
