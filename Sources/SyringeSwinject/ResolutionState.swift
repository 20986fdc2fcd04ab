import CSyringeTable
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The resolve in progress on one thread: how deep it is, which object graph
/// it builds, and that graph's instances.
///
/// Swinject keeps this per container, which is why resolving from two
/// threads at once corrupts it (Swinject issues #361, #377, #389, #448) and
/// why it needs `synchronize()`. Here each thread has its own, found through
/// Syringe's per-thread slot (`include/syringe_thread.h`), so concurrent
/// resolves never share it and need no lock.
///
/// A graph's `.graph` (and `.weak`) instances live in `slots`, indexed by the
/// entry's dense index and stamped with the graph's number: finding one is
/// an index and a compare, not a search. The slots a graph filled are
/// emptied when it ends, so nothing outlives it here; if its identifier was
/// handed out (and so may be restored) its instances are remembered weakly
/// by their entries first.
@usableFromInline
final class ResolutionState {
    // Exclusivity is not checked at run time: a state is confined to its
    // thread (reached through the thread's slot, never handed to another),
    // and no access below stays open across a call that could re-enter it
    // (factories, `initCompleted` and custom storages run between accesses,
    // never inside one). The dynamic checks cost a third of a `.transient`
    // resolve, as they did Syringe's ResolutionContext.

    /// Nesting of resolves (and of `withObjectGraph`) on this thread.
    @usableFromInline
    @exclusivity(unchecked)
    var depth = 0
    /// The number of the graph being built; meaningful while `depth > 0`.
    @usableFromInline
    @exclusivity(unchecked)
    var graph: UInt = 0
    /// Whether the graph's identifier was handed out (`currentObjectGraph`,
    /// `Lazy`, a custom storage): its instances must then stay findable.
    @usableFromInline
    @exclusivity(unchecked)
    var isExposed = false
    /// Whether the graph was entered by identifier, so that instances of its
    /// earlier resolves may be remembered by their entries.
    @usableFromInline
    @exclusivity(unchecked)
    var isRestored = false

    /// Indexed by entry index; a slot belongs to the current graph when its
    /// stamp is `graph`.
    @usableFromInline
    @exclusivity(unchecked)
    var slots: UnsafeMutablePointer<Slot>
    @usableFromInline
    @exclusivity(unchecked)
    var capacity: Int

    /// The slots and custom storages the graphs in progress filled, in order.
    @usableFromInline
    @exclusivity(unchecked)
    var touched: [Touched] = []
    /// Slots of an enclosing graph overwritten by a graph entered inside it.
    @usableFromInline
    @exclusivity(unchecked)
    var shadowed: [(index: Int, slot: Slot)] = []
    /// What custom storages may have let go of at the end of the graph
    /// being left, kept until `leave` has put the enclosing graph back (see
    /// `releaseDropped`). Empty between graphs; it keeps its capacity, so
    /// that ending such graphs allocates nothing for it.
    @exclusivity(unchecked)
    private var dropped: [Any] = []
    /// Graph numbers reserved for this thread: `nextNumber..<lastNumber`.
    @usableFromInline
    @exclusivity(unchecked)
    var nextNumber: UInt = 0
    @usableFromInline
    @exclusivity(unchecked)
    var lastNumber: UInt = 0

    @usableFromInline
    struct Slot {
        @usableFromInline
        var graph: UInt
        @usableFromInline
        var box: AnyObject?
    }

    @usableFromInline
    struct Touched {
        let index: Int
        /// Unretained: the entry lives at least until the read-side section
        /// the graph runs in ends, and the graph ends first.
        let entry: Unmanaged<AnyObject>
        let isCustomStorage: Bool
    }

    /// What `enter` saved, for `leave`.
    @usableFromInline
    struct Frame {
        let graph: UInt
        let isExposed: Bool
        let isRestored: Bool
        let touched: Int
        let shadowed: Int
        /// The graph in progress on this thread, entered again (a `Lazy`'s
        /// `instance` or `withObjectGraph` with its identifier inside it):
        /// what it fills is the enclosing frame's to finish.
        var reenters = false
    }

    private init() {
        capacity = 64
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(graph: 0, box: nil), count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// This thread's state, unretained: the thread's slot holds it until the
    /// thread exits.
    static var current: ResolutionState {
        unmanagedCurrent.takeUnretainedValue()
    }

    /// This thread's state, for `_withUnsafeGuaranteedRef`: a resolve uses
    /// it without retaining and releasing it.
    @inlinable
    @inline(__always)
    static var unmanagedCurrent: Unmanaged<ResolutionState> {
        if let raw = syr_thread_get(SYR_THREAD_SLOT_SWINJECT) {
            return Unmanaged<ResolutionState>.fromOpaque(raw)
        }
        return Unmanaged.passUnretained(makeCurrent())
    }

    @usableFromInline
    @inline(never)
    static func makeCurrent() -> ResolutionState {
        // The slot can be empty while the key still holds a state: a later
        // thread-exit destructor that resolves after the slots were torn down.
        if let raw = pthread_getspecific(stateKey) {
            syr_thread_set(SYR_THREAD_SLOT_SWINJECT, raw)
            return Unmanaged<ResolutionState>.fromOpaque(raw).takeUnretainedValue()
        }
        let state = Unmanaged.passRetained(ResolutionState())
        pthread_setspecific(stateKey, state.toOpaque())
        syr_thread_set(SYR_THREAD_SLOT_SWINJECT, state.toOpaque())
        return state.takeUnretainedValue()
    }

    // MARK: Graphs

    /// Starts a graph: a new one, or the one `identifier` names.
    @usableFromInline
    func enter(_ identifier: GraphIdentifier?) -> Frame {
        var frame = Frame(graph: graph, isExposed: isExposed, isRestored: isRestored, touched: touched.count, shadowed: shadowed.count)
        if let identifier, depth > 0, identifier.id == graph {
            // As Swinject: the instances the graph has are shared with this
            // part of it, and what this part makes stays for the rest.
            frame.reenters = true
            isExposed = true
            isRestored = true
        } else if let identifier {
            graph = identifier.id
            isExposed = true
            isRestored = true
        } else {
            graph = takeNumber()
            isExposed = false
            isRestored = false
        }
        depth += 1
        return frame
    }

    /// `enter` for an outermost resolve, when nothing is in progress on
    /// this thread (`depth == 0`, so no slot or storage is touched and no
    /// graph needs saving): inlined, as every resolve from outside a factory
    /// starts here.
    @inlinable
    @inline(__always)
    func enterOutermost(_ identifier: GraphIdentifier?) {
        if identifier == nil, nextNumber != lastNumber {
            graph = nextNumber
            nextNumber &+= 1
            isExposed = false
            isRestored = false
            depth = 1
        } else {
            _ = enter(identifier)
        }
    }

    /// `leave` for a graph `enterOutermost` started.
    @inlinable
    @inline(__always)
    func leaveOutermost() {
        if touched.isEmpty, shadowed.isEmpty {
            depth = 0
        } else {
            leaveOutermostSlowly()
        }
    }

    /// `leaveOutermost` for a graph that filled slots or storages.
    @usableFromInline
    func leaveOutermostSlowly() {
        leave(Frame(graph: graph, isExposed: isExposed, isRestored: isRestored, touched: 0, shadowed: 0))
    }

    /// Ends the graph `enter` started: custom storages are told, the
    /// instances are remembered if the graph may be restored, the slots are
    /// emptied (and an enclosing graph's put back), the enclosing graph, if
    /// any, continues, and what the storages let go of is released.
    @usableFromInline
    func leave(_ frame: Frame) {
        if frame.reenters {
            depth -= 1
            isRestored = frame.isRestored
            return
        }
        // Still counted while the graph ends: emptying a slot may run a
        // `deinit` that resolves, which then joins this graph (whose
        // `finishTouched` ends what it adds) instead of starting an
        // outermost one that would take the state over and leave the rest
        // of this graph in its slots.
        if touched.count > frame.touched {
            finishTouched(from: frame.touched)
        }
        if shadowed.count > frame.shadowed {
            for (index, slot) in shadowed[frame.shadowed...].reversed() {
                slots[index] = slot
            }
            shadowed.removeSubrange(frame.shadowed...)
        }
        depth -= 1
        graph = frame.graph
        isExposed = frame.isExposed
        isRestored = frame.isRestored
        if !dropped.isEmpty {
            releaseDropped()
        }
    }

    /// Releases what custom storages let go of at a graph's end, now that
    /// the state is the enclosing graph's (or no graph's): a `deinit` that
    /// resolves starts or joins a graph as any resolve does, and finds the
    /// storage done with the graph that ended (in the middle of
    /// `finishTouched`, a resolve of the same registration would store into
    /// the ending graph again). One at a time, each out of the list before
    /// it goes: such a resolve may end a graph of its own, which adds to the
    /// list and empties it.
    private func releaseDropped() {
        while dropped.popLast() != nil {}
    }

    private func finishTouched(from start: Int) {
        // By index, over the list as it grows: a resolve from a `deinit`
        // this runs joins the graph and may touch more.
        var position = start
        while position < touched.count {
            let item = touched[position]
            position += 1
            if item.isCustomStorage {
                if let instance = (item.entry.takeUnretainedValue() as! ServiceEntryProtocol).completeGraph() {
                    dropped.append(instance)
                }
                continue
            }
            guard slots[item.index].graph == graph, let box = slots[item.index].box else {
                continue
            }
            if isExposed {
                (item.entry.takeUnretainedValue() as! ServiceEntryProtocol).remember(box, inGraph: graph)
            }
            slots[item.index] = Slot(graph: 0, box: nil)
        }
        touched.removeSubrange(start...)
    }

    /// The current graph's identifier, which from now on may be restored.
    func graphIdentifier() -> GraphIdentifier {
        isExposed = true
        return GraphIdentifier(number: graph)
    }

    private func takeNumber() -> UInt {
        if nextNumber == lastNumber {
            let block: UInt = 1024
            nextNumber = GraphNumbers.take(block)
            lastNumber = nextNumber &+ block
        }
        defer { nextNumber &+= 1 }
        return nextNumber
    }

    // MARK: Instances

    /// The current graph's instance of the entry at `index`.
    @inlinable
    @inline(__always)
    func graphInstance<Service>(_ index: Int, as type: Service.Type) -> Service? {
        guard let box = slotObject(at: index) else {
            return nil
        }
        // The entry at `index` is a ServiceEntry<Service>, and it stores
        // only what `graphObject` made of a `Service` in its slot.
        return Self.instance(of: box, as: Service.self)
    }

    /// What the current graph keeps in the slot of `index`, if anything.
    @inlinable
    @inline(__always)
    func slotObject(at index: Int) -> AnyObject? {
        guard index < capacity else {
            return nil
        }
        let slot = slots + index
        guard slot.pointee.graph == graph else {
            return nil
        }
        return slot.pointee.box
    }

    /// What a slot keeps for `instance`: a class instance itself (a graph
    /// of classes then allocates nothing more than its objects), anything
    /// else (a struct, a protocol existential, even a class-bound one) in an
    /// `InstanceBox`. `is AnyObject.Type` holds for class types only, whose
    /// values are one reference; it is constant where `Service` is known.
    @inlinable
    @inline(__always)
    static func graphObject<Service>(_ instance: Service) -> AnyObject {
        if Service.self is AnyObject.Type {
            return unsafeBitCast(instance, to: AnyObject.self)
        }
        return InstanceBox(instance)
    }

    /// The instance `graphObject` kept.
    @inlinable
    @inline(__always)
    static func instance<Service>(of object: AnyObject, as _: Service.Type) -> Service {
        if Service.self is AnyObject.Type {
            return unsafeBitCast(object, to: Service.self)
        }
        return unsafeDowncast(object, to: InstanceBox<Service>.self).value
    }

    /// Keeps `instance` for the rest of the current graph. Inlined, so that
    /// what the slot keeps is made where `Service` is known: a box made
    /// unspecialised would cost a metadata lookup.
    @inlinable
    func setGraphInstance<Service>(_ instance: Service, _ index: Int, entry: AnyObject) {
        setGraphBox(Self.graphObject(instance), index, entry: entry)
    }

    /// `setGraphInstance` past making what the slot keeps.
    @usableFromInline
    func setGraphBox(_ box: AnyObject, _ index: Int, entry: AnyObject) {
        if index >= capacity {
            grow(toHold: index)
        }
        let slot = slots + index
        if slot.pointee.box != nil, slot.pointee.graph != graph {
            // A graph entered inside another (a `Lazy` resolving in its own
            // graph) reuses a slot the enclosing graph still needs.
            shadowed.append((index, slot.pointee))
        }
        slot.pointee = Slot(graph: graph, box: box)
        touched.append(Touched(index: index, entry: .passUnretained(entry), isCustomStorage: false))
    }

    /// Notes that a custom storage stored an instance in this graph.
    func noteCustomStorage(of entry: AnyObject) {
        touched.append(Touched(index: -1, entry: .passUnretained(entry), isCustomStorage: true))
    }

    private func grow(toHold index: Int) {
        var newCapacity = capacity
        while newCapacity <= index {
            newCapacity *= 2
        }
        let grown = UnsafeMutablePointer<Slot>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: slots, count: capacity)
        (grown + capacity).initialize(repeating: Slot(graph: 0, box: nil), count: newCapacity - capacity)
        slots.deallocate()
        slots = grown
        capacity = newCapacity
    }
}

/// Releases a thread's state when the thread exits.
private let stateKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        // Empty the slot first: a later thread-exit destructor that resolves
        // must make a new state, not use this one after it is freed.
        syr_thread_set(SYR_THREAD_SLOT_SWINJECT, nil)
        #if canImport(Darwin)
        Unmanaged<ResolutionState>.fromOpaque(raw).release()
        #else
        if let raw {
            Unmanaged<ResolutionState>.fromOpaque(raw).release()
        }
        #endif
    }
    precondition(status == 0, "SyringeSwinject: pthread_key_create failed (\(status))")
    return key
}()
