import Testing
import Syringe

extension HostileInputTests {
    @Suite("Names of 1 MiB")
    struct LongNames {
        @Test("names of 1 MiB: distinct when they differ in one byte, found from fresh copies, bounded in errors")
        func mebibyteNames() throws {
            let size = 1 << 20
            let base = String(repeating: "x", count: size - 1)
            let a = base + "a"
            let b = base + "b"
            let shorter = base
            let longer = a + "a"
            // Two-byte scalars, already NFC; and the same text decomposed (3 bytes a character).
            let accented = String(repeating: "\u{E9}", count: size / 2)
            let c = Container()
            c.register(type: String.self, name: a, dependency: "a")
            c.register(type: String.self, name: b, dependency: "b")
            c.register(type: String.self, name: shorter, dependency: "shorter")
            c.register(type: String.self, name: accented, dependency: "accented")
            #expect(try c.tryResolve(type: String.self, name: String(repeating: "x", count: size - 1) + "a") == "a")
            #expect(try c.tryResolve(type: String.self, name: b) == "b")
            #expect(try c.tryResolve(type: String.self, name: shorter) == "shorter")
            #expect(try c.tryResolve(type: String.self, name: String(repeating: "e\u{301}", count: size / 2)) == "accented")
            let missing = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: String.self, name: longer) })
            #expect(missing.description.utf8.count < HostileInputTests.errorTextLimit, "\(missing.description.utf8.count) bytes")
            #expect(missing.description.contains("Syringe could not resolve String named \"xxxx"))
            #expect(missing.name == longer, "the error keeps the full name as data")
            for suggestion in missing.suggestions {
                #expect(suggestion.utf8.count < 400, "a suggestion of \(suggestion.utf8.count) bytes")
            }
            // Multi-byte names of 1 MiB are bounded too.
            let cjk = String(repeating: "\u{6F22}", count: size / 3)
            let cjkMissing = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: cjk) })
            #expect(cjkMissing.description.utf8.count < HostileInputTests.errorTextLimit, "\(cjkMissing.description.utf8.count) bytes")
            c.remove(type: String.self, name: a)
            #expect(!c.isRegistered(type: String.self, name: a))
            #expect(c.isRegistered(type: String.self, name: b))
        }

        @Test("the error text for a 1 MiB name stays bounded whatever characters the name is made of")
        func mebibyteNameOfOneCharacter() throws {
            // A single extended grapheme cluster: "a" followed by 2^19 combining
            // acute accents (1 MiB of UTF-8). `count` is 1.
            let zalgo = "a" + String(repeating: "\u{301}", count: 1 << 19)
            #expect(zalgo.count == 1)
            let c = Container()
            c.register(type: Int.self, name: zalgo, dependency: 7)
            #expect(try c.tryResolve(type: Int.self, name: zalgo) == 7)
            let missing = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: String.self, name: zalgo) })
            #expect(missing.description.utf8.count < HostileInputTests.errorTextLimit,
                    "a 1 MiB one-character name made a \(missing.description.utf8.count)-byte error text")
        }
    }
}
