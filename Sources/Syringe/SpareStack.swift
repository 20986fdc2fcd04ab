/// Spare objects, each with its key, newest on top: a thread's overflow of
/// `SpareObjects`, and what the process's depot keeps. Owns the references
/// it holds and releases them when it goes.
///
/// A take searches only near the top, where a request's few types lie
/// (see `SpareObjects.overflowSearch`), and moves the top spare into the
/// hole it leaves, so a take or a push never moves more than one spare.
/// Not thread-safe: a thread's overflow is touched only by its thread, the
/// depot's stack only under the depot's lock.
struct SpareStack: ~Copyable {
    /// How many spares it holds at most.
    let capacity: Int
    /// `types[0..<count]` and `objects[0..<count]`, oldest first: each
    /// spare's key and the retained spare.
    private let types: UnsafeMutablePointer<UInt>
    private let objects: UnsafeMutablePointer<Unmanaged<AnyObject>>
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        types = .allocate(capacity: capacity)
        objects = .allocate(capacity: capacity)
    }

    deinit {
        for index in 0..<count {
            objects[index].release()
        }
        types.deallocate()
        objects.deallocate()
    }

    var isFull: Bool { count == capacity }

    /// A spare of `type` from the top `depth`, now the caller's; the top
    /// one takes its place.
    mutating func take(_ type: UInt, searching depth: Int) -> Unmanaged<AnyObject>? {
        let top = count - 1
        for index in stride(from: top, to: max(-1, top - depth), by: -1) where types[index] == type {
            let found = objects[index]
            types[index] = types[top]
            objects[index] = objects[top]
            count -= 1
            return found
        }
        return nil
    }

    /// Puts `object` on top, taking the reference it stands for over. The
    /// stack must not be full.
    mutating func push(_ object: Unmanaged<AnyObject>, type: UInt) {
        assert(count < capacity, "a full SpareStack was pushed onto")
        types[count] = type
        objects[count] = object
        count += 1
    }

    /// Moves the oldest `moved` spares onto `other`'s top, which has room
    /// for them, oldest first, and the rest down.
    mutating func moveOldest(_ moved: Int, to other: inout SpareStack) {
        for index in 0..<moved {
            other.push(objects[index], type: types[index])
        }
        dropOldest(moved)
    }

    /// Removes the oldest `removed` spares and returns them, the caller's
    /// now: to release them after a lock is let go.
    mutating func removeOldest(_ removed: Int) -> [Unmanaged<AnyObject>] {
        let oldest = Array(UnsafeBufferPointer(start: objects, count: removed))
        dropOldest(removed)
        return oldest
    }

    /// Forgets the oldest `dropped` spares (their references gone elsewhere)
    /// and moves the rest down.
    private mutating func dropOldest(_ dropped: Int) {
        let kept = count - dropped
        for index in 0..<kept {
            types[index] = types[index + dropped]
            objects[index] = objects[index + dropped]
        }
        count = kept
    }
}
