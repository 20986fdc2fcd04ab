import Synchronization

/// The disposer an instance brings by conforming to `AsyncDisposable` or
/// `Disposable`, with the answer "neither" remembered per type.
///
/// A scope's `close()` asks this of every instance it owns, and answering it
/// with casts (`as? any AsyncDisposable`, `as? any Disposable`) costs about
/// 1 500 instructions each for a type that conforms to neither, the common
/// case: the runtime's conformance lookup. Per request that was most of the
/// cost of closing a scope, so the answer is kept in a small process-wide
/// table, keyed by the type's metadata address. Optionals and `AnyHashable`
/// are the exception: a cast looks into their values, so the table
/// remembers only that those are to be asked of each instance.
///
/// The table is lock-free and lossy: each slot is one atomic word holding a
/// metadata address with the answer in its two low bits (metadata is
/// pointer-aligned, so they are free on every platform). Two types that share a slot
/// overwrite each other, and a reader that finds another type's entry asks
/// the runtime again; a word is written and read whole, so a reader sees a
/// type's own answer or none, never another type's. Relaxed ordering is
/// enough: the answer is a fact about the type, true whoever computed it,
/// and guards nothing else.
enum DisposableConformance {
    /// `nonisolated(unsafe)`: the pointer is written once, by the lazy
    /// initialiser, and every access through it is atomic.
    nonisolated(unsafe) private static let table = TypeSlots.allocate(empty: 0 as UInt)

    /// The instance's own disposer, bound to it; nil when it conforms to
    /// neither protocol.
    static func disposer<T>(for instance: T) -> PendingDisposal.Step? {
        guard mayConform(instance) else {
            return nil
        }
        return conformingDisposer(for: instance)
    }

    /// `disposer(for:)` for the `T` in `box`, whose type is read there
    /// (`mayConform(boxed:as:)`); copied out only when it may conform.
    static func disposer<T>(boxedIn box: InstanceBox, as _: T.Type) -> PendingDisposal.Step? {
        guard mayConform(boxed: box, as: T.self) else {
            return nil
        }
        return conformingDisposer(for: box.value(as: T.self))
    }

    /// The disposer of an instance that may conform: the casts decide.
    private static func conformingDisposer<T>(for instance: T) -> PendingDisposal.Step? {
        if let conforming = instance as? any AsyncDisposable {
            // `nonisolated(unsafe)`: handed to `dispose()` as an
            // `onDispose` closure is handed its instance (see `Disposer.binder`).
            nonisolated(unsafe) let conforming = conforming
            return .async { try await conforming.dispose() }
        }
        if let conforming = instance as? any Disposable {
            return .sync { try conforming.dispose() }
        }
        return nil
    }

    /// False when `instance`'s dynamic type (for an existential `T`, the
    /// type of the value inside) conforms to neither protocol, remembered
    /// per type; true when it conforms, or when only the value can tell.
    static func mayConform<T>(_ instance: T) -> Bool {
        mayConform(dynamicType: Self.dynamicType(of: instance))
    }

    /// `mayConform` for the `T` in `box`, read where it is (see
    /// `dynamicType(at:of:)`): no copy of the instance (for a class
    /// instance a retain and a release; for a large struct behind an
    /// existential, a boxed copy in an `Any`) and no call to the runtime's
    /// dynamic-type lookup, which `type(of:)` makes in generic code. That
    /// was 250 to 600 instructions of a request's `close()` per instance
    /// it owns.
    static func mayConform<T>(boxed box: InstanceBox, as _: T.Type) -> Bool {
        guard let dynamicType = dynamicType(at: UnsafeRawPointer(box.instance(as: T.self)), of: T.self) else {
            return mayConform(box.value(as: T.self))
        }
        return mayConform(dynamicType: dynamicType)
    }

    /// The type of the value at `value`, a `type`, read from memory as the
    /// Swift ABI lays it out (`docs/ABI/TypeMetadata.rst`), or nil for what
    /// only the runtime can tell (an `any Error`, a constrained
    /// existential, a metatype…).
    ///
    /// - A class instance is one strong reference, and its own class is
    ///   in the object: a subclass's, when `type` is its base.
    /// - A struct, an enum, an optional, a tuple or a function is of
    ///   exactly its static type.
    /// - An existential holds a value of some other type: a class-bound
    ///   one a reference first; any other one (but `any Error`) a buffer
    ///   of three words, then the value's type. The value's own type is
    ///   one of the above (a value is never stored as an existential
    ///   inside another). A class instance fits the buffer, so its
    ///   reference is the buffer's first word; a larger value may be out
    ///   of line, but for those the stored type is the answer, and the
    ///   value is not read.
    private static func dynamicType(at value: UnsafeRawPointer, of type: Any.Type) -> Any.Type? {
        switch kind(of: type) {
        case classKind, (lastEnumeratedKind + 1)...:
            // On Apple platforms a class's kind word is its isa, above
            // every enumerated kind.
            return objectClass(at: value)
        case structKind, enumKind, optionalKind, tupleKind, functionKind:
            return type
        case existentialKind:
            let flags = metadata(of: type).load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self)
            guard flags & specialProtocolMask == 0 else {
                return nil   // `any Error`: a box of its own
            }
            if flags & anyConstraintBit == 0 {
                // Class-bound: the reference comes first.
                return objectClass(at: value)
            }
            let stored = value.load(fromByteOffset: valueBufferWords * MemoryLayout<UInt>.size, as: Any.Type.self)
            switch kind(of: stored) {
            case classKind, (lastEnumeratedKind + 1)..., structKind, enumKind, optionalKind, tupleKind, functionKind:
                return dynamicType(at: value, of: stored)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The answer for a value whose type is `dynamicType`, remembered per type.
    private static func mayConform(dynamicType: Any.Type) -> Bool {
        let type = UInt(bitPattern: ObjectIdentifier(dynamicType))
        let slot = table + TypeSlots.index(of: type)
        let entry = slot.pointee.load(ordering: .relaxed)
        if entry & ~answerBits == type {
            return entry & answerBits != 0
        }
        // A cast looks into an optional's or an `AnyHashable`'s value, so
        // for them only the value can tell. Asked once per type too: the
        // `is` below is itself a conformance lookup.
        let answer: UInt
        if dynamicType is any LooksThrough.Type || dynamicType == AnyHashable.self {
            answer = valueDecides
        } else {
            answer = dynamicType is any AsyncDisposable.Type || dynamicType is any Disposable.Type ? conforms : 0
        }
        slot.pointee.store(type | answer, ordering: .relaxed)
        return answer != 0
    }

    /// The type of the value `instance` is: its class for a class
    /// instance, the type of the value inside for an existential.
    ///
    /// `type(of:)` in generic code finds a class instance's class, but for
    /// an existential `T` it answers the existential's type, shared by every
    /// type that conforms to it: those are opened through `Any`. Only those:
    /// putting a struct larger than three words in an `Any` allocates a box
    /// (a request's per-request values are such structs, disposed of at
    /// every scope's close). An existential's metadata says what it is in
    /// its first word, the kind, which the Swift ABI fixes
    /// (`docs/ABI/TypeMetadata.rst`): 0x303, or 0x307 for a constrained one
    /// (`any Collection<Int>`).
    private static func dynamicType<T>(of instance: T) -> Any.Type {
        let kind = kind(of: T.self)
        if kind == existentialKind || kind == extendedExistentialKind {
            return Swift.type(of: instance as Any)
        }
        return Swift.type(of: instance)
    }

    /// `type`'s metadata record: its identity pointer.
    private static func metadata(of type: Any.Type) -> UnsafeRawPointer {
        typeIdentity(type)
    }

    /// What kind of type `type` is: the first word of its metadata.
    private static func kind(of type: Any.Type) -> UInt {
        metadata(of: type).load(as: UInt.self)
    }

    /// The class of the object whose reference is at `value`. Borrowed:
    /// the caller's box holds the object.
    private static func objectClass(at value: UnsafeRawPointer) -> AnyClass {
        Unmanaged<AnyObject>.fromOpaque(value.load(as: UnsafeRawPointer.self))._withUnsafeGuaranteedRef { Swift.type(of: $0) }
    }

    // Metadata kinds, fixed by the Swift ABI (`docs/ABI/TypeMetadata.rst`).
    private static let classKind: UInt = 0
    private static let structKind: UInt = 0x200
    private static let enumKind: UInt = 0x201
    private static let optionalKind: UInt = 0x202
    private static let tupleKind: UInt = 0x301
    private static let functionKind: UInt = 0x302
    private static let lastEnumeratedKind: UInt = 0x7FF
    private static let existentialKind: UInt = 0x303
    // An existential's flags, after its kind: which special protocol it
    // is (`Error`: nonzero), and the class constraint, inverted (set:
    // not class-bound).
    private static let specialProtocolMask: UInt32 = 0x3F00_0000
    private static let anyConstraintBit: UInt32 = 0x8000_0000
    /// An opaque existential's inline buffer, in words, before its type.
    private static let valueBufferWords = 3
    private static let extendedExistentialKind: UInt = 0x307

    /// The answer's bits in a slot, below the metadata address (which is
    /// aligned to at least 4 bytes on every platform Swift runs on).
    private static let conforms: UInt = 0b01
    private static let valueDecides: UInt = 0b10
    private static let answerBits: UInt = 0b11
}

/// Types whose values a cast looks into (see `DisposableConformance`).
private protocol LooksThrough {}

extension Optional: LooksThrough {}
