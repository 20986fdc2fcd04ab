/// Who is creating which `.shared` or `.weak` instance, so that each is
/// created by one thread at a time, with detection of cycles that span
/// threads.
///
/// A thread *claims* a definition before building its instance and releases
/// the claim afterwards; a thread that finds the definition claimed by
/// another waits for the release. Claims are entries in a table behind one
/// process-wide lock, not a mutex per definition: the lock is held only to
/// read and update the table, never while a factory runs, and a registration
/// carries no lock of its own (that saved 80 bytes per `.shared` and `.weak`
/// registration). Creation is rare (once per instance generation for
/// `.shared`), so waiters share one condition and re-check after every
/// release. A resolve that finds a shared instance never comes here.
///
/// One thread cannot wait for itself: `ResolutionContext.enter` reports the
/// cycle before the claim. Two threads can: thread 1 creates shared `A`
/// (holding A's claim) and needs shared `B`, while thread 2 holds B's claim
/// and needs `A`. Before waiting, a thread therefore follows the chain "claim
/// owner → the definition that owner waits for → its owner …"; reaching
/// itself means that waiting would close a cycle, so it throws a cycle error
/// instead.
@usableFromInline
enum InstanceCreation {
    private final class Claims: @unchecked Sendable {
        let lock = Lock()
        let released = Condition()
        /// definition → context (thread) that claimed it
        var owners: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// context (thread) → definition it waits to claim
        var waiting: [ObjectIdentifier: ObjectIdentifier] = [:]
    }

    private static let claims = Claims()

    /// Claims `definition` for this thread, waiting while another thread
    /// holds it. Throws a cycle error when that thread waits, directly or
    /// through others, for this one.
    @usableFromInline
    static func acquire(_ definition: AnyDefinition, context: ResolutionContext) throws(ResolutionError) {
        let me = ObjectIdentifier(context)
        let wanted = ObjectIdentifier(definition)
        claims.lock.lock()
        defer { claims.lock.unlock() }
        while let holder = claims.owners[wanted] {
            var owner: ObjectIdentifier? = holder
            while let current = owner {
                if current == me {
                    claims.waiting[me] = nil
                    // `definition` is this thread's innermost frame already.
                    throw definition.error(.cycle, path: context.pathText(appending: "(held by a thread that waits for this one)"))
                }
                owner = claims.waiting[current].flatMap { claims.owners[$0] }
            }
            claims.waiting[me] = wanted
            claims.released.wait(releasing: claims.lock)
        }
        claims.waiting[me] = nil
        claims.owners[wanted] = me
    }

    /// Releases this thread's claim on `definition` and wakes the waiters.
    @usableFromInline
    static func release(_ definition: AnyDefinition) {
        claims.lock.withLock {
            claims.owners[ObjectIdentifier(definition)] = nil
        }
        claims.released.broadcast()
    }
}
