/// The locks held while `.shared` and `.weak` instances are created, with
/// detection of cycles that span threads.
///
/// One thread cannot deadlock on itself: `ResolutionContext.enter` reports
/// the cycle before the lock is taken. Two threads can: thread 1 creates
/// shared `A` (holding A's lock) and needs shared `B`, while thread 2 holds
/// B's lock and needs `A`. Before blocking, a thread therefore follows the
/// chain "lock owner → the lock that owner waits for → its owner …"; reaching
/// itself means that waiting would close a cycle, so it throws a cycle error
/// instead. The bookkeeping sits behind one process-wide lock that is taken
/// only when an instance is created or a `.weak` one looked up, never held
/// while a factory runs, and never by a resolve that finds a shared instance.
@usableFromInline
enum InstanceCreation {
    private final class Waits: @unchecked Sendable {
        let lock = Lock()
        /// definition → context (thread) holding its instance lock
        var owners: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// context (thread) → definition whose instance lock it waits for
        var waiting: [ObjectIdentifier: ObjectIdentifier] = [:]
    }

    private static let waits = Waits()

    @usableFromInline
    static func acquire(_ definition: AnyDefinition, context: ResolutionContext) throws(ResolutionError) {
        let instanceLock = definition.instanceLock!
        let me = ObjectIdentifier(context)
        let wanted = ObjectIdentifier(definition)
        waits.lock.lock()
        if instanceLock.tryLock() {
            waits.owners[wanted] = me
            waits.lock.unlock()
            return
        }
        var owner = waits.owners[wanted]
        while let current = owner {
            if current == me {
                waits.lock.unlock()
                // `definition` is this thread's innermost frame already.
                throw definition.error(.cycle, path: context.pathText(appending: "(held by a thread that waits for this one)"))
            }
            owner = waits.waiting[current].flatMap { waits.owners[$0] }
        }
        waits.waiting[me] = wanted
        waits.lock.unlock()
        instanceLock.lock()
        waits.lock.withLock {
            waits.waiting[me] = nil
            waits.owners[wanted] = me
        }
    }

    @usableFromInline
    static func release(_ definition: AnyDefinition) {
        waits.lock.withLock {
            waits.owners[ObjectIdentifier(definition)] = nil
        }
        definition.instanceLock!.unlock()
    }
}
