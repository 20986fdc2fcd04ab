/// An immutable box for a `.shared` instance.
///
/// `Definition<T>` publishes one box per instance generation through an
/// atomic pointer; the key that led to the definition guarantees `T`, so a
/// reader reaches the box with `Unmanaged` and no dynamic cast.
///
/// `order` says when an instance with disposers was created (0 for one
/// without), so that `close()` disposes newest first. A word in every box
/// keeps the class final and its `value` a load at a fixed offset, where a
/// subclass for disposable instances would not.
@usableFromInline
final class InstanceBox<T>: KeptBoxes.Link, @unchecked Sendable {
    @usableFromInline
    let value: T
    let order: UInt64

    @usableFromInline
    init(_ value: T, order: UInt64 = 0) {
        self.value = value
        self.order = order
    }
}

/// The boxes a closed container took from its registrations without
/// anything to dispose, kept until the container is freed: a resolve that
/// began before the close may still be reading them (see
/// `Container.close()`).
///
/// A list linked through the boxes themselves, so that keeping them
/// allocates nothing: an array of them cost each request's scope an
/// allocation. The link word fits in the box's allocation without changing
/// its malloc size class for a class instance (the common case) or an
/// existential of a protocol that is not class-bound. Making
/// `InstanceBox<T>` a subclass costs each boxed type, once per process,
/// about 1 700 instructions more when the runtime first builds its metadata.
/// Guarded by its container's writer lock, like the rest of its
/// bookkeeping.
@usableFromInline
struct KeptBoxes: ~Copyable {
    /// A box's place in the list; nil link at its end.
    @usableFromInline
    class Link {
        fileprivate var next: Link?

        @usableFromInline
        init() {}
    }

    private var head: Link?

    init() {}

    mutating func keep(_ box: Link) {
        box.next = head
        head = box
    }

    deinit {
        // Unlinked one by one: dropping the head alone would free the list
        // recursively, a stack frame per box. Each link after the head is
        // taken, not copied: a copy was a retain and a release more per
        // box. (The head is copied: `self` is immutable here.)
        var next = head
        while let box = next {
            next = box.next.take()
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
