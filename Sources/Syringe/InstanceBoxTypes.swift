import Synchronization

/// `InstanceBox<T>` for a `T` known only at run time, remembered per type.
///
/// A `.shared` or `.scoped` instance is boxed in unspecialised code, where
/// naming `InstanceBox<T>` asks the runtime for its metadata: about 330
/// instructions a time, paid by every request whose scope creates an
/// instance (a per-request value, a `.scoped` one). This table answers in
/// a few.
///
/// Lossy and lock-free, like `DisposableConformance`'s: each slot is one
/// double-word atomic holding `T`'s metadata address and the box type's.
/// Two types that share a slot overwrite each other, and a reader that
/// finds the other type's entry asks the runtime again; the pair is written
/// and read whole, so a reader never pairs one type with another's box.
/// Release and acquire: a reader that finds a box type also sees the
/// metadata it points to complete, as the runtime's own lookup would.
enum InstanceBoxTypes {
    /// `nonisolated(unsafe)`: the pointer is written once, by the lazy
    /// initialiser, and every access through it is atomic.
    nonisolated(unsafe) private static let table = TypeSlots.allocate(empty: WordPair(first: 0, second: 0))

    /// `InstanceBox<T>.self`.
    static func boxType<T>(for _: T.Type) -> InstanceBox<T>.Type {
        let type = UInt(bitPattern: ObjectIdentifier(T.self))
        let slot = table + TypeSlots.index(of: type)
        let entry = slot.pointee.load(ordering: .acquiring)
        if entry.first == type {
            return unsafeBitCast(entry.second, to: InstanceBox<T>.Type.self)
        }
        let boxType = InstanceBox<T>.self
        slot.pointee.store(WordPair(first: type, second: UInt(bitPattern: ObjectIdentifier(boxType))), ordering: .releasing)
        return boxType
    }
}
