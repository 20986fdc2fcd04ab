/// Who is creating which `.shared` or `.weak` instance, so that each is
/// created by one thread at a time, with detection of cycles that span
/// threads.
///
/// A thread *claims* a definition before building its instance (or, for
/// `.weak`, before reading its weak reference) and releases the claim
/// afterwards; a thread that finds the definition claimed by another waits
/// until that claim is released. Claims are entries in a table behind one
/// process-wide lock, not a mutex per definition: the lock is held only to
/// read and update the table, never while a factory runs, and a registration
/// carries no lock of its own (that saved 80 bytes per `.shared` and `.weak`
/// registration). A waiting thread sleeps on a condition of its own, which a
/// release signals only if the thread waits for that definition: the
/// frequent releases of `.weak` resolves wake nobody else. A resolve that
/// finds a shared instance never comes here.
///
/// One thread cannot wait for itself: `ResolutionContext.enter` reports the
/// cycle before the claim. Two threads can: thread 1 creates shared `A`
/// (holding A's claim) and needs shared `B`, while thread 2 holds B's claim
/// and needs `A`. Before waiting, a thread therefore follows the chain "claim
/// owner → the definition that owner waits for → its owner …"; reaching
/// itself means that waiting would close a cycle, so it throws a cycle error
/// instead.
@_spi(SyringeSwinject) public
enum InstanceCreation {
    /// A thread waiting for a claim: the definition, and the condition the
    /// release of that definition's claim signals.
    private struct Waiter {
        let definition: ObjectIdentifier
        let wake: Condition
    }

    private final class Claims: @unchecked Sendable {
        // Exclusivity is not checked at run time: both tables are touched
        // only under `lock`, so no two accesses can overlap, and the checks
        // cost each creation a few hundred instructions.
        let lock = Lock()
        /// definition → context (thread) that claimed it
        @exclusivity(unchecked)
        var owners = ClaimTable<ObjectIdentifier>()
        /// context (thread) → what it waits for
        @exclusivity(unchecked)
        var waiting = ClaimTable<Waiter>()
    }

    private static let claims = Claims()

    /// Claims `definition` for this thread, waiting while another thread
    /// holds it. Throws a cycle error when that thread waits, directly or
    /// through others, for this one.
    @usableFromInline
    static func acquire(_ definition: AnyDefinition, context: ResolutionContext) throws(ResolutionError) {
        guard claim(ObjectIdentifier(definition), for: ObjectIdentifier(context)) else {
            // Built after the lock is released: the path can be long.
            // `definition` is this thread's innermost frame already.
            throw definition.error(.cycle, path: context.pathText(appending: "(held by a thread that waits for this one)"))
        }
    }

    /// Waits for and takes the claim on `wanted` for the thread identified by
    /// `me`; false when waiting would close a cycle (including `me` already
    /// holding it). SyringeSwinject claims its entries through this too, so
    /// that a wait spanning both engines is still seen to close a cycle.
    @_spi(SyringeSwinject) public
    static func claim(_ wanted: ObjectIdentifier, for me: ObjectIdentifier) -> Bool {
        claims.lock.lock()
        defer { claims.lock.unlock() }
        while let holder = claims.owners[wanted] {
            var owner: ObjectIdentifier? = holder
            while let current = owner {
                if current == me {
                    claims.waiting[me] = nil
                    return false
                }
                owner = claims.waiting[current].flatMap { claims.owners[$0.definition] }
            }
            let wake = claims.waiting[me]?.wake ?? Condition()
            claims.waiting[me] = Waiter(definition: wanted, wake: wake)
            // Woken by the release of `wanted`, or spuriously: check again.
            wake.wait(releasing: claims.lock)
        }
        claims.waiting[me] = nil
        claims.owners[wanted] = me
        return true
    }

    /// Releases this thread's claim on `definition` and wakes the threads
    /// waiting for it.
    @usableFromInline
    static func release(_ definition: AnyDefinition) {
        release(ObjectIdentifier(definition))
    }

    /// Releases the claim on `released` taken with `claim(_:for:)`, and wakes
    /// the threads waiting for it.
    @_spi(SyringeSwinject) public
    static func release(_ released: ObjectIdentifier) {
        claims.lock.withLock {
            claims.owners[released] = nil
            for waiter in claims.waiting.values where waiter.definition == released {
                waiter.wake.signal()
            }
        }
    }
}
