import CSyringeTable
import Testing

/// One `syr_key_hash` input and the result computed outside this code base.
struct KnownKeyHash: Sendable, CustomTestStringConvertible {
    var label: String
    var type: UInt
    var signature: UInt
    /// `nil` is SYR_NO_NAME.
    var name: [UInt8]?
    var mask: UInt64
    var expected: UInt64

    var testDescription: String { label }
}

/// Known answers for `syr_key_hash`, so a change to the hash (the XXH3
/// variant, the order of the identity words, the seeding, the masking or the
/// bit that keeps it above the slot states) cannot go unnoticed: the table's own tests
/// only see that equal keys hash equally.
///
/// The expected values come from Python's `xxhash` package (4.1.0, which
/// bundles its own xxHash), not from the C code, with the composition the
/// header documents; the identity words are little-endian, as on every
/// platform Swift supports:
///
/// ```python
/// import struct, xxhash
///
/// def syr_key_hash(type_, signature, name, mask=2**64 - 2):  # bit 0 clear, as in every storage
///     h = xxhash.xxh3_64_intdigest(struct.pack("<QQ", type_, signature))
///     if name is not None:
///         h = xxhash.xxh3_64_intdigest(name, seed=h)
///     return (h & mask) | (name is not None) | (1 << 63)
///
/// T, S = 0x7F3A_1C20_4000, 0x7F3A_1C20_8010
/// LONG = bytes((i * 7 + 1) & 0xFF for i in range(300))
/// print(hex(syr_key_hash(T, S, LONG)))  # and so on for each case below
/// ```
@Suite("Key hash known answers")
struct TableKeyHashTests {
    static let type: UInt = 0x7F3A_1C20_4000
    static let signature: UInt = 0x7F3A_1C20_8010
    /// Longer than 240 bytes: XXH3's long-input path.
    static let longName = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    static let nulName: [UInt8] = [0x61, 0, 0x62, 0]

    /// Every storage's mask: all but bit 0, the named bit.
    static let noMask: UInt64 = ~1

    static let cases: [KnownKeyHash] = [
        KnownKeyHash(label: "unnamed", type: type, signature: signature, name: nil,
                     mask: noMask, expected: 0xD5D4_4FE8_8440_3746),
        KnownKeyHash(label: "type and signature swapped", type: signature, signature: type, name: nil,
                     mask: noMask, expected: 0xCB23_4370_2D4C_E176),
        KnownKeyHash(label: "empty name", type: type, signature: signature, name: [],
                     mask: noMask, expected: 0x9CDC_77FB_E14D_FEDF),
        KnownKeyHash(label: "short ASCII name", type: type, signature: signature, name: Array("primary".utf8),
                     mask: noMask, expected: 0x9DB0_6163_D923_AF63),
        KnownKeyHash(label: "300-byte name", type: type, signature: signature, name: longName,
                     mask: noMask, expected: 0x97E7_4831_406B_A6C7),
        KnownKeyHash(label: "name with NUL bytes", type: type, signature: signature, name: nulName,
                     mask: noMask, expected: 0xFE88_4F16_8045_D5D1),
        // Masked: bit 0 still says named or not, and bit 63 keeps the result
        // above the slot states (0 and 1) even where the mask leaves nothing.
        KnownKeyHash(label: "unnamed, mask 0", type: type, signature: signature, name: nil,
                     mask: 0, expected: 0x8000_0000_0000_0000),
        KnownKeyHash(label: "named, mask 0", type: type, signature: signature, name: Array("primary".utf8),
                     mask: 0, expected: 0x8000_0000_0000_0001),
        KnownKeyHash(label: "empty name, mask 0x6", type: type, signature: signature, name: [],
                     mask: 0x6, expected: 0x8000_0000_0000_0007),
        KnownKeyHash(label: "name with NUL bytes, mask 0x6", type: type, signature: signature,
                     name: nulName, mask: 0x6, expected: 0x8000_0000_0000_0001),
        KnownKeyHash(label: "unnamed, mask 0x00FF_FFFF_FFFF_FFFE", type: type, signature: signature, name: nil,
                     mask: 0x00FF_FFFF_FFFF_FFFE, expected: 0x80D4_4FE8_8440_3746),
        KnownKeyHash(label: "300-byte name, mask 0xFFFF_0000", type: type, signature: signature, name: longName,
                     mask: 0xFFFF_0000, expected: 0x8000_0000_406B_0001),
    ]

    @Test("syr_key_hash matches an independent implementation", arguments: cases)
    func knownAnswer(_ known: KnownKeyHash) {
        let type = UnsafeRawPointer(bitPattern: known.type)
        let signature = UnsafeRawPointer(bitPattern: known.signature)
        let hash: UInt64
        if let name = known.name {
            hash = name.withUnsafeBytes { syr_key_hash(type, signature, $0.baseAddress, $0.count, known.mask) }
        } else {
            hash = syr_key_hash(type, signature, nil, SYR_NO_NAME, known.mask)
        }
        #expect(hash == known.expected)
        #expect(syr_slot_is_full(hash))
        if known.name == nil {
            // What `syr_table_lookup_unnamed` computes from the identity
            // hash (bit 63 is SYR_FULL_HASH_BIT).
            #expect((syr_key_identity_hash(type, signature) & known.mask) | 1 << 63 == known.expected)
        }
    }
}

@Suite("Slot states")
struct SlotStateTests {
    @Test("Only a hash above both slot states marks a full slot",
          arguments: [(SYR_SLOT_EMPTY, false), (SYR_SLOT_TOMBSTONE, false), (2, true), (3, true), (.max, true)]
              as [(UInt64, Bool)])
    func isFull(hash: UInt64, full: Bool) {
        #expect(syr_slot_is_full(hash) == full)
    }
}
