import Synchronization

/// Who is creating which `.shared`, `.scoped` or `.weak` instance, so that
/// each is created by one thread at a time, with detection of cycles that
/// span threads.
///
/// A thread *claims* a definition before building its instance (or, for
/// `.weak`, before reading its weak reference) and releases the claim
/// afterwards. The claim is 32 bits of the definition
/// (`graphIndexOrClaim`, which a `.graph` registration, never claimed, uses
/// for its index instead): 0 when free, else the claiming thread's
/// `ResolutionContext.claimHolder`, with `contendedBit` set once a thread
/// waits for it. An uncontended claim and release are one compare-and-swap
/// each, with no lock: every request creates its scope's instances, and the
/// process-wide lock they all took before cost each creation about 650
/// instructions and made the creations of all requests on all cores wait for
/// one another.
///
/// Waiting is the slow path, behind one process-wide lock, which is held
/// only to read and update the bookkeeping, never while a factory runs. A
/// thread that finds a definition claimed sets `contendedBit` under the lock
/// and sleeps on a condition of its own; the owner's release, seeing the bit,
/// takes the lock to clear the claim and signal the threads that wait for
/// that definition. Why no wake-up is lost: the bit is set under the lock
/// and the waiter sleeps in the same critical section (the wait releases the
/// lock atomically), so an owner whose lock-free release fails on the bit
/// takes the lock only once the waiter sleeps; and an owner whose lock-free
/// release succeeded cleared the claim before the waiter's bit was set,
/// which the waiter's compare-and-swap then sees.
///
/// Memory ordering: a claim is taken with acquiring and released with
/// releasing ordering, so that what a creator wrote under its claim (the
/// `.weak` box, a published `.shared` box) is visible to the next claimer.
///
/// One thread cannot wait for itself: `ResolutionContext.enter` reports the
/// cycle before the claim. Two threads can: thread 1 creates shared `A`
/// (holding A's claim) and needs shared `B`, while thread 2 holds B's claim
/// and needs `A`. Before waiting, a thread therefore follows the chain "claim
/// owner → the definition that owner waits for → its owner …"; reaching
/// itself means that waiting would close a cycle, so it throws a cycle error
/// instead. The chain is read under the lock and is exact where it matters:
/// a definition that a thread waits for has its bit set, so its claim
/// changes only under the lock.
///
/// SyringeSwinject claims its own entries (`claim(_:for:)`), which have no
/// claim of their own, and `@LazyInjected` its properties
/// (`claim(_:context:)`), and so are an async graph's slots of synchronous
/// `.graph` registrations that two threads ask for (`adopt`): their owners
/// are kept in a table under the same lock, and the chain walks both kinds.
@_spi(SyringeSwinject) public
enum InstanceCreation {
    /// Set in a claim while a thread waits for it. `claimHolder`s are even.
    static let contendedBit: UInt32 = 1

    /// Who holds or waits for a claim: a thread of Syringe's engine, by its
    /// context's `claimHolder`, or one of SyringeSwinject's, by its state.
    private enum Holder: Equatable {
        case context(UInt32)
        case state(ObjectIdentifier)
    }

    /// A thread waiting for a claim: what it waits for, and the condition
    /// the release of that claim signals.
    private struct Waiter {
        /// A definition (`definition` is set) or a SyringeSwinject entry.
        let target: ObjectIdentifier
        /// The definition, whose claim names its owner. Unretained: the
        /// waiting thread's resolve keeps it allocated while it waits, and
        /// removes this entry before it returns.
        let definition: Unmanaged<AnyDefinition>?
        let wake: Condition
    }

    private final class Claims: @unchecked Sendable {
        // Exclusivity is not checked at run time: both tables are touched
        // only under `lock`, so no two accesses can overlap, and the checks
        // cost each wait a few hundred instructions.
        let lock = ConditionMutex()
        /// SyringeSwinject entry → the thread that claimed it
        @exclusivity(unchecked)
        var owners = ClaimTable<ObjectIdentifier, Holder>()
        /// thread → what it waits for
        @exclusivity(unchecked)
        var waiting = ClaimTable<Holder, Waiter>()
    }

    private static let claims = Claims()

    /// Claims `definition` for this thread, waiting while another thread
    /// holds it. Throws a cycle error when that thread waits, directly or
    /// through others, for this one.
    @usableFromInline
    static func acquire(_ definition: AnyDefinition, context: ResolutionContext) throws(ResolutionError) {
        let me = context.claimHolder
        if definition.graphIndexOrClaim.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
            return
        }
        guard claimSlowly(definition, for: me) else {
            throw cycle(at: definition, context: context)
        }
    }

    /// Claims `slot`, an async graph's slot of the synchronous `.graph`
    /// registration `definition`, for the thread of `context`, waiting while
    /// another thread holds it (see `adopt`). Throws a cycle error as
    /// `acquire(_:context:)` does; `definition` is the thread's innermost
    /// frame. Released with `release(_:)`.
    static func acquire(_ slot: AnyObject, of definition: AnyDefinition, context: ResolutionContext) throws(ResolutionError) {
        guard claim(ObjectIdentifier(slot), context: context) else {
            throw cycle(at: definition, context: context)
        }
    }

    /// Records that the thread whose context's `claimHolder` is `holder`
    /// holds the claim on `key`, which nobody holds here yet: an async
    /// graph's slot of a synchronous registration, claimed under the graph's
    /// lock and moved here when a second thread asks for it (see
    /// `AsyncResolution.claim(_:forThread:)`). Released with `release(_:)`.
    static func adopt(_ key: ObjectIdentifier, heldBy holder: UInt32) {
        claims.lock.withLock {
            claims.owners[key] = .context(holder)
        }
    }

    /// The error of a wait for `definition`'s claim that would close a
    /// cycle; `definition` is the innermost frame of `context` already.
    /// Built after the lock is released: the path can be long.
    private static func cycle(at definition: AnyDefinition, context: ResolutionContext) -> ResolutionError {
        definition.error(.cycle, path: context.pathText(appending: "(held by a thread that waits for this one)"))
    }

    /// Releases this thread's claim on `definition`; wakes the threads
    /// waiting for it, if any.
    @usableFromInline
    static func release(_ definition: AnyDefinition) {
        // Only the owner releases, so the claim is the owner's, with the
        // bit if someone waits; a waiter can set the bit between the load
        // and the swap, which then fails.
        let claim = definition.graphIndexOrClaim.load(ordering: .relaxed)
        if claim & contendedBit == 0,
           definition.graphIndexOrClaim.compareExchange(expected: claim, desired: 0, ordering: .releasing).exchanged {
            return
        }
        claims.lock.withLock {
            definition.graphIndexOrClaim.store(0, ordering: .releasing)
            wakeWaiters(for: ObjectIdentifier(definition))
        }
    }

    /// `acquire` when the claim was taken: takes it once it is free, waiting
    /// meanwhile; false when waiting would close a cycle (including `me`
    /// holding it already).
    private static func claimSlowly(_ definition: AnyDefinition, for me: UInt32) -> Bool {
        let waiter = Holder.context(me)
        claims.lock.lock()
        defer { claims.lock.unlock() }
        while true {
            let claim = definition.graphIndexOrClaim.load(ordering: .acquiring)
            if claim == 0 {
                if definition.graphIndexOrClaim.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
                    claims.waiting[waiter] = nil
                    return true
                }
                continue
            }
            if closesCycle(from: .context(claim & ~contendedBit), to: waiter) {
                claims.waiting[waiter] = nil
                return false
            }
            if claim & contendedBit == 0,
               !definition.graphIndexOrClaim.compareExchange(expected: claim, desired: claim | contendedBit, ordering: .relaxed).exchanged {
                continue  // released or taken meanwhile: look again
            }
            wait(waiter, for: ObjectIdentifier(definition), definition: .passUnretained(definition))
        }
    }

    /// Waits for and takes the claim on `wanted` for the thread identified by
    /// `me`; false when waiting would close a cycle (including `me` already
    /// holding it). SyringeSwinject claims its entries through this, so that
    /// a wait spanning both engines is still seen to close a cycle.
    @_spi(SyringeSwinject) public
    static func claim(_ wanted: ObjectIdentifier, for me: ObjectIdentifier) -> Bool {
        claim(wanted, as: .state(me))
    }

    /// `claim(_:for:)` for an object of Syringe's own that is not a
    /// definition (a `@LazyInjected` property), by the thread of `context`:
    /// the holder its definition claims name, so that a cycle through both
    /// (a property whose resolve waits for a `.shared` creation whose
    /// factory reads the property) is seen.
    static func claim(_ wanted: ObjectIdentifier, context: ResolutionContext) -> Bool {
        claim(wanted, as: .context(context.claimHolder))
    }

    private static func claim(_ wanted: ObjectIdentifier, as waiter: Holder) -> Bool {
        claims.lock.lock()
        defer { claims.lock.unlock() }
        while let owner = claims.owners[wanted] {
            if closesCycle(from: owner, to: waiter) {
                claims.waiting[waiter] = nil
                return false
            }
            wait(waiter, for: wanted, definition: nil)
        }
        claims.waiting[waiter] = nil
        claims.owners[wanted] = waiter
        return true
    }

    /// Releases the claim on `released` taken with `claim(_:for:)` or
    /// `claim(_:context:)`, and wakes the threads waiting for it.
    @_spi(SyringeSwinject) public
    static func release(_ released: ObjectIdentifier) {
        claims.lock.withLock {
            claims.owners[released] = nil
            wakeWaiters(for: released)
        }
    }

    /// Whether the chain "`owner` → what it waits for → that claim's owner …"
    /// reaches `me`. Under the lock.
    private static func closesCycle(from owner: Holder, to me: Holder) -> Bool {
        var current: Holder? = owner
        while let thread = current {
            if thread == me {
                return true
            }
            current = claims.waiting[thread].flatMap(self.owner)
        }
        return false
    }

    /// Who holds what `waiter` waits for; nil once it is free. Under the lock.
    private static func owner(of waiter: Waiter) -> Holder? {
        guard let definition = waiter.definition else {
            return claims.owners[waiter.target]
        }
        let claim = definition._withUnsafeGuaranteedRef { $0.graphIndexOrClaim.load(ordering: .acquiring) } & ~contendedBit
        return claim == 0 ? nil : .context(claim)
    }

    /// Records that `me` waits for `target` and sleeps until its release
    /// signals, or spuriously: the caller checks again. Under the lock.
    private static func wait(_ me: Holder, for target: ObjectIdentifier, definition: Unmanaged<AnyDefinition>?) {
        let wake = claims.waiting[me]?.wake ?? Condition()
        claims.waiting[me] = Waiter(target: target, definition: definition, wake: wake)
        wake.wait(releasing: claims.lock)
    }

    /// Signals every thread waiting for `target`. Under the lock.
    private static func wakeWaiters(for target: ObjectIdentifier) {
        for waiter in claims.waiting.values where waiter.target == target {
            waiter.wake.signal()
        }
    }
}
