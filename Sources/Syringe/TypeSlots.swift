import Synchronization

/// The slots of a lossy, lock-free table keyed by type: 256 atomics, never
/// freed, and the slot of a type's metadata address. `DisposableConformance`
/// keeps one; what a slot holds, and how a reader tells its own type's entry
/// from another's, is its.
enum TypeSlots {
    /// 2⁸: the slot is the top 8 bits of the mixed address.
    private static let count = 256

    /// A new table with every slot `empty`.
    static func allocate<Value: AtomicRepresentable>(empty: Value) -> UnsafeMutablePointer<Atomic<Value>> {
        let table = UnsafeMutablePointer<Atomic<Value>>.allocate(capacity: count)
        for slot in 0..<count {
            (table + slot).initialize(to: Atomic(empty))
        }
        return table
    }

    /// The slot of `type` (a metadata address) in a table of `allocate`'s.
    static func index(of type: UInt) -> Int {
        hash(type, bits: 8)
    }

    /// `type` (a metadata address) hashed to `bits` bits, for a table of
    /// 2^`bits` slots. Fibonacci hashing: metadata addresses often share
    /// their low bits (page-aligned sections), so the hash is the high bits
    /// of the product.
    @inline(__always)
    static func hash(_ type: UInt, bits: Int) -> Int {
        let mixed = type &* UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64)
        return Int(mixed >> (UInt.bitWidth - bits))
    }
}
