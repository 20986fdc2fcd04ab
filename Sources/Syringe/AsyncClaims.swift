import CSyringeTable
import Synchronization

/// Who is creating which instance in an async resolve, so that an async
/// `.shared`, `.scoped` or `.weak` instance (keyed by its definition), or a
/// `.graph` instance within one graph (keyed by its `GraphSlot`), is created
/// by one task at a time, and the others suspend until it exists.
///
/// The counterpart of `InstanceCreation`, which blocks threads: a task that
/// finds an instance being created here is parked as a continuation, never
/// on a lock, so a thousand tasks waiting for one slow creation hold no
/// thread. The lock below guards only the bookkeeping of waiting and is
/// never held while a factory runs or across a suspension.
///
/// A definition's claim is a word of its own (`AsyncClaimWords`): the
/// claiming frame's address, taken and released with one compare-and-swap
/// each, without the lock, as `InstanceCreation` claims for threads. Every
/// request creates its scope's async instances, and the process-wide lock
/// and table they all went through before cost each creation about 400
/// instructions, and made the creations of all requests on all cores wait
/// for one another. A task that finds the claim held takes the lock, sets
/// `contendedBit` in the word, and parks in the same critical section; the
/// owner's lock-free release fails on the bit, and it then takes the lock
/// to clear the word and resume the tasks that wait. No wake-up is lost: an
/// owner whose lock-free release succeeded cleared the word before the bit
/// could be set, which the waiter's compare-and-swap then sees. A graph
/// slot's claim moves here only when a second task asks for it
/// (`AsyncResolution.claim`), and is kept in the table below.
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
/// The chain is read under the lock, and is exact where it matters: a claim
/// that a task waits for has its bit set (or is in the table), so it
/// changes only under the lock, and its owner's frame, which a definition's
/// claim does not retain, stays allocated while it is read.
enum AsyncClaims {
    /// What a claim is taken on.
    struct Key {
        let id: ObjectIdentifier
        /// The definition's claim word; nil for a graph slot (and for a
        /// definition past `AsyncClaimWords`' reach), whose claim is kept
        /// in the table.
        let word: UnsafeMutablePointer<Atomic<UInt>>?

        /// The claim on creating `definition`'s instance.
        static func definition(_ definition: AnyDefinition) -> Key {
            Key(id: ObjectIdentifier(definition), word: AsyncClaimWords.word(for: definition.index))
        }

        /// The claim on building an async graph's slot (`GraphSlot`).
        static func slot(_ slot: AnyObject) -> Key {
            Key(id: ObjectIdentifier(slot), word: nil)
        }
    }

    /// Set in a definition's claim word while a task waits for it. Frame
    /// addresses are aligned, so the bit is never theirs.
    static let contendedBit: UInt = 1

    private struct Claim {
        /// The frame creating the instance.
        let owner: AsyncFrame
        let task: UnsafeRawPointer?
    }

    private struct Waiter {
        let key: Key
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
        /// The claims that have no word: graph slots'.
        @exclusivity(unchecked)
        var claims = ClaimTable<ObjectIdentifier, Claim>()
        @exclusivity(unchecked)
        var waiters: [UInt64: Waiter] = [:]
        @exclusivity(unchecked)
        var nextWaiter: UInt64 = 0
    }

    private static let state = State()

    /// Takes the claim on `key` for `frame`'s `task` and returns true if
    /// nobody holds it; false if another task does (then `wait` for it,
    /// which also checks for a cycle). Synchronous: a claim nobody holds,
    /// the usual case, costs no async call, and with it no frame from the
    /// task's allocator; a definition's, no lock either.
    static func tryAcquire(_ key: Key, for frame: AsyncFrame, task: UnsafeRawPointer?) -> Bool {
        guard let word = key.word else {
            return state.lock.withLock { takeOrMarkContended(key, for: frame, task: task) }
        }
        return claimIfFree(word, for: frame, task: task).exchanged
    }

    /// Takes `word` for `frame` if it is 0; otherwise returns what it holds.
    @inline(__always)
    private static func claimIfFree(_ word: UnsafeMutablePointer<Atomic<UInt>>, for frame: AsyncFrame, task: UnsafeRawPointer?) -> (exchanged: Bool, original: UInt) {
        // Before the claim is published (releasing): a task that finds the
        // claim held reads it.
        frame.claimTask = task
        return word.pointee.compareExchange(expected: 0, desired: address(of: frame), ordering: .acquiringAndReleasing)
    }

    /// After `tryAcquire` found the claim on `key` held: takes it for `task`
    /// if it has been released since and returns true, or waits until it is
    /// released and returns false: the caller checks for the instance
    /// again, then tries again. Throws a cycle error when waiting would
    /// never end, and `.cancelled` when the task is cancelled while it waits.
    nonisolated(nonsending) static func wait(for key: Key, frame: AsyncFrame, task: UnsafeRawPointer?) async throws(ResolutionError) -> Bool {
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
                    if takeOrMarkContended(key, for: frame, task: task) {
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
        _ key: Key, for frame: AsyncFrame,
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
        _ key: Key, for frame: AsyncFrame,
        existing: () throws(ResolutionError) -> Found?
    ) async throws(ResolutionError) -> Found? {
        let task = currentTask()
        while true {
            if let found = try existing() {
                return found
            }
            if tryAcquire(key, for: frame, task: task) {
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
    static func release(_ key: Key) {
        if let word = key.word {
            // Only the owner releases, so the word is the owner's, with the
            // bit if someone waits; a waiter can set the bit between the
            // load and the swap, which then fails.
            let claim = word.pointee.load(ordering: .relaxed)
            if claim & contendedBit == 0, word.pointee.compareExchange(expected: claim, desired: 0, ordering: .releasing).exchanged {
                return
            }
        }
        let woken: [Waiter] = state.lock.withLock {
            if let word = key.word {
                word.pointee.store(0, ordering: .releasing)
            } else {
                state.claims[key.id] = nil
            }
            // Nearly always nobody waits: then nothing to filter, or hash.
            guard !state.waiters.isEmpty else { return [] }
            let woken = state.waiters.filter { $0.value.key.id == key.id }
            for id in woken.keys {
                state.waiters[id] = nil
            }
            return Array(woken.values)
        }
        for waiter in woken {
            waiter.continuation.resume(returning: false)
        }
    }

    /// Takes the claim on `key` for `frame` if nobody holds it (true);
    /// otherwise marks a definition's word contended, so that its owner
    /// releases it under the lock and resumes whoever waits (false; a
    /// slot's claim, in the table, changes only under the lock anyway).
    /// Call with the lock.
    private static func takeOrMarkContended(_ key: Key, for frame: AsyncFrame, task: UnsafeRawPointer?) -> Bool {
        guard let word = key.word else {
            guard state.claims[key.id] == nil else { return false }
            state.claims[key.id] = Claim(owner: frame, task: task)
            return true
        }
        var current = word.pointee.load(ordering: .acquiring)
        while true {
            if current == 0 {
                let (taken, found) = claimIfFree(word, for: frame, task: task)
                if taken {
                    return true
                }
                current = found
            } else if current & contendedBit != 0 {
                return false
            } else {
                let (marked, found) = word.pointee.compareExchange(expected: current, desired: current | contendedBit, ordering: .acquiring)
                if marked {
                    return false
                }
                current = found
            }
        }
    }

    /// Who holds the claim on `key`, if anyone. Call with the lock, for a
    /// claim that changes only under it (see the type's comment).
    private static func claim(on key: Key) -> Claim? {
        guard let word = key.word else {
            return state.claims[key.id]
        }
        let owner = word.pointee.load(ordering: .acquiring) & ~contendedBit
        guard let address = UnsafeRawPointer(bitPattern: owner) else {
            return nil
        }
        let frame = Unmanaged<AsyncFrame>.fromOpaque(address).takeUnretainedValue()
        return Claim(owner: frame, task: frame.claimTask)
    }

    /// Whether waiting for `key` would wait, through the chain of owners and
    /// what they wait for, for `frame` itself. Call with the lock.
    private static func closesCycle(waitingFor key: Key, frame: AsyncFrame, task: UnsafeRawPointer?) -> Bool {
        var keys = [key]
        var seen: Set<ObjectIdentifier> = []
        while let next = keys.popLast() {
            guard seen.insert(next.id).inserted, let claim = claim(on: next) else {
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

    /// A frame's address, as a claim word holds it.
    @inline(__always)
    private static func address(of frame: AsyncFrame) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(frame).toOpaque())
    }

    private static func cycle(_ frame: AsyncFrame) -> ResolutionError {
        frame.definition.error(.cycle, path: frame.pathText + ["(held by a task that waits for this one)"])
    }

    /// The running task's identity, compared and never dereferenced: a claim
    /// is released before its task ends.
    /// Through `syr_current_task` rather than `withUnsafeCurrentTask`, which
    /// retained and released the task around its closure (see
    /// `include/syringe_task.h`).
    static func currentTask() -> UnsafeRawPointer? {
        syr_current_task()
    }
}
