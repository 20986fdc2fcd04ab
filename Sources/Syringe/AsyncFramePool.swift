/// Each thread's spare `AsyncFrame`s: frames whose registration was built
/// while nothing else held them (`AsyncFrame.recycle`), handed out again by
/// the next async resolve on the thread instead of allocating.
///
/// Frames move between threads with their tasks: a request's frames are
/// often given back on another thread than the one that took them, so one
/// thread's pool fills while another's runs dry. A full pool hands `batch`
/// frames to a process-wide depot, and an empty one takes up to `batch`
/// from it, each under the depot's lock once per batch; frames the depot
/// has no room for are freed as they come.
///
/// Kept in the thread's `ResolutionContext` and touched only by its thread,
/// between two suspension points (taking or giving a frame never awaits),
/// so it needs no lock of its own. Its frames are freed with the context,
/// when the thread exits; the depot's stay with the process.
struct AsyncFramePool: ~Copyable {
    /// Frames beyond these are freed. A server's requests hold their frames
    /// across the suspensions of their factories (a database query), and a
    /// frame is often given back on another thread than the one it was
    /// taken on, so a pool must hold what a burst of requests in flight
    /// gives back: with 16, a service's request under 32 concurrent ones
    /// allocated 2.4 frames (see "Spares for requests in flight" in
    /// Benchmarks/README.md). At most 128 frames of about a hundred bytes
    /// stay with an idle thread.
    static let capacity = 128
    /// Frames moved to or from the depot at once.
    static let batch = 32

    /// Frames that full pools handed over, for pools that ran dry. At most
    /// 256 frames, about 25 KB, stay with an idle process.
    final class Depot: @unchecked Sendable {
        // @unchecked: `frames` is guarded by `lock`, and for that reason
        // not checked for exclusivity at run time.
        static let capacity = 256
        let lock = Lock()
        @exclusivity(unchecked)
        var frames: [AsyncFrame] = []

        init() {
            frames.reserveCapacity(Self.capacity)
        }

        var count: Int { lock.withLock { frames.count } }
    }

    /// The process's depot.
    private static let processDepot = Depot()
    /// This pool's depot, the process's but in tests: held here, so that
    /// reaching it costs no check that the global was initialised.
    private let depot: Depot

    /// `frames[0..<count]` are initialised: the pool owns those references.
    private let frames = UnsafeMutablePointer<AsyncFrame>.allocate(capacity: capacity)
    private var count = 0

    init(depot: Depot = processDepot) {
        self.depot = depot
    }

    deinit {
        frames.deinitialize(count: count)
        frames.deallocate()
    }

    /// A frame from this thread's pool, if it has one.
    @inline(__always)
    static func take() -> AsyncFrame? {
        current.pointee.pop()
    }

    /// A frame this thread's pool keeps, never one from the depot: what
    /// tests that count a thread's frames take, since other threads
    /// change the depot at any time.
    static func takeKeptHere() -> AsyncFrame? {
        current.pointee.popKept()
    }

    /// Keeps `frame`, which nothing else holds, in this thread's pool, or
    /// lets it be freed if the pool is full.
    @inline(__always)
    static func give(_ frame: consuming AsyncFrame) {
        current.pointee.push(frame)
    }

    /// This thread's pool. Through a pointer rather than a closure over the
    /// context, so that a frame moves in and out without a retain.
    private static var current: UnsafeMutablePointer<AsyncFramePool> {
        ResolutionContext.currentUnretained._withUnsafeGuaranteedRef { $0.framePool }
    }

    /// A frame from this pool, refilled from the depot if it is empty.
    mutating func pop() -> AsyncFrame? {
        if count == 0 {
            refill()
        }
        return popKept()
    }

    /// A frame this pool keeps, never one from the depot.
    mutating func popKept() -> AsyncFrame? {
        guard count > 0 else { return nil }
        count -= 1
        return (frames + count).move()
    }

    /// Takes `frame`'s reference over (moved in, not retained), handing a
    /// batch to the depot if this pool is full.
    mutating func push(_ frame: consuming AsyncFrame) {
        if count == Self.capacity {
            spill()
            // The depot was full too: `frame` is freed.
            guard count < Self.capacity else { return }
        }
        (frames + count).initialize(to: frame)
        count += 1
    }

    /// Takes up to `batch` frames from the depot.
    @inline(never)
    private mutating func refill() {
        depot.lock.withLock {
            for _ in 0..<min(Self.batch, depot.frames.count) {
                (frames + count).initialize(to: depot.frames.removeLast())
                count += 1
            }
        }
    }

    /// Hands up to `batch` frames to the depot, as many as it has room for.
    @inline(never)
    private mutating func spill() {
        depot.lock.withLock {
            for _ in 0..<min(Self.batch, Depot.capacity - depot.frames.count) {
                count -= 1
                depot.frames.append((frames + count).move())
            }
        }
    }
}
