import Testing
@testable import Syringe

/// The stack a thread's overflow of spares and the process's depot keep
/// them in (`SpareStack`): found near the top only, the top moved into the
/// hole a take leaves, the oldest handed on or let go first, and every
/// spare it still holds released with it. (A noncopyable stack is read
/// into locals before `#expect` sees it.)
@Suite("Spare stack")
struct SpareStackTests {
    /// Keys as the real ones are: metadata addresses, word-aligned.
    private static func key(_ index: Int) -> UInt { UInt(0x1000 * (index + 1)) }

    /// Pushes a new `Tracked` spare of each of keys `0..<count`, oldest first.
    private static func push(keys count: Int, onto stack: inout SpareStack, counter: Counter) {
        for index in 0..<count {
            stack.push(.passRetained(Tracked(counter)), type: key(index))
        }
    }

    /// The serial of a spare a take returned, which is released here; nil
    /// if the take found none.
    private static func serial(_ taken: Unmanaged<AnyObject>?) -> Int? {
        taken.map { unsafeDowncast($0.takeRetainedValue(), to: Tracked.self).serial }
    }

    @Test("a take finds its key only within the depth it searches from the top, and the top spare fills the hole")
    func takeNearTop() {
        let counter = Counter()
        var stack = SpareStack(capacity: 8)
        // Keys 0...5, oldest first, serials 1...6.
        Self.push(keys: 6, onto: &stack, counter: counter)
        let tooDeep = Self.serial(stack.take(Self.key(3), searching: 2))
        let absent = Self.serial(stack.take(Self.key(9), searching: 8))
        let found = Self.serial(stack.take(Self.key(3), searching: 3))
        let afterTake = stack.count
        #expect(tooDeep == nil, "a take searched deeper than asked")
        #expect(absent == nil)
        #expect(found == 4)
        #expect(afterTake == 5)
        // Key 5, on top before, now sits where key 3 was: one deep finds key 4 only.
        let notOnTop = Self.serial(stack.take(Self.key(5), searching: 1))
        let moved = Self.serial(stack.take(Self.key(5), searching: 2))
        let left = stack.count
        #expect(notOnTop == nil, "the top spare did not move into the hole")
        #expect(moved == 6)
        #expect(left == 4)
        #expect(counter.alive == 4, "a spare taken out is still held by the stack")
        _ = consume stack
        #expect(counter.alive == 0, "spares a stack held outlived it")
    }

    @Test("the oldest spares move onto another stack's top in their order, and the rest move down")
    func moveOldest() {
        let counter = Counter()
        var overflow = SpareStack(capacity: 6)
        var depot = SpareStack(capacity: 8)
        depot.push(.passRetained(Tracked(counter)), type: Self.key(7))
        // Keys 0...5, serials 2...7.
        Self.push(keys: 6, onto: &overflow, counter: counter)
        let wasFull = overflow.isFull
        overflow.moveOldest(4, to: &depot)
        let counts = (overflow.count, depot.count)
        #expect(wasFull)
        #expect(counts == (2, 5))
        // The depot: key 7, then keys 0...3, 3 on top.
        let depotTop = Self.serial(depot.take(Self.key(3), searching: 1))
        let depotMoved = Self.serial(depot.take(Self.key(0), searching: 3))
        let depotOwn = Self.serial(depot.take(Self.key(7), searching: 3))
        #expect(depotTop == 5)
        #expect(depotMoved == 2)
        #expect(depotOwn == 1)
        // The overflow kept keys 4 and 5, moved to the bottom, 5 on top.
        let overflowTop = Self.serial(overflow.take(Self.key(5), searching: 1))
        let overflowBottom = Self.serial(overflow.take(Self.key(4), searching: 1))
        let emptied = overflow.count
        #expect(overflowTop == 7)
        #expect(overflowBottom == 6)
        #expect(emptied == 0)
        #expect(counter.alive == 2)
        _ = consume depot
        _ = consume overflow
        #expect(counter.alive == 0)
    }

    @Test("the oldest spares removed are the caller's, and the rest move down")
    func removeOldest() {
        let counter = Counter()
        var stack = SpareStack(capacity: 4)
        Self.push(keys: 4, onto: &stack, counter: counter)
        let removed = stack.removeOldest(3)
        let left = stack.count
        let top = Self.serial(stack.take(Self.key(3), searching: 1))
        #expect(removed.map { unsafeDowncast($0.takeUnretainedValue(), to: Tracked.self).serial } == [1, 2, 3])
        #expect(left == 1)
        #expect(top == 4)
        #expect(counter.alive == 3, "the stack released spares it handed to the caller")
        for object in removed {
            object.release()
        }
        #expect(counter.alive == 0)
        _ = consume stack
    }
}
