import CSyringeTable
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `.graph` instances of the object graph being built on one thread.
///
/// Every `.graph` registration gets a dense index when it is made
/// (`DenseIndices.graphs`), and the instances of the current graph sit in slots
/// indexed by it: finding one is an index and a compare, whatever the size of
/// the graph or of the container. A slot holds its instance itself when the
/// value fits (a class reference, an existential: up to `inlineCapacity`
/// bytes), so storing one allocates nothing; a larger value goes in an
/// `InstanceBox`.
///
/// A slot belongs to the current graph when its `generation` is the current
/// one. Ending a graph destroys the instances listed in `used` and moves to the
/// next generation, so it costs what the graph used, never a sweep of every
/// slot: one outermost resolve costs O(nodes + edges).
///
/// Slots live in fixed-size chunks that never move once allocated: a Swift
/// value need not be movable bit by bit (a weak reference is not), and a
/// chunk may be added while a factory in the middle of the graph holds no
/// pointer into the others anyway.
///
/// Confined to its thread, like the `ResolutionContext` that owns it, so its
/// exclusivity is not checked at run time. A class, not a struct: the
/// `deinit`s that ending a graph runs may resolve and store into it while
/// `removeAll` is looping, and a class's fields are reloaded after such a
/// call, where a struct's `mutating` method may assume they did not change.
@usableFromInline
final class GraphInstances {
    /// One slot: the generation it was filled in, then the value (or box).
    /// 64 bytes, so that a slot never straddles two cache lines.
    @inlinable
    static var slotSize: Int { 64 }
    @inlinable
    static var valueOffset: Int { 8 }
    /// Bytes of value a slot holds directly: seven words, enough for any
    /// class reference and any existential (at most five words).
    @inlinable
    static var inlineCapacity: Int { slotSize - valueOffset }
    @inlinable
    static var chunkSlots: Int { 64 }

    /// Whether a `T` is kept in the slot itself rather than boxed.
    @inlinable
    @inline(__always)
    static func fitsInline<T>(_: T.Type) -> Bool {
        MemoryLayout<T>.size <= inlineCapacity && MemoryLayout<T>.alignment <= valueOffset
    }

    @exclusivity(unchecked)
    @usableFromInline
    var chunks: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    @exclusivity(unchecked)
    @usableFromInline
    var chunkCount = 0
    /// The current graph's generation; slots of any other are empty. Starts
    /// at 1 so that zero-filled slots are empty.
    @exclusivity(unchecked)
    @usableFromInline
    var generation: UInt64 = 1
    /// The slots the current graph filled, and how to destroy their values
    /// when it ends.
    @exclusivity(unchecked)
    @usableFromInline
    var used: UnsafeMutablePointer<Used>?
    @exclusivity(unchecked)
    @usableFromInline
    var usedCount = 0
    @exclusivity(unchecked)
    @usableFromInline
    var usedCapacity = 0

    /// How ending the graph destroys a slot's value. Decided when the value is
    /// stored, by `store`, which is specialised for the value's type: the
    /// common cases then need no call through the definition.
    @usableFromInline
    enum Teardown {
        /// A trivial value (`Int`, a struct of them): nothing to destroy.
        case nothing
        /// Exactly one strong reference: a class instance in the slot, or the
        /// `InstanceBox` of a value too large for it. Released directly.
        case release
        /// Anything else (an existential, a struct holding references, an
        /// optional, or a `T` not known where it was stored): the
        /// definition's `destroyGraphInstance`, generic over `T`.
        case destroy(Unmanaged<AnyDefinition>)
    }

    /// A slot the current graph filled. The slot's address, not its
    /// definition's index: chunks never move, and ending the graph then
    /// touches neither the definition nor the chunk table.
    @usableFromInline
    struct Used {
        @usableFromInline
        let slot: UnsafeMutableRawPointer
        @usableFromInline
        let teardown: Teardown

        @inlinable
        init(slot: UnsafeMutableRawPointer, teardown: Teardown) {
            self.slot = slot
            self.teardown = teardown
        }
    }

    deinit {
        // A thread's context (and so this) is released at thread exit, when
        // no resolve runs on the thread and the graph is empty.
        for chunk in 0..<chunkCount {
            free(chunks.unsafelyUnwrapped[chunk])
        }
        free(chunks)
        free(used)
    }

    /// The slot of `index` if it holds an instance of the current graph.
    @inlinable
    @inline(__always)
    func value(at index: Int) -> UnsafeMutableRawPointer? {
        guard let slot = existingSlot(index), slot.load(as: UInt64.self) == generation else {
            return nil
        }
        return slot + Self.valueOffset
    }

    /// The slot of `index`, if its chunk exists (whatever its generation).
    @inlinable
    @inline(__always)
    func existingSlot(_ index: Int) -> UnsafeMutableRawPointer? {
        let chunk = index / Self.chunkSlots
        guard chunk < chunkCount, let base = chunks.unsafelyUnwrapped[chunk] else {
            return nil
        }
        return base + (index % Self.chunkSlots) * Self.slotSize
    }

    /// The `T` that `value` (a `value(at:)` of a `T`'s definition) holds.
    @inlinable
    @inline(__always)
    static func instance<T>(at value: UnsafeMutableRawPointer, as _: T.Type) -> T {
        if fitsInline(T.self) {
            return value.assumingMemoryBound(to: T.self).pointee
        }
        return Unmanaged<InstanceBox>.fromOpaque(value.load(as: UnsafeRawPointer.self))
            ._withUnsafeGuaranteedRef { $0.value(as: T.self) }
    }

    /// Stores `instance` as `definition`'s instance in the current graph.
    /// The slot must not hold one already.
    @inlinable
    func store<T>(_ instance: T, of definition: Definition<T>) {
        // The common cases in line (the chunk exists, `used` has room): as
        // calls they cost each node of a graph about 50 instructions.
        let index = definition.graphIndex
        let slot = existingSlot(index) ?? slotInNewChunk(index)
        let value = slot + Self.valueOffset
        let teardown: Teardown
        if Self.fitsInline(T.self) {
            value.initializeMemory(as: T.self, repeating: instance, count: 1)
            teardown = Self.isOneReference(T.self) ? .release
                : _isPOD(T.self) ? .nothing
                : .destroy(Unmanaged.passUnretained(definition))
        } else {
            value.storeBytes(of: Unmanaged.passRetained(InstanceBox.make(instance)).toOpaque(), as: UnsafeMutableRawPointer.self)
            teardown = .release
        }
        slot.storeBytes(of: generation, as: UInt64.self)
        if usedCount < usedCapacity {
            (used.unsafelyUnwrapped + usedCount).initialize(to: Used(slot: slot, teardown: teardown))
            usedCount &+= 1
        } else {
            appendUsed(Used(slot: slot, teardown: teardown))
        }
    }

    /// Whether a `T` is exactly one strong reference to an object, so that
    /// releasing that object destroys it. `_canBeClass` is 1 only for a class
    /// type (or a class existential without witness tables, such as
    /// `AnyObject`): a single reference, retained like any object. It is
    /// decided at compile time where `T` is known, and is 2 ("maybe") in
    /// unspecialised code, which then takes the generic path. The size check
    /// is a guard that costs nothing: it is a constant too.
    @inlinable
    @inline(__always)
    static func isOneReference<T>(_: T.Type) -> Bool {
        _canBeClass(T.self) == 1 && MemoryLayout<T>.size == MemoryLayout<UnsafeRawPointer>.size
    }

    /// Ends the current graph: destroys its instances. Their `deinit`s run
    /// user code that may resolve again; `isTearingDown` keeps such a resolve
    /// inside this graph, and an instance it stores is destroyed by this same
    /// loop, so no slot is overwritten while it still holds a value.
    func removeAll(isTearingDown: (Bool) -> Void) {
        guard usedCount > 0 else { return }
        isTearingDown(true)
        var index = 0
        while index < usedCount {
            let entry = used.unsafelyUnwrapped[index]
            index += 1
            // Empty the slot first: from here on it is not part of the graph.
            entry.slot.storeBytes(of: 0, as: UInt64.self)
            let value = entry.slot + Self.valueOffset
            switch entry.teardown {
            case .nothing:
                break
            case .release:
                // The slot holds a +1 reference to an object (see `store`):
                // the instance itself, or its box. Dropping it is what
                // destroying the value would do.
                Unmanaged<AnyObject>.fromOpaque(value.load(as: UnsafeRawPointer.self)).release()
            case .destroy(let definition):
                // Retained by its container, or retired with it and not yet
                // freed: this graph's resolve is still running.
                definition._withUnsafeGuaranteedRef { $0.destroyGraphInstance(at: value) }
            }
        }
        usedCount = 0
        generation &+= 1
        isTearingDown(false)
    }

    /// The slot of `index` in a chunk that does not exist yet: `store`, when
    /// `existingSlot` finds none. Allocates the chunk, growing the chunk
    /// table first if it is too short (its new entries are nil).
    @usableFromInline
    func slotInNewChunk(_ index: Int) -> UnsafeMutableRawPointer {
        let chunk = index / Self.chunkSlots
        if chunk >= chunkCount {
            growChunks(to: chunk + 1)
        }
        // Zero-filled: generation 0 is never current, so every slot is empty.
        guard let fresh = calloc(Self.chunkSlots, Self.slotSize) else {
            fatalError("Syringe: out of memory for .graph instances")
        }
        chunks.unsafelyUnwrapped[chunk] = fresh
        return fresh + (index % Self.chunkSlots) * Self.slotSize
    }

    @usableFromInline
    func growChunks(to count: Int) {
        let capacity = Swift.max(count, chunkCount * 2, 4)
        guard let grown = realloc(chunks, capacity * MemoryLayout<UnsafeMutableRawPointer?>.stride) else {
            fatalError("Syringe: out of memory for .graph instances")
        }
        let table = grown.bindMemory(to: UnsafeMutableRawPointer?.self, capacity: capacity)
        (table + chunkCount).initialize(repeating: nil, count: capacity - chunkCount)
        chunks = table
        chunkCount = capacity
    }

    /// Appends `entry` to `used`, growing it when full (`store` calls this
    /// only then).
    @usableFromInline
    func appendUsed(_ entry: Used) {
        if usedCount == usedCapacity {
            let capacity = Swift.max(usedCapacity * 2, 16)
            // `Used` is trivial (pointers and a tag): moving it bit by bit is fine.
            guard let grown = realloc(used, capacity * MemoryLayout<Used>.stride) else {
                fatalError("Syringe: out of memory for .graph instances")
            }
            used = grown.bindMemory(to: Used.self, capacity: capacity)
            usedCapacity = capacity
        }
        (used.unsafelyUnwrapped + usedCount).initialize(to: entry)
        usedCount += 1
    }
}

/// Dense indices for definitions, so that per-thread state about them sits
/// in arrays instead of hash tables: every definition has one for the cycle
/// check (`ResolutionContext`), and a `.graph` one a second for its slot in
/// `GraphInstances`. Taken when a definition is made, given back when it is
/// freed, and reused, so per-thread arrays grow with the definitions that
/// exist at once, not with every one ever made. (Threads' contexts take
/// theirs from `contexts`, to name themselves in 32-bit claims.)
///
/// A counter never outlives the resolve that set it, and a definition cannot
/// be freed while a resolve on any thread is using it (its container is
/// alive for the whole resolve). A `.graph` slot may outlive the resolve of
/// the container that filled it (a child container let go of inside a
/// factory, while the outermost resolve goes on), so a freed container's
/// `.graph` definitions are retired, not released (see
/// `Container.retireGraphDefinitions`), and freed only after every running
/// resolve, and with it every graph, has ended. Either way an index handed
/// to a new definition never finds state of the old one.
final class DenseIndices: @unchecked Sendable {
    static let definitions = DenseIndices()
    static let graphs = DenseIndices()
    /// `ResolutionContext.claimHolder`s.
    static let contexts = DenseIndices()

    private let lock = Lock()
    /// Guarded by `lock`, so exclusivity is not checked at run time: no two
    /// accesses can overlap, and every registration (a scope's copies too)
    /// takes and gives back an index.
    @exclusivity(unchecked)
    private var next = 0
    @exclusivity(unchecked)
    private var free: [Int] = []

    func take() -> Int {
        lock.withLock {
            if let index = free.popLast() {
                return index
            }
            defer { next += 1 }
            return next
        }
    }

    func giveBack(_ index: Int) {
        lock.withLock {
            free.append(index)
        }
    }

    /// Gives back every index in `indices` under one lock.
    func giveBack(_ indices: UnsafeBufferPointer<UInt32>) {
        lock.withLock {
            free.append(contentsOf: indices.lazy.map(Int.init))
        }
    }

    /// A definition's index: one this thread gave back, if its context
    /// keeps any (`ResolutionContext.takeSpareIndex`), else `definitions`'.
    /// A request's scope makes and frees a definition or more per request,
    /// on the thread that serves it: without the lock, that thread never
    /// waits for the others here.
    static func takeDefinitionIndex() -> Int {
        if let context = syr_thread_get(ResolutionTable.contextSlot),
           let index = Unmanaged<ResolutionContext>.fromOpaque(context).takeUnretainedValue().takeSpareIndex() {
            return index
        }
        return definitions.take()
    }

    /// Gives a freed definition's index back to this thread's context, or,
    /// when it has none or no room, to `definitions`. Never makes a
    /// context: this runs in a `deinit`, possibly at thread exit.
    static func giveBackDefinitionIndex(_ index: Int) {
        if let context = syr_thread_get(ResolutionTable.contextSlot),
           Unmanaged<ResolutionContext>.fromOpaque(context).takeUnretainedValue().keepSpareIndex(index) {
            return
        }
        definitions.giveBack(index)
    }
}
