@_spi(SyringeSwinject) import Syringe

/// Who is making which `.container`, `.weak` or custom-scope instance: the
/// claims of Syringe's own `.shared` instances (`InstanceCreation`), keyed
/// by the entry and the resolving thread's state. A thread that finds an
/// entry claimed waits until the instance exists; a claim is never held by
/// a thread that waits for another's, unless that closes no cycle.
@usableFromInline
enum InstanceClaims {
    /// Claims `entry` for the thread whose state is `state`, waiting while
    /// another thread holds it; false (not claimed) when this thread holds
    /// it already or waiting would close a cycle between threads.
    @usableFromInline
    static func claim(_ entry: AnyObject, for state: ResolutionState) -> Bool {
        InstanceCreation.claim(ObjectIdentifier(entry), for: ObjectIdentifier(state))
    }

    /// Releases a claim `claim` took, waking the threads that wait for it.
    @usableFromInline
    static func release(_ entry: AnyObject) {
        InstanceCreation.release(ObjectIdentifier(entry))
    }
}
