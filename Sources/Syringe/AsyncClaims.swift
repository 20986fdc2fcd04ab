/// Who is creating which instance in an async resolve, so that an async
/// `.shared`, `.scoped` or `.weak` instance (keyed by its definition), or a
/// `.graph` instance within one graph (keyed by its `GraphSlot`), is created
/// by one task at a time, and the others suspend until it exists.
///
/// The counterpart of `InstanceCreation`, which blocks threads: a task that
/// finds an instance being created here is parked as a continuation, never
/// on a lock, so a thousand tasks waiting for one slow creation hold no
/// thread. The lock below guards only this bookkeeping and is never held
/// while a factory runs or across a suspension.
///
/// When a creation ends (made, or failed: then nothing is kept) every task
/// waiting for it is resumed and checks again: one finds the instance, or one
/// of them becomes the next creator. So a creator's failure, cancellation
/// included, never fails the tasks that waited for it; a waiting task that is
/// itself cancelled stops waiting with `.cancelled`.
///
/// A cycle that spans tasks (task 1 creates A and needs B, task 2 creates B
/// and needs A) would wait forever; before waiting, a task follows the
/// chain "this creation's owner → what the owner (or a child task of its
/// resolve) waits for → that creation's owner …", and reaching itself (its
/// own task, or a frame it descends from) throws a cycle error instead.
enum AsyncClaims {
    private struct Claim {
        /// The frame creating the instance.
        let owner: AsyncFrame
        let task: UnsafeRawPointer?
    }

    private struct Waiter {
        let key: ObjectIdentifier
        let frame: AsyncFrame
        let task: UnsafeRawPointer?
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private final class State: @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`; for the same reason
        // exclusivity is not checked at run time (no two accesses can
        // overlap, and the checks cost each creation a few hundred
        // instructions).
        let lock = Lock()
        @exclusivity(unchecked)
        var claims = ClaimTable<ObjectIdentifier, Claim>()
        @exclusivity(unchecked)
        var waiters: [UInt64: Waiter] = [:]
        @exclusivity(unchecked)
        var nextWaiter: UInt64 = 0
    }

    private static let state = State()

    /// Takes the claim on `key` for `task` (`frame`'s) and returns true if
    /// nobody holds it; false if another task does (then `wait` for it).
    /// Throws a cycle error when waiting would never end. Synchronous: a
    /// claim nobody holds, the usual case, costs no async call, and with it
    /// no frame from the task's allocator.
    static func tryAcquire(_ key: ObjectIdentifier, for frame: AsyncFrame, task: UnsafeRawPointer?) throws(ResolutionError) -> Bool {
        let attempt: Bool? = state.lock.withLock {
            if state.claims[key] == nil {
                state.claims[key] = Claim(owner: frame, task: task)
                return true
            }
            return closesCycle(waitingFor: key, frame: frame, task: task) ? nil : false
        }
        guard let attempt else {
            throw cycle(frame)
        }
        return attempt
    }

    /// After `tryAcquire` found the claim on `key` held: takes it for `task`
    /// if it has been released since and returns true, or waits until it is
    /// released and returns false: the caller checks for the instance
    /// again, then tries again. Throws a cycle error when waiting would
    /// never end, and `.cancelled` when the task is cancelled while it waits.
    nonisolated(nonsending) static func wait(for key: ObjectIdentifier, frame: AsyncFrame, task: UnsafeRawPointer?) async throws(ResolutionError) -> Bool {
        let id = state.lock.withLock {
            state.nextWaiter += 1
            return state.nextWaiter
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                    // Checked again: the claim may have gone, or changed
                    // hands, since the attempt above.
                    state.lock.lock()
                    if state.claims[key] == nil {
                        state.claims[key] = Claim(owner: frame, task: task)
                        state.lock.unlock()
                        continuation.resume(returning: true)
                    } else if closesCycle(waitingFor: key, frame: frame, task: task) {
                        state.lock.unlock()
                        continuation.resume(throwing: cycle(frame))
                    } else if Task.isCancelled {
                        // The cancellation handler ran before this waiter
                        // existed, and found nothing to resume.
                        state.lock.unlock()
                        continuation.resume(throwing: CancellationError())
                    } else {
                        state.waiters[id] = Waiter(key: key, frame: frame, task: task, continuation: continuation)
                        state.lock.unlock()
                    }
                }
            } onCancel: {
                let waiter = state.lock.withLock { state.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw frame.definition.error(.cancelled, path: frame.pathText)
        }
    }

    /// The instance `existing` finds, or else the one `create` makes while
    /// `frame`'s task holds the claim on `key`. Inlined into its callers:
    /// see `Container.inFrame`.
    @inline(__always)
    nonisolated(nonsending) static func existingOrCreated<T>(
        _ key: ObjectIdentifier, for frame: AsyncFrame,
        existing: () throws(ResolutionError) -> T?,
        create: nonisolated(nonsending) () async throws(ResolutionError) -> T
    ) async throws(ResolutionError) -> T {
        if let found = try await existingOrClaimed(key, for: frame, existing: existing) {
            return found
        }
        defer { release(key) }
        return try await create()
    }

    /// What `existing` finds, or nil once `frame`'s task holds the claim on
    /// `key`, which the caller then releases (`release`) when it has made
    /// the instance. `existing` is asked again once the claim is taken,
    /// since the task that held it before may have made one. Takes no
    /// closure to call across a suspension, so a caller that makes the
    /// instance itself, without an async closure, calls no more async
    /// functions than `wait`, and that only while another task holds the
    /// claim (see `Container.createSharedAsync`).
    @inline(__always)
    nonisolated(nonsending) static func existingOrClaimed<Found>(
        _ key: ObjectIdentifier, for frame: AsyncFrame,
        existing: () throws(ResolutionError) -> Found?
    ) async throws(ResolutionError) -> Found? {
        let task = currentTask()
        while true {
            if let found = try existing() {
                return found
            }
            if try tryAcquire(key, for: frame, task: task) {
                break
            }
            if try await wait(for: key, frame: frame, task: task) {
                break
            }
        }
        let found: Found?
        do throws(ResolutionError) {
            found = try existing()
        } catch {
            release(key)
            throw error
        }
        if found != nil {
            release(key)
        }
        return found
    }

    /// Records that `owner`'s task holds the claim on `key`, which nobody
    /// holds here yet: an async graph's claim on one of its slots, taken
    /// without this table and moved here when a second task asks for it
    /// (see `AsyncResolution.claim`). Released with `release`.
    static func adopt(_ key: ObjectIdentifier, owner: AsyncFrame, task: UnsafeRawPointer?) {
        state.lock.withLock {
            state.claims[key] = Claim(owner: owner, task: task)
        }
    }

    /// Releases the claim on `key` and resumes every task waiting for it.
    static func release(_ key: ObjectIdentifier) {
        let woken: [Waiter] = state.lock.withLock {
            state.claims[key] = nil
            // Nearly always nobody waits: then nothing to filter, or hash.
            guard !state.waiters.isEmpty else { return [] }
            let woken = state.waiters.filter { $0.value.key == key }
            for id in woken.keys {
                state.waiters[id] = nil
            }
            return Array(woken.values)
        }
        for waiter in woken {
            waiter.continuation.resume(returning: false)
        }
    }

    /// Whether waiting for `key` would wait, through the chain of owners and
    /// what they wait for, for `frame` itself. Call with the lock.
    private static func closesCycle(waitingFor key: ObjectIdentifier, frame: AsyncFrame, task: UnsafeRawPointer?) -> Bool {
        var keys = [key]
        var seen: Set<ObjectIdentifier> = []
        while let next = keys.popLast() {
            guard seen.insert(next).inserted, let claim = state.claims[next] else {
                continue
            }
            if (task != nil && claim.task == task) || frame.descends(from: claim.owner) {
                return true
            }
            // The owner's creation ends only when what its task, or a child
            // task of its resolve, waits for has been created.
            for waiter in state.waiters.values
            where (claim.task != nil && waiter.task == claim.task) || waiter.frame.descends(from: claim.owner) {
                keys.append(waiter.key)
            }
        }
        return false
    }

    private static func cycle(_ frame: AsyncFrame) -> ResolutionError {
        frame.definition.error(.cycle, path: frame.pathText + ["(held by a task that waits for this one)"])
    }

    /// The running task's identity, compared and never dereferenced: a claim
    /// is released before its task ends.
    static func currentTask() -> UnsafeRawPointer? {
        withUnsafeCurrentTask { task in
            // The optional as a whole, a task reference or null: unwrapping
            // it (`task.map`, `guard let`) copied it through an outlined
            // copy the optimiser shares with another type, about 140
            // instructions for every async creation.
            unsafeBitCast(task, to: UnsafeRawPointer?.self)
        }
    }
}
