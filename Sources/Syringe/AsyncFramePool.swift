/// Each thread's spare `AsyncFrame`s: frames whose registration was built
/// while nothing else held them (`AsyncFrame.recycle`), handed out again by
/// the next async resolve on the thread instead of allocating. Frames move
/// between threads with their tasks; each pool keeps at most `capacity`,
/// and frees the rest as they come.
///
/// Kept in the thread's `ResolutionContext` and touched only by its thread,
/// between two suspension points (taking or giving a frame never awaits),
/// so it needs no lock. Its frames are freed with the context, when the
/// thread exits.
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

    /// `frames[0..<count]` are initialised: the pool owns those references.
    private let frames = UnsafeMutablePointer<AsyncFrame>.allocate(capacity: capacity)
    private var count = 0

    init() {}

    deinit {
        frames.deinitialize(count: count)
        frames.deallocate()
    }

    /// A frame from this thread's pool, if it has one.
    @inline(__always)
    static func take() -> AsyncFrame? {
        current.pointee.pop()
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

    private mutating func pop() -> AsyncFrame? {
        guard count > 0 else { return nil }
        count -= 1
        return (frames + count).move()
    }

    /// Takes `frame`'s reference over (moved in, not retained).
    private mutating func push(_ frame: consuming AsyncFrame) {
        guard count < Self.capacity else { return }
        (frames + count).initialize(to: frame)
        count += 1
    }
}
