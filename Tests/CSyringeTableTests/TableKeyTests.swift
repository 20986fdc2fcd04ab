import CSyringeTable
import Testing

/// Which keys the table treats as equal. Most tests run under every mask in
/// `collisionMasks`: with the real hash different keys rarely share a hash,
/// so only forced collisions prove the full key comparison is what separates
/// them.
@Suite("Table keys")
struct TableKeyTests {
    @Test("Inserted key is found with its value", arguments: collisionMasks)
    func insertThenLookup(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let key = TableKey(type: 1, signature: 2, name: "primary")
        #expect(table.insert(key, fakeValue(7)) == nil)
        #expect(table.lookup(key) == fakeValue(7))
        #expect(table.count == 1)
        #expect(table.invariantsHold)
    }

    @Test("Absent key is not found, in an empty and in a populated table", arguments: collisionMasks)
    func absentKey(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let absent = TableKey(type: 99, signature: 99, name: "absent")
        #expect(table.lookup(absent) == nil)
        for n in 1...20 {
            table.insert(TableKey(type: n, signature: n), fakeValue(n))
        }
        #expect(table.lookup(absent) == nil)
        #expect(table.lookup(TableKey(type: 3, signature: 3, name: "")) == nil)
    }

    /// Pairs of keys that differ in exactly one component.
    static let singleComponentDifferences: [(String, TableKey, TableKey)] = [
        ("type", TableKey(type: 1, signature: 5, name: "n"), TableKey(type: 2, signature: 5, name: "n")),
        ("signature", TableKey(type: 1, signature: 5, name: "n"), TableKey(type: 1, signature: 6, name: "n")),
        ("name", TableKey(type: 1, signature: 5, name: "n"), TableKey(type: 1, signature: 5, name: "m")),
        ("name length", TableKey(type: 1, signature: 5, name: "n"), TableKey(type: 1, signature: 5, name: "nn")),
        ("no name vs empty name", TableKey(type: 1, signature: 5), TableKey(type: 1, signature: 5, name: "")),
        ("no name vs a name", TableKey(type: 1, signature: 5), TableKey(type: 1, signature: 5, name: "n")),
        ("empty name vs a name", TableKey(type: 1, signature: 5, name: ""), TableKey(type: 1, signature: 5, name: "n")),
        // Pairs that a comparison stopping at the first NUL would confuse.
        ("bytes after a NUL", TableKey(type: 1, signature: 5, bytes: [0x61, 0, 0x62]),
         TableKey(type: 1, signature: 5, bytes: [0x61, 0, 0x63])),
        ("trailing NUL", TableKey(type: 1, signature: 5, bytes: [0x61]), TableKey(type: 1, signature: 5, bytes: [0x61, 0])),
        ("NUL vs empty", TableKey(type: 1, signature: 5, bytes: [0]), TableKey(type: 1, signature: 5, name: "")),
    ]

    @Test("Keys differing in one component are distinct",
          arguments: singleComponentDifferences, collisionMasks)
    func componentsDistinguishKeys(pair: (String, TableKey, TableKey), mask: UInt64) {
        let (_, first, second) = pair
        let table = TestTable()
        table.setHashMask(mask)

        table.insert(first, fakeValue(1))
        #expect(table.lookup(second) == nil)
        #expect(table.insert(second, fakeValue(2)) == nil)
        #expect(table.count == 2)
        #expect(table.lookup(first) == fakeValue(1))
        #expect(table.lookup(second) == fakeValue(2))

        #expect(table.remove(first) == fakeValue(1))
        #expect(table.lookup(first) == nil)
        #expect(table.lookup(second) == fakeValue(2))
        #expect(table.invariantsHold)
    }

    // Unnamed lookups skip the name comparison, relying on the hash's bit 0
    // (named or not); with colliding hashes, only that bit keeps them apart.
    @Test("An unnamed lookup never finds a named key of the same type and signature", arguments: collisionMasks)
    func unnamedLookupSkipsNamedKeys(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        table.insert(TableKey(type: 1, signature: 5, name: ""), fakeValue(1))
        table.insert(TableKey(type: 1, signature: 5, name: "n"), fakeValue(2))
        #expect(table.lookup(TableKey(type: 1, signature: 5)) == nil)
        #expect(table.remove(TableKey(type: 1, signature: 5)) == nil)
        #expect(table.insert(TableKey(type: 1, signature: 5), fakeValue(3)) == nil, "a new key, not a replacement")
        #expect(table.lookup(TableKey(type: 1, signature: 5)) == fakeValue(3))
        #expect(table.lookup(TableKey(type: 1, signature: 5, name: "")) == fakeValue(1))
        #expect(table.count == 3)
        #expect(table.invariantsHold)
    }

    // A container's walk to its ancestors hashes an unnamed key once and
    // probes each table with that hash (`syr_table_lookup_unnamed`).
    @Test("An unnamed lookup given the key's identity hash finds what the lookup that hashes finds, in each of two tables", arguments: collisionMasks)
    func lookupWithIdentityHash(mask: UInt64) {
        let first = TestTable()
        let second = TestTable()
        first.setHashMask(mask)
        let present = (1...40).map { TableKey(type: $0, signature: 3) }
        for (index, key) in present.enumerated() {
            first.insert(key, fakeValue(index))
            if index % 2 == 0 {
                second.insert(key, fakeValue(100 + index))
            }
            // The same type and signature with a name: never an unnamed hit.
            second.insert(TableKey(type: key.type, signature: key.signature, name: "n"), fakeValue(200 + index))
        }
        first.remove(present[7])
        let absent = (41...60).map { TableKey(type: $0, signature: 3) } + [TableKey(type: 1, signature: 4)]
        for key in present + absent {
            let hash = syr_key_identity_hash(key.typePointer, key.signaturePointer)
            #expect(first.lookupUnnamed(key, identityHash: hash) == first.lookup(key), "\(key)")
            #expect(second.lookupUnnamed(key, identityHash: hash) == second.lookup(key), "\(key)")
        }
        #expect(first.lookupUnnamed(present[8], identityHash: syr_key_identity_hash(present[8].typePointer, present[8].signaturePointer)) == fakeValue(8))
        #expect(second.lookupUnnamed(present[8], identityHash: syr_key_identity_hash(present[8].typePointer, present[8].signaturePointer)) == fakeValue(108))
        #expect(second.lookupUnnamed(present[9], identityHash: syr_key_identity_hash(present[9].typePointer, present[9].signaturePointer)) == nil)
        #expect(first.lookupUnnamed(present[7], identityHash: syr_key_identity_hash(present[7].typePointer, present[7].signaturePointer)) == nil)
    }

    @Test("A key is found through a different buffer holding the same name bytes")
    func nameComparedByContent() {
        let table = TestTable()
        let stored = Array("shared".utf8)
        table.insert(TableKey(type: 1, bytes: stored), fakeValue(1))
        let elsewhere = [UInt8]("xxshared".utf8).dropFirst(2)
        #expect(table.lookup(TableKey(type: 1, bytes: Array(elsewhere))) == fakeValue(1))
    }

    @Test("The table owns a copy of the name, not the caller's buffer")
    func nameIsCopied() {
        let table = TestTable()
        var buffer: [UInt8] = Array("before".utf8)
        let key = TableKey(type: 1, bytes: buffer)
        buffer.withUnsafeMutableBytes { bytes in
            var replaced: UnsafeMutableRawPointer?
            #expect(syr_table_insert(table.raw, key.typePointer, key.signaturePointer,
                                     bytes.baseAddress, bytes.count, fakeValue(1), &replaced) == 0)
            // Scribbling over the caller's buffer must not change the stored key.
            for index in bytes.indices { bytes[index] = 0x5A }
        }
        #expect(table.lookup(key) == fakeValue(1))
        #expect(table.lookup(TableKey(type: 1, bytes: buffer)) == nil)
    }

    @Test("A 1 MiB name, and one differing only in its last byte", arguments: [UInt64.max, 0])
    func hugeName(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        let size = 1 << 20
        let name = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var lastByteDiffers = name
        lastByteDiffers[size - 1] ^= 0xFF

        table.insert(TableKey(type: 1, bytes: name), fakeValue(1))
        #expect(table.lookup(TableKey(type: 1, bytes: name)) == fakeValue(1))
        #expect(table.lookup(TableKey(type: 1, bytes: lastByteDiffers)) == nil)
        #expect(table.lookup(TableKey(type: 1, bytes: Array(name.dropLast()))) == nil)

        table.insert(TableKey(type: 1, bytes: lastByteDiffers), fakeValue(2))
        #expect(table.lookup(TableKey(type: 1, bytes: name)) == fakeValue(1))
        #expect(table.lookup(TableKey(type: 1, bytes: lastByteDiffers)) == fakeValue(2))
        #expect(table.count == 2)
        #expect(table.invariantsHold)
    }

    @Test("Names differing only in the last byte, at many lengths", arguments: collisionMasks)
    func lastByteDiffers(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        // Lengths around the inline name entry's limit (7 bytes) and XXH3's
        // internal size classes (16, 128, 240 bytes).
        let lengths = [1, 2, 3, 4, 6, 7, 8, 9, 15, 16, 17, 64, 128, 129, 239, 240, 241, 1024]
        var keys: [TableKey] = []
        for length in lengths {
            let base = [UInt8](repeating: 0x41, count: length)
            var variant = base
            variant[length - 1] = 0x42
            keys.append(TableKey(type: 1, bytes: base))
            keys.append(TableKey(type: 1, bytes: variant))
        }
        for (n, key) in keys.enumerated() {
            #expect(table.insert(key, fakeValue(n)) == nil, "\(key) collided with an earlier key")
        }
        for (n, key) in keys.enumerated() {
            #expect(table.lookup(key) == fakeValue(n))
        }
        #expect(table.count == keys.count)
        #expect(table.invariantsHold)
    }

    @Test("A name is the same key whether it is kept inline (up to 7 bytes) or in a block: a prefix, an extension and zero bytes never match it",
          arguments: collisionMasks)
    func inlineAndBlockNames(mask: UInt64) {
        let table = TestTable()
        table.setHashMask(mask)
        // Each length from the empty name to past the inline limit, and for
        // each the same bytes with a trailing zero byte: the inline form pads
        // with zeros, which must not make "ab" equal "ab\0".
        var keys: [TableKey] = []
        for length in 0...9 {
            let bytes = (0..<length).map { UInt8(0x61 + $0) }
            keys.append(TableKey(type: 1, bytes: bytes))
            keys.append(TableKey(type: 1, bytes: bytes + [0]))
        }
        for (n, key) in keys.enumerated() {
            #expect(table.insert(key, fakeValue(n)) == nil, "\(key) collided with an earlier key")
        }
        for (n, key) in keys.enumerated() {
            #expect(table.lookup(key) == fakeValue(n), "\(key)")
        }
        // Rebuilding moves inline entries and blocks alike.
        table.setHashMask(.max)
        for (n, key) in keys.enumerated() {
            #expect(table.lookup(key) == fakeValue(n), "\(key) after a rebuild")
        }
        for key in keys.prefix(10) {
            #expect(table.remove(key) != nil)
        }
        for (n, key) in keys.enumerated().dropFirst(10) {
            #expect(table.lookup(key) == fakeValue(n))
        }
        #expect(table.invariantsHold)
    }
}
