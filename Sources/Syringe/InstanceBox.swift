/// What a box keeps besides its instance: the instance's type, its place
/// in a list of kept boxes, and its creation order.
@usableFromInline
struct InstanceBoxHeader {
    /// The instance's type: what the box's deinit and `empty` destroy it as.
    let type: Any.Type
    /// The next box in a `KeptBoxes` list; nil at its end and elsewhere.
    var next: InstanceBox?
    /// When the instance was created (`CreationOrder`; 0 when that does not
    /// matter), so that `close()` disposes newest first;
    /// `InstanceBox.emptyOrder` in a spare box.
    var order: UInt64

    @usableFromInline
    init(type: Any.Type, order: UInt64) {
        self.type = type
        self.next = nil
        self.order = order
    }
}

/// The box of a `.shared` (or scope-local, `.graph`, lazily injected)
/// instance.
///
/// `Definition<T>` publishes one box per instance generation through an
/// atomic pointer; the key that led to the definition guarantees `T`, so a
/// reader reaches the box with `Unmanaged` and no dynamic cast, and its
/// instance with one load at a fixed offset (`value(as:)`).
///
/// One class for every instance type, the instance in the buffer's tail (in
/// words: `UInt64`, so that it starts aligned for any instance of up to
/// 8-byte alignment), and its type in the header. A freed scope's boxes are
/// emptied and reused (`SpareObjects`), which a stored `T` would not allow:
/// it can only be dropped with the box. And a class per `T` cost each type,
/// the first time it was boxed, a runtime metadata instantiation (about
/// 12 000 instructions for a subclass of `ManagedBuffer`), and unspecialised
/// code a lookup of that metadata at every box it made.
///
/// Immutable while anything but its one owner can reach it: the instance is
/// initialised by `make` or `refill` and destroyed by `empty` or the box's
/// deinit, whichever comes first.
@usableFromInline
final class InstanceBox: ManagedBuffer<InstanceBoxHeader, UInt64> {
    /// The order of a box whose instance `empty` dropped.
    static var emptyOrder: UInt64 { .max }

    /// A new box holding `value`.
    @inlinable
    static func make<T>(_ value: consuming T, order: UInt64 = 0) -> InstanceBox {
        let words = (MemoryLayout<T>.size + Swift.max(MemoryLayout<T>.alignment, 8) - 1) / 8
        let buffer = create(minimumCapacity: words) { _ in InstanceBoxHeader(type: T.self, order: order) }
        // `create` makes an instance of the class it is called on.
        let box = unsafeDowncast(buffer, to: InstanceBox.self)
        box.instance(as: T.self).initialize(to: consume value)
        return box
    }

    /// Where the instance is, as a `T` (the instance's type): the tail,
    /// rounded up for an instance aligned to more than its words are.
    @inlinable
    @inline(__always)
    func instance<T>(as _: T.Type) -> UnsafeMutablePointer<T> {
        let tail = withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
        guard MemoryLayout<T>.alignment > MemoryLayout<UInt64>.alignment else {
            return tail.assumingMemoryBound(to: T.self)
        }
        return tail.alignedUp(toMultipleOf: MemoryLayout<T>.alignment).assumingMemoryBound(to: T.self)
    }

    /// The instance, a `T` (the instance's type). Only in a box that holds
    /// one: see the class comment.
    @inlinable
    @inline(__always)
    func value<T>(as _: T.Type) -> T {
        instance(as: T.self).pointee
    }

    /// The creation order of the instance (see `InstanceBoxHeader.order`).
    /// Through the header's pointer, as the other header fields: `header`
    /// itself is a class property, each access checked for exclusivity at
    /// run time.
    var order: UInt64 {
        withUnsafeMutablePointerToHeader { $0.pointee.order }
    }

    /// The instance's type.
    var type: Any.Type {
        withUnsafeMutablePointerToHeader { $0.pointee.type }
    }

    var next: InstanceBox? {
        get { withUnsafeMutablePointerToHeader { $0.pointee.next } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.next = newValue } }
    }

    /// Takes the link out, leaving nil: no retain.
    func takeNext() -> InstanceBox? {
        withUnsafeMutablePointerToHeader { $0.pointee.next.take() }
    }

    /// Fills a spare box of `value`'s type (see `SpareObjects`), which only
    /// the caller holds.
    func refill<T>(_ value: consuming T, order: UInt64) {
        instance(as: T.self).initialize(to: consume value)
        withUnsafeMutablePointerToHeader { $0.pointee.order = order }
    }

    /// Drops the instance, for a box kept as a spare. Only on a box that
    /// nothing else references: the instance's deinit may run.
    func empty() {
        destroyInstance()
        withUnsafeMutablePointerToHeader { $0.pointee.order = Self.emptyOrder }
    }

    deinit {
        if order != Self.emptyOrder {
            destroyInstance()
        }
    }

    /// Destroys the instance as the type it is: moved out and dropped,
    /// rather than `deinitialize(count: 1)`, which in unspecialised code is
    /// the runtime's array destroy, a loop with its own checks, for one
    /// instance.
    private func destroyInstance() {
        func destroy<T>(_: T.Type) {
            _ = instance(as: T.self).move()
        }
        _openExistential(type, do: destroy)
    }
}

/// The boxes a closed container took from its registrations without
/// anything to dispose, kept until the container is freed: a resolve that
/// began before the close may still be reading them (see
/// `Container.close()`).
///
/// A list linked through the boxes' headers, so that keeping them
/// allocates nothing: an array of them cost each request's scope an
/// allocation. Guarded by its container's writer lock, like the rest of
/// its bookkeeping.
@usableFromInline
struct KeptBoxes: ~Copyable {
    private var head: InstanceBox?

    init() {}

    /// Takes the caller's reference to `box` over.
    mutating func keep(_ box: consuming InstanceBox) {
        box.next = head.take()
        head = consume box
    }

    /// Takes every box out of the list, in turn, for `body`, which may
    /// take it over (see `SpareObjects.keep(box:)`); the list is then
    /// empty. For a freed container.
    mutating func drain(_ body: (inout InstanceBox?) -> Void) {
        var box = head.take()
        while box != nil {
            let next = box.unsafelyUnwrapped.takeNext()
            body(&box)
            box = next
        }
    }

    deinit {
        // Unlinked one by one: dropping the head alone would free the list
        // recursively, a stack frame per box. Each link after the head is
        // taken, not copied: a copy was a retain and a release more per
        // box. (The head is copied: `self` is immutable here.)
        var next = head
        while let box = next {
            next = box.takeNext()
        }
    }
}

/// The state of a `.weak` registration: a weak reference to the instance and
/// an unretained copy of the `T` value that referred to it.
///
/// `T` is usually an existential (`any Service`) or a class, and getting a `T`
/// back from an `AnyObject` would take a dynamic cast. Instead the box keeps
/// the bytes of the original `T` value without retaining them. While the weak
/// reference still yields the object, the object is alive, so copying those
/// bytes out as a `T` (which retains the object) is valid. Once the weak
/// reference is nil the bytes are never read again. That reasoning needs the
/// value to *be* a reference to that object, so `store` keeps only values
/// whose first word is the object's address (a class instance, or an
/// existential or `Optional` holding one). Anything else (a struct, or a value
/// that bridges to some other object such as a cached `NSNumber`) is not kept,
/// and such registrations behave like `.new`.
///
/// A `.weak` resolve uses the box only while it holds the definition's claim
/// (see `InstanceCreation`): a weak reference cannot be replaced while
/// another thread reads it, and the box is reused for every
/// generation rather than retired, so a long-running service that recreates
/// a weak instance forever does not accumulate memory. `@WeakInjected` stores
/// once, before any read, and needs no lock.
@usableFromInline
final class WeakInstanceBox<T>: @unchecked Sendable {
    private weak var object: AnyObject?
    private let bytes: UnsafeMutableRawPointer

    @usableFromInline
    init() {
        bytes = .allocate(byteCount: Swift.max(MemoryLayout<T>.size, 1), alignment: MemoryLayout<T>.alignment)
    }

    deinit {
        // The bytes were never retained: free the memory without destroying a `T`.
        bytes.deallocate()
    }

    /// The instance if it is still alive. Never concurrently with `store`.
    @usableFromInline
    func load() -> T? {
        // Keeps the object alive while its `T` is copied out.
        guard let alive = object else {
            return nil
        }
        return withExtendedLifetime(alive) { bytes.load(as: T.self) }
    }

    /// The object the box refers to, if it still lives. Never concurrently
    /// with `store` or `forget`.
    @usableFromInline
    var storedObject: ObjectIdentifier? {
        object.map(ObjectIdentifier.init)
    }

    /// Drops the reference if it is still to `created`, so that the next
    /// resolve creates a new instance. Never concurrently with `load` or `store`.
    @usableFromInline
    func forget(ifHolding created: ObjectIdentifier) {
        if let current = object, ObjectIdentifier(current) == created {
            object = nil
        }
    }

    /// Remembers `value` weakly if it is a reference to a class instance.
    /// Never concurrently with `load` or another `store`.
    @usableFromInline
    func store(_ value: T) {
        let candidate = value as AnyObject
        let isReference = MemoryLayout<T>.size >= MemoryLayout<UnsafeRawPointer>.size && withUnsafeBytes(of: value) {
            $0.loadUnaligned(as: UnsafeRawPointer.self) == UnsafeRawPointer(Unmanaged.passUnretained(candidate).toOpaque())
        }
        guard isReference else {
            object = nil
            return
        }
        withUnsafeBytes(of: value) { bytes.copyMemory(from: $0.baseAddress!, byteCount: MemoryLayout<T>.size) }
        object = candidate
    }
}
