import Synchronization

/// Scope-local copies of one `.scoped` registration that freed scopes gave
/// back, for the next scopes to use instead of making their own.
///
/// A scope's first resolve of a `.scoped` registration installs a copy of
/// it (`AnyDefinition.Kind.scopeLocal`, see `Container.scopeLocal(of:)`).
/// Making one and freeing it again took about 850 instructions and an
/// allocation per `.scoped` type per request; taking one from here takes a
/// few atomic operations. A copy given back is in the state a new one
/// starts in: no instance, no claim, a dense index of its own, and the
/// registration's factories; `Definition.scopeLocalCopy(key:)` brings its
/// hooks up to date when it is taken. Reusing a copy is then what reusing
/// its memory would be, which the allocator does anyway: nothing can tell
/// the two apart, and nothing keeps a freed copy's identity.
///
/// Four slots, each a retained copy's address, 0 when empty, or `closed`:
/// enough for the scopes a server's threads make and free in turn.
/// Lock-free: a slot changes hands by compare-and-exchange only, so a copy
/// is taken by one scope, and given back to one slot, at a time. A taken
/// address that was given back meanwhile is still a copy waiting here (no
/// ABA hazard: the slot holds whole references, not links).
///
/// Requests in flight hold a copy each and give them back in bursts: with
/// the four slots alone, a service's request under 32 concurrent ones made
/// its copies anew nearly every time (see "Spares for requests in flight"
/// in Benchmarks/README.md). Copies the slots have no room for go to an
/// overflow of `Overflow.capacity` under a lock, made at the first such
/// copy, so a registration whose scopes come one after another never makes
/// it, and taken from only when the slots are empty. The overflow bounds
/// what an idle registration keeps.
///
/// The copies hold the registration's extras, which hold this pool: the
/// registration closes the pool when it is freed (`Definition.deinit`),
/// releasing what it holds and refusing what comes later, so that the
/// cycle never outlives it.
struct ScopeLocalPool: ~Copyable {
    private let slot0 = Atomic<UInt>(0)
    private let slot1 = Atomic<UInt>(0)
    private let slot2 = Atomic<UInt>(0)
    private let slot3 = Atomic<UInt>(0)
    /// The retained `Overflow`'s address once made; 0 before, `closed` if
    /// the pool was closed before one was made. Never replaced nor freed
    /// before the pool: a giver may be about to lock it.
    private let overflow = Atomic<UInt>(0)

    /// The most copies a registration keeps: its four slots and its overflow.
    static let capacity = 4 + Overflow.capacity

    /// A slot's value, and `overflow`'s if none was made, once the pool
    /// is closed: no address is 1.
    private static let closed: UInt = 1

    init() {}

    deinit {
        let made = overflow.load(ordering: .acquiring)
        if made > Self.closed {
            Unmanaged<Overflow>.fromOpaque(UnsafeRawPointer(bitPattern: made)!).release()
        }
    }

    /// The copies beyond the slots, newest last.
    private final class Overflow: @unchecked Sendable {
        // @unchecked: `copies` and `isClosed` are guarded by `lock`, and
        // for that reason not checked for exclusivity at run time.
        static let capacity = 60
        let lock = Lock()
        @exclusivity(unchecked)
        var copies: [Unmanaged<AnyDefinition>] = []
        @exclusivity(unchecked)
        var isClosed = false

        init() {
            copies.reserveCapacity(Self.capacity)
        }
    }

    /// The overflow, if one was made.
    private var madeOverflow: Overflow? {
        Self.overflow(at: overflow.load(ordering: .acquiring))
    }

    private static func overflow(at address: UInt) -> Overflow? {
        guard address > closed else {
            return nil
        }
        return Unmanaged<Overflow>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
    }

    /// The overflow, made if there is none yet; nil if the pool was closed
    /// before one was made.
    private func makeOverflow() -> Overflow? {
        let address = overflow.load(ordering: .acquiring)
        guard address == 0 else {
            return Self.overflow(at: address)
        }
        let new = Unmanaged.passRetained(Overflow())
        let (exchanged, original) = overflow.compareExchange(
            expected: 0, desired: UInt(bitPattern: new.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged {
            return new.takeUnretainedValue()
        }
        new.release()
        return Self.overflow(at: original)
    }

    /// Runs `body` on each slot in turn until it returns true.
    private func firstSlot(where body: (borrowing Atomic<UInt>) -> Bool) {
        if body(slot0) { return }
        if body(slot1) { return }
        if body(slot2) { return }
        _ = body(slot3)
    }

    /// A copy given back earlier, now the caller's; nil if none waits.
    func take() -> AnyDefinition? {
        var taken: AnyDefinition?
        firstSlot { slot in
            let held = slot.load(ordering: .acquiring)
            guard held > Self.closed,
                  slot.compareExchange(expected: held, desired: 0, ordering: .acquiring).exchanged else {
                return false
            }
            taken = Unmanaged<AnyDefinition>.fromOpaque(UnsafeRawPointer(bitPattern: held)!).takeRetainedValue()
            return true
        }
        return taken ?? takeFromOverflow()
    }

    /// A copy from the overflow, if one was made and holds any.
    @inline(never)
    private func takeFromOverflow() -> AnyDefinition? {
        guard let overflow = madeOverflow else {
            return nil
        }
        return overflow.lock.withLock { overflow.copies.popLast() }?.takeRetainedValue()
    }

    /// Keeps `copy` (which nothing else references) for a later `take`,
    /// taking the reference `copy` stands for over (a taker takes it in
    /// turn); false if there is no room or the pool is closed: then the
    /// caller still owns it.
    func give(_ copy: Unmanaged<AnyDefinition>) -> Bool {
        let address = UInt(bitPattern: copy.toOpaque())
        var kept = false
        firstSlot { slot in
            // Release: the taker sees the copy's reset state.
            kept = slot.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged
            return kept
        }
        // Not kept: the slots are full, or closed (and then so is the overflow).
        return kept || giveToOverflow(copy)
    }

    /// `give` once the slots had no room.
    @inline(never)
    private func giveToOverflow(_ copy: Unmanaged<AnyDefinition>) -> Bool {
        // The lock orders the copy's reset state before its taker, as the
        // slots' release and acquire do.
        guard let overflow = makeOverflow() else {
            return false
        }
        return overflow.lock.withLock {
            guard !overflow.isClosed, overflow.copies.count < Overflow.capacity else {
                return false
            }
            overflow.copies.append(copy)
            return true
        }
    }

    /// Releases every copy kept here and refuses later ones.
    func close() {
        firstSlot { slot in
            let held = slot.exchange(Self.closed, ordering: .acquiring)
            if held > Self.closed {
                Unmanaged<AnyDefinition>.fromOpaque(UnsafeRawPointer(bitPattern: held)!).release()
            }
            return false
        }
        // A giver that finds the slots full either sees this (and keeps
        // nothing) or made the overflow first (and is refused under its lock).
        let (exchanged, made) = overflow.compareExchange(expected: 0, desired: Self.closed, ordering: .acquiringAndReleasing)
        guard !exchanged, let overflow = Self.overflow(at: made) else {
            return
        }
        // Released after the lock: a copy's release frees a registration,
        // which runs no user code, but nothing should under the lock.
        let copies = overflow.lock.withLock {
            overflow.isClosed = true
            let copies = overflow.copies
            overflow.copies = []
            return copies
        }
        for copy in copies {
            copy.release()
        }
    }
}
