import CSyringeTable

/// Frees what lock-free resolves may still be reading, once they cannot:
/// Syringe's side of the reclaimer in `include/syringe_reclaim.h`.
///
/// Every resolve runs inside a read-side section (`syr_read_enter` /
/// `syr_read_exit`, in the public entry points). A writer that unpublishes a
/// definition, a `.shared` instance's box or a hook list retires it here
/// instead of releasing it, and the reclaimer releases it when every section
/// that was running at that moment has ended: at once when none was, and
/// otherwise at the next poll (a writer's, or any thread's next outermost
/// resolve).
@_spi(SyringeSwinject) public
enum Reclamation {
    /// Hands the caller's reference to `object` to the reclaimer. Call after
    /// unpublishing it (no new resolve can reach it), from any thread.
    @_spi(SyringeSwinject) public
    static func retire(_ object: AnyObject) {
        syr_reclaim_retire(Unmanaged.passRetained(object).toOpaque(), releaseRetired)
    }

    /// `retire` for a caller that is not a writer, and so polls nowhere
    /// after it (a failed resolve taking back what it published, the task
    /// that disposes an abandoned instance): retires `object` and polls.
    /// Outside every section, `object` is freed here if no resolve can reach
    /// it, or by the reclaimer's thread soon after one that could has ended;
    /// without the poll it waited for the next writer anywhere in the
    /// process. Inside a section (a synchronous resolve's), the retire
    /// wakes the reclaimer's thread and the poll does nothing.
    static func retireAndPoll(_ object: AnyObject) {
        retire(object)
        poll()
    }

    /// Frees what has become safe to free. Call after a writer operation,
    /// outside every lock: releasing runs `deinit`s, user code that may
    /// register or resolve. Does nothing inside a resolve (a factory or a
    /// callback that writes), whose own section may be what keeps the objects
    /// alive; they are freed at a later poll.
    @_spi(SyringeSwinject) public
    static func poll() {
        syr_reclaim_poll()
        // Twice: what the first pass frees may retire more (a replaced
        // registration's instance, see `ReleaseSharedInstance`), which is
        // freed now if no resolve is running, as the first was. Nothing
        // pending (nearly every call), the second pass is one load.
        syr_reclaim_poll()
    }
}

/// The free function of every object `Reclamation.retire` hands over.
private let releaseRetired: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
    guard let object else { return }
    Unmanaged<AnyObject>.fromOpaque(object).release()
}
