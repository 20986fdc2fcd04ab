import CSyringeTable
import Testing

@Suite("XXH3 exports")
struct XXH3Tests {
    @Test("XXH3-64 of empty input matches the reference value")
    func emptyInput() {
        #expect(syr_xxh3_64(nil, 0) == 0x2D06_8005_38D3_94C2)
        #expect(syr_xxh3_64_seeded(nil, 0, 0) == 0x2D06_8005_38D3_94C2, "seed 0 is the unseeded hash")
    }

    @Test("A seed changes the hash of the same bytes", arguments: [0, 1, 3, 16, 17, 128, 129, 240, 241, 4_096])
    func seedMatters(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        bytes.withUnsafeBytes { buffer in
            let unseeded = syr_xxh3_64(buffer.baseAddress, buffer.count)
            #expect(syr_xxh3_64_seeded(buffer.baseAddress, buffer.count, 0) == unseeded)
            #expect(syr_xxh3_64_seeded(buffer.baseAddress, buffer.count, 0x9E37_79B9_7F4A_7C15) != unseeded)
            #expect(syr_xxh3_64_seeded(buffer.baseAddress, buffer.count, 1)
                    != syr_xxh3_64_seeded(buffer.baseAddress, buffer.count, 2))
        }
    }

    @Test("The hash depends on every byte")
    func everyByteMatters() {
        let bytes = [UInt8](repeating: 0, count: 300)
        let base = bytes.withUnsafeBytes { syr_xxh3_64($0.baseAddress, $0.count) }
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] = 1
            let hash = flipped.withUnsafeBytes { syr_xxh3_64($0.baseAddress, $0.count) }
            #expect(hash != base, "byte \(index) ignored")
        }
    }
}
