#if canImport(Foundation)
import Foundation
#endif
import Testing
import Syringe

extension HostileInputTests {
    @Suite("Names: empty, with NUL bytes, built from substrings and bridged strings")
    struct Names {
        @Test("an empty name and no name are different registrations")
        func emptyNameIsNotNoName() throws {
            let c = Container()
            c.register(type: Int.self, dependency: 1)
            c.register(type: Int.self, name: "", dependency: 2)
            #expect(try c.tryResolve(type: Int.self) == 1)
            #expect(try c.tryResolve(type: Int.self, name: "") == 2)
            c.remove(type: Int.self, name: "")
            #expect(!c.isRegistered(type: Int.self, name: ""))
            #expect(try c.tryResolve(type: Int.self) == 1)
            let missing = try #require(expectResolutionError(.notRegistered) { try c.tryResolve(type: Int.self, name: "") })
            #expect(missing.name == "")
            #expect(missing.description.contains("named \"\""))
            c.register(type: Int.self, name: "", dependency: 3)
            c.remove(type: Int.self)
            #expect(!c.isRegistered(type: Int.self))
            #expect(try c.tryResolve(type: Int.self, name: "") == 3)
        }

        @Test("embedded NUL bytes are part of the name")
        func embeddedNUL() throws {
            let names = ["a\u{0}b", "a\u{0}c", "a", "a\u{0}", "\u{0}", "\u{0}\u{0}", "", "\u{0}a",
                         "long-enough-to-be-a-heap-string\u{0}x", "long-enough-to-be-a-heap-string\u{0}y",
                         "long-enough-to-be-a-heap-string"]
            #expect(Set(names).count == names.count)
            let c = Container()
            for (index, name) in names.enumerated() {
                c.register(type: Int.self, name: name, dependency: index)
            }
            for (index, name) in names.enumerated() {
                #expect(try c.tryResolve(type: Int.self, name: name) == index, "\(name.debugDescription)")
            }
            #expect(!c.isRegistered(type: Int.self, name: "a\u{0}d"))
            #expect(!c.isRegistered(type: Int.self, name: "b"))
            c.remove(type: Int.self, name: "a\u{0}b")
            #expect(!c.isRegistered(type: Int.self, name: "a\u{0}b"))
            #expect(try c.tryResolve(type: Int.self, name: "a\u{0}c") == 1)
            #expect(try c.tryResolve(type: Int.self, name: "a") == 2)
        }

        @Test("names built from substrings, slices, decoded bytes and interpolation")
        func namesFromSubstrings() throws {
            let big = String(repeating: "0123456789", count: 100) + "-service-name-" + String(repeating: "abcdefghij", count: 100)
            let start = big.index(big.startIndex, offsetBy: 1_000)
            let end = big.index(start, offsetBy: 14)
            let slice = String(big[start..<end])  // "-service-name-"
            #expect(slice == "-service-name-")
            let dropped = String("x-service-name-".dropFirst())
            let decoded = String(decoding: Array("-service-name-".utf8), as: UTF8.self)
            let fromUTF16 = String(decoding: Array("-service-name-".utf16), as: UTF16.self)
            let interpolated = "-\("service")-\("name")-"
            let joined = ["", "service", "name", ""].joined(separator: "-")
            let forms = [slice, dropped, decoded, fromUTF16, interpolated, joined]
            // Large (heap) names made the same ways.
            let longTail = String(repeating: "abcdefghij", count: 100)
            let longSlice = String(big[big.index(big.endIndex, offsetBy: -1_000)...])
            let longDropped = String(("!" + longTail).dropFirst())
            let c = Container()
            c.register(type: String.self, name: "-service-name-", dependency: "short")
            c.register(type: String.self, name: longTail, dependency: "long")
            for form in forms {
                #expect(try c.tryResolve(type: String.self, name: form) == "short")
            }
            #expect(try c.tryResolve(type: String.self, name: longSlice) == "long")
            #expect(try c.tryResolve(type: String.self, name: longDropped) == "long")
            // Registering under a slice is the same key as the literal.
            c.register(type: String.self, name: slice, dependency: "replaced")
            #expect(try c.tryResolve(type: String.self, name: "-service-name-") == "replaced")
            // A slice that cuts a combining sequence out of a longer string.
            let accented = "xcafe\u{301}y"
            let middle = String(accented.dropFirst().dropLast())
            c.register(type: String.self, name: "caf\u{E9}", dependency: "cafe")
            #expect(try c.tryResolve(type: String.self, name: middle) == "cafe")
        }

        @Test("bridged and non-contiguous strings")
        func bridgedStrings() throws {
            // On Linux every String is native contiguous UTF-8: swift-corelibs-
            // foundation converts an NSString eagerly, so `NSString as String` is
            // contiguous (checked below) and KeyName's non-contiguous copy path
            // cannot be reached from here. On Apple platforms a bridged NSString
            // backed by UTF-16 is lazily bridged and non-contiguous; there this
            // test exercises that path.
            let c = Container()
            c.register(type: String.self, name: "bridged-name", dependency: "ascii")
            c.register(type: String.self, name: "caf\u{E9}-bridged", dependency: "unicode")
            #if canImport(Foundation)
            let utf16: [unichar] = Array("bridged-name".utf16)
            let fromCharacters = NSString(characters: utf16, length: utf16.count) as String
            let fromString = NSString(string: "bridged-name") as String
            let mutable = NSMutableString(string: "bridged-")
            mutable.append("name")
            let fromMutable = mutable as String
            let decomposed = NSString(string: "cafe\u{301}-bridged") as String
            #if os(Linux)
            #expect(fromCharacters.isContiguousUTF8)
            #expect(fromMutable.isContiguousUTF8)
            #endif
            for form in [fromCharacters, fromString, fromMutable] {
                #expect(try c.tryResolve(type: String.self, name: form) == "ascii")
            }
            #expect(try c.tryResolve(type: String.self, name: decomposed) == "unicode")
            // Registering under a bridged name.
            let key = NSString(characters: Array("registered-bridged".utf16), length: 18) as String
            c.register(type: String.self, name: key, dependency: "from bridged")
            #expect(try c.tryResolve(type: String.self, name: "registered-bridged") == "from bridged")
            #endif
            #expect(try c.tryResolve(type: String.self, name: "cafe\u{301}-bridged") == "unicode")
        }
    }
}
