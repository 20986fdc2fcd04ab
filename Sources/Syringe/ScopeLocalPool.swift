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
/// enough for the scopes a server's threads make and free in turn, and a
/// bound on what an idle registration keeps. Lock-free: a slot changes
/// hands by compare-and-exchange only, so a copy is taken by one scope, and
/// given back to one slot, at a time. A taken address that was given back
/// meanwhile is still a copy waiting here (no ABA hazard: the slot holds
/// whole references, not links).
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

    /// A slot's value once the pool is closed: no address is 1.
    private static let closed: UInt = 1

    init() {}

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
        return taken
    }

    /// Keeps `copy` (which nothing else references) for a later `take`,
    /// taking the reference `copy` stands for over (a taker takes it in
    /// turn); false if every slot is taken or the pool is closed: then the
    /// caller still owns it.
    func give(_ copy: Unmanaged<AnyDefinition>) -> Bool {
        let address = UInt(bitPattern: copy.toOpaque())
        var kept = false
        firstSlot { slot in
            // Release: the taker sees the copy's reset state.
            kept = slot.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged
            return kept
        }
        return kept
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
    }
}
