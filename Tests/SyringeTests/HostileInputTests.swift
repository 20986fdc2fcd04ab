#if canImport(Foundation)
import Foundation
#endif
import Testing
import Syringe

// Hostile and unusual input: odd names, odd types, huge sizes, many misses.
// Nothing may crash; every failure must be a ResolutionError with a clear,
// bounded message; no registration may be lost or crossed.

/// Types used only as keys here.
enum HostileOuter {
    struct Inner: Sendable { let tag: String }
}

enum HostileOther {
    struct Inner: Sendable { let tag: String }
}

struct HostileBox<T>: Sendable { let tag: String }

/// Never registered anywhere.
protocol HostileNeverRegistered {}

final class HostileConsumer: Sendable {}

@Suite("Hostile and unusual input")
struct HostileInputTests {
    /// The error a throwing body fails with, or nil when it succeeds. Any
    /// error that is not a ResolutionError is recorded as an issue.
    private func failure<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> ResolutionError? {
        do {
            _ = try body()
            return nil
        } catch let error as ResolutionError {
            return error
        } catch {
            Issue.record("not a ResolutionError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Longest acceptable error description, in UTF-8 bytes.
    static let errorTextLimit = 2_048

    // MARK: - Names

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
        let missing = try #require(failure { try c.tryResolve(type: Int.self, name: "") })
        guard case .notRegistered = missing.reason else {
            Issue.record("expected .notRegistered, got \(missing.reason)")
            return
        }
        #expect(missing.name == "")
        #expect(missing.description.contains("named \"\""))
        c.register(type: Int.self, name: "", dependency: 3)
        c.remove(type: Int.self)
        #expect(!c.isRegistered(type: Int.self))
        #expect(try c.tryResolve(type: Int.self, name: "") == 3)
    }

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
        let missing = try #require(failure { try c.tryResolve(type: String.self, name: longer) })
        #expect(missing.description.utf8.count < Self.errorTextLimit, "\(missing.description.utf8.count) bytes")
        #expect(missing.description.contains("Syringe could not resolve String named \"xxxx"))
        #expect(missing.name == longer, "the error keeps the full name as data")
        for suggestion in missing.suggestions {
            #expect(suggestion.utf8.count < 400, "a suggestion of \(suggestion.utf8.count) bytes")
        }
        // Multi-byte names of 1 MiB are bounded too.
        let cjk = String(repeating: "\u{6F22}", count: size / 3)
        let cjkMissing = try #require(failure { try c.tryResolve(type: Int.self, name: cjk) })
        #expect(cjkMissing.description.utf8.count < Self.errorTextLimit, "\(cjkMissing.description.utf8.count) bytes")
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
        let missing = try #require(failure { try c.tryResolve(type: String.self, name: zalgo) })
        #expect(missing.description.utf8.count < Self.errorTextLimit,
                "a 1 MiB one-character name made a \(missing.description.utf8.count)-byte error text")
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

    // MARK: - Unicode normalisation

    @Test("canonically equivalent names are one registration, whatever the form used to register or resolve")
    func canonicalEquivalence() throws {
        let groups: [[String]] = [
            ["caf\u{E9}", "cafe\u{301}"],
            ["\u{AC00}", "\u{1100}\u{1161}"],                                // Hangul LV
            ["\u{AC01}", "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}"],   // Hangul LVT
            ["\u{C5}", "A\u{30A}", "\u{212B}"],                             // Å, A + ring, ANGSTROM SIGN
            ["K", "\u{212A}"],                                              // KELVIN SIGN → ASCII K
            ["\u{3A9}", "\u{2126}"],                                        // OHM SIGN
            ["\u{915}\u{93C}", "\u{958}"],                                  // composition exclusion: NFC is decomposed
            ["a\u{301}\u{316}", "a\u{316}\u{301}", "\u{E1}\u{316}"],       // marks of different classes reorder
        ]
        for group in groups {
            for other in group.dropFirst() {
                #expect(group[0] == other, "test premise: \(group[0].unicodeScalars.map(\.value)) == \(other.unicodeScalars.map(\.value))")
            }
        }
        for group in groups {
            for registered in group {
                let c = Container()
                c.register(type: String.self, name: registered, dependency: "hit")
                let child = Container(parent: c)
                for asked in group {
                    let what = "registered \(registered.unicodeScalars.map(\.value)), asked \(asked.unicodeScalars.map(\.value))"
                    #expect(try c.tryResolve(type: String.self, name: asked) == "hit", "\(what)")
                    #expect(try child.tryResolve(type: String.self, name: asked) == "hit", "through a child: \(what)")
                    #expect(c.isRegistered(type: String.self, name: asked), "\(what)")
                }
                // Registering another form replaces: still one registration.
                for (index, form) in group.enumerated() {
                    c.register(type: String.self, name: form, dependency: "form \(index)")
                }
                #expect(c.resolveAll(type: String.self) == ["form \(group.count - 1)"])
                // Removing by any form removes it.
                c.remove(type: String.self, name: group.last!)
                for asked in group {
                    #expect(!c.isRegistered(type: String.self, name: asked))
                }
            }
        }
    }

    @Test("names that are not canonically equivalent stay different registrations")
    func notCanonicallyEquivalent() throws {
        let pairs: [(String, String)] = [
            ("\u{FB01}", "fi"),                      // ligature: compatibility only
            ("\u{FF21}", "A"),                       // fullwidth A
            ("a\u{301}\u{300}", "a\u{300}\u{301}"),  // same combining class: order matters
            ("e\u{301}", "e"),
            ("\u{E9}\u{301}", "\u{E9}"),
            ("\u{C5}", "A"),
            ("\u{1100}\u{1161}", "\u{1100}"),
            ("\u{212B}", "A\u{30B}"),
        ]
        for (left, right) in pairs {
            #expect(left != right, "test premise: \(left.unicodeScalars.map(\.value)) != \(right.unicodeScalars.map(\.value))")
            let c = Container()
            c.register(type: String.self, name: left, dependency: "left")
            #expect(!c.isRegistered(type: String.self, name: right), "\(right.unicodeScalars.map(\.value)) found \(left.unicodeScalars.map(\.value))")
            c.register(type: String.self, name: right, dependency: "right")
            #expect(try c.tryResolve(type: String.self, name: left) == "left")
            #expect(try c.tryResolve(type: String.self, name: right) == "right")
            #expect(c.resolveAll(type: String.self).count == 2)
        }
    }

    @Test("name equality in the container is exactly Swift String equality, over a mixed corpus")
    func equalityMatchesSwift() throws {
        let corpus: [String] = [
            "caf\u{E9}", "cafe\u{301}", "cafe", "Cafe\u{301}", "caf\u{C9}",
            "\u{AC00}", "\u{1100}\u{1161}", "\u{AC01}", "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}", "\u{1100}",
            "\u{C5}", "A\u{30A}", "\u{212B}", "A", "\u{E5}", "a\u{30A}",
            "\u{FB01}", "fi", "f", "\u{212A}", "K", "k", "\u{2126}", "\u{3A9}", "\u{3C9}",
            "\u{958}", "\u{915}\u{93C}", "\u{915}",
            "a\u{301}\u{316}", "a\u{316}\u{301}", "\u{E1}\u{316}", "a\u{301}\u{300}", "a\u{300}\u{301}",
            "\u{FF21}", "e\u{301}\u{301}", "\u{E9}\u{301}", "", "\u{0}", "e\u{0}\u{301}",
            "\u{1F1FA}\u{1F1F8}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F468}",
            "\u{FFFD}", String(decoding: [0xFF, 0xFE] as [UInt8], as: UTF8.self),
        ]
        // Group the corpus by Swift equality.
        var representatives: [String] = []
        var group: [Int] = []
        for name in corpus {
            if let index = representatives.firstIndex(of: name) {
                group.append(index)
            } else {
                group.append(representatives.count)
                representatives.append(name)
            }
        }
        // Register through the first member of each group, then through the last.
        for registerWithLast in [false, true] {
            let c = Container()
            for index in representatives.indices {
                let name = registerWithLast ? corpus[group.lastIndex(of: index)!] : representatives[index]
                c.register(type: Int.self, name: name, dependency: index)
            }
            for (position, name) in corpus.enumerated() {
                let found = c.resolveIfRegistered(type: Int.self, name: name)
                #expect(found == group[position], "\(name.unicodeScalars.map(\.value)) resolved \(String(describing: found)), expected \(group[position])")
            }
            #expect(c.resolveAll(type: Int.self).sorted() == Array(representatives.indices))
        }
    }

    // MARK: - Types

    @Test("generic, nested, Optional and structural types are distinct keys")
    func typesAsKeys() throws {
        let c = Container()
        c.register(type: HostileBox<Int>.self) { _ in HostileBox(tag: "Box<Int>") }
        c.register(type: HostileBox<String>.self) { _ in HostileBox(tag: "Box<String>") }
        c.register(type: HostileBox<HostileBox<Int>>.self) { _ in HostileBox(tag: "Box<Box<Int>>") }
        c.register(type: HostileBox<Int?>.self) { _ in HostileBox(tag: "Box<Int?>") }
        c.register(type: HostileBox<Int>?.self) { _ in HostileBox(tag: "Box<Int>?") }
        c.register(type: HostileOuter.Inner.self) { _ in HostileOuter.Inner(tag: "Outer.Inner") }
        c.register(type: HostileOther.Inner.self) { _ in HostileOther.Inner(tag: "Other.Inner") }
        c.register(type: Int.self, dependency: 1)
        c.register(type: Int?.self, dependency: 2)
        c.register(type: Int??.self, dependency: 3)
        c.register(type: [Int].self, dependency: [4])
        c.register(type: [Int?].self, dependency: [nil])
        c.register(type: [String: Int].self, dependency: ["five": 5])
        c.register(type: (Int, String).self) { _ in (6, "six") }
        c.register(type: (String, Int).self) { _ in ("seven", 7) }
        c.register(type: Void.self) { _ in () }
        c.register(type: Int.Type.self) { _ in Int.self }
        c.register(type: (@Sendable (Int) -> Int).self) { _ in { $0 + 8 } }
        c.register(type: Any.self) { _ in "any" }
        c.register(type: AnyObject.self) { _ in HostileConsumer() }

        #expect(try c.tryResolve(type: HostileBox<Int>.self).tag == "Box<Int>")
        #expect(try c.tryResolve(type: HostileBox<String>.self).tag == "Box<String>")
        #expect(try c.tryResolve(type: HostileBox<HostileBox<Int>>.self).tag == "Box<Box<Int>>")
        #expect(try c.tryResolve(type: HostileBox<Int?>.self).tag == "Box<Int?>")
        #expect(try c.tryResolve(type: HostileBox<Int>?.self)?.tag == "Box<Int>?")
        #expect(try c.tryResolve(type: HostileOuter.Inner.self).tag == "Outer.Inner")
        #expect(try c.tryResolve(type: HostileOther.Inner.self).tag == "Other.Inner")
        #expect(try c.tryResolve(type: Int.self) == 1)
        #expect(try c.tryResolve(type: Int?.self) == 2)
        #expect(try c.tryResolve(type: Int??.self) == 3)
        #expect(try c.tryResolve(type: [Int].self) == [4])
        #expect(try c.tryResolve(type: [Int?].self) == [nil])
        #expect(try c.tryResolve(type: [String: Int].self) == ["five": 5])
        #expect(try c.tryResolve(type: (Int, String).self) == (6, "six"))
        #expect(try c.tryResolve(type: (String, Int).self) == ("seven", 7))
        try c.tryResolve(type: Void.self)
        #expect(try c.tryResolve(type: Int.Type.self) == Int.self)
        #expect(try c.tryResolve(type: (@Sendable (Int) -> Int).self)(1) == 9)
        #expect(try c.tryResolve(type: Any.self) as? String == "any")
        #expect(try c.tryResolve(type: AnyObject.self) is HostileConsumer)

        // Unregistered neighbours are not found through a registered one.
        #expect(!c.isRegistered(type: HostileBox<Double>.self))
        #expect(!c.isRegistered(type: Int???.self))
        #expect(!c.isRegistered(type: [Int]?.self))
        #expect(!c.isRegistered(type: String?.self))
        #expect(!c.isRegistered(type: (Int, Int).self))

        // Removing one leaves the others.
        c.remove(type: Int.self)
        #expect(!c.isRegistered(type: Int.self))
        #expect(try c.tryResolve(type: Int?.self) == 2)
        #expect(try c.tryResolve(type: Int??.self) == 3)
        let missing = try #require(failure { try c.tryResolve(type: Int.self) })
        guard case .notRegistered = missing.reason else {
            Issue.record("expected .notRegistered, got \(missing.reason)")
            return
        }
    }

    @Test("an Optional registration that yields nil is registered, not missing")
    func optionalYieldingNil() throws {
        let c = Container()
        c.register(type: Int?.self) { _ in nil }
        c.register(type: Int??.self) { _ in .some(nil) }
        #expect(try c.tryResolve(type: Int?.self) == nil)
        let viaIfRegistered: Int?? = c.resolveIfRegistered(type: Int?.self)
        #expect(viaIfRegistered == .some(nil), "registered: nil wrapped in .some")
        let inner: Int?? = try c.tryResolve(type: Int??.self)
        #expect(inner == .some(nil))
        #expect(c.resolveIfRegistered(type: Int.self) == nil)
    }

    @Test("generic metadata made in a generic context is the same key as the concrete type")
    func genericContextKeys() throws {
        func register<T>(_: T.Type, in c: Container, tag: String) {
            c.register(type: HostileBox<T>.self) { _ in HostileBox(tag: tag) }
        }
        func resolve<T>(_: T.Type, from c: Container) throws(ResolutionError) -> String {
            try c.tryResolve(type: HostileBox<T>.self).tag
        }
        let c = Container()
        register(Int.self, in: c, tag: "int")
        register(HostileOuter.Inner.self, in: c, tag: "inner")
        register([String?].self, in: c, tag: "array")
        #expect(try c.tryResolve(type: HostileBox<Int>.self).tag == "int")
        #expect(try c.tryResolve(type: HostileBox<HostileOuter.Inner>.self).tag == "inner")
        #expect(try resolve([String?].self, from: c) == "array")
        #expect(!c.isRegistered(type: HostileBox<HostileOther.Inner>.self))
        #expect(!c.isRegistered(type: HostileBox<[String]>.self))
    }

    @Test(".weak with values that are not plain references")
    func weakUnusualValues() throws {
        struct Empty: Sendable {}
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked?.self, in: .weak) { _ in nil }
        c.register(type: Empty.self, in: .weak) { _ in Empty() }
        c.register(type: Any.self, in: .weak) { _ in Tracked(counter) }
        c.register(type: Tracked?.self, name: "some", in: .weak) { _ in Tracked(counter) }
        #expect(try c.tryResolve(type: Tracked?.self) == nil)
        #expect(try c.tryResolve(type: Tracked?.self) == nil)
        _ = try c.tryResolve(type: Empty.self)
        do {
            let held = try c.tryResolve(type: Any.self) as? Tracked
            #expect(held != nil)
            #expect(try c.tryResolve(type: Any.self) as? Tracked === held, "Any holding a class is shared while held")
            let some = try c.tryResolve(type: Tracked?.self, name: "some")
            #expect(try c.tryResolve(type: Tracked?.self, name: "some") === some)
        }
        #expect(counter.alive == 0)
    }

    // MARK: - Sizes

    @Test("100 000 registrations, all resolvable afterwards")
    func hundredThousandRegistrations() throws {
        let count = 100_000
        let names = (0..<count).map { "registration-\($0)" }
        let c = Container()
        for (index, name) in names.enumerated() {
            c.register(type: Int.self, name: name, dependency: index)
        }
        var wrong = 0
        for (index, name) in names.enumerated() {
            if c.resolveIfRegistered(type: Int.self, name: name) != index { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(count) registrations lost or crossed")
        // Remove every other one; the rest survive the tombstones and rebuilds.
        for index in stride(from: 0, to: count, by: 2) {
            c.remove(type: Int.self, name: names[index])
        }
        for index in stride(from: 1, to: count, by: 2) {
            c.register(type: Int.self, name: names[index], dependency: -index)
        }
        wrong = 0
        for (index, name) in names.enumerated() {
            let expected: Int? = index % 2 == 0 ? nil : -index
            if c.resolveIfRegistered(type: Int.self, name: name) != expected { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(count) registrations wrong after removals and replacements")
        // A miss among 50 000 registrations of the same type: every one is a
        // near match; the error stays short.
        let missing = try #require(failure { try c.tryResolve(type: Int.self, name: "registration-\(count)") })
        guard case .notRegistered = missing.reason else {
            Issue.record("expected .notRegistered, got \(missing.reason)")
            return
        }
        #expect(missing.description.utf8.count < Self.errorTextLimit, "\(missing.description.utf8.count) bytes")
        #expect(missing.description.contains("and 49995 more"), "\(missing.description)")
    }

    @Test("1 000 failing resolves of an unregistered type: each a clear, bounded ResolutionError")
    func thousandMisses() throws {
        let c = Container()
        // Many registrations around the misses: other types, and a type with
        // many names (near matches for every miss of that type).
        for index in 0..<1_000 {
            c.register(type: Int.self, name: "int-\(index)", dependency: index)
            c.register(type: String.self, name: "string-\(index)", dependency: "\(index)")
        }
        c.register(type: HostileConsumer.self) { (r: Resolver, name: String) in
            _ = try r.resolve(type: HostileNeverRegistered.self, name: name)
            return HostileConsumer()
        }
        let child = Container(parent: c)
        var checked = 0
        var problems: [String] = []  // one #expect at the end: 7 000 of them would dominate the run time
        func check(_ ok: Bool, _ message: @autoclosure () -> String) {
            if !ok && problems.count < 20 { problems.append(message()) }
        }
        for index in 0..<1_000 {
            let name = "missing-\(index)"
            let error: ResolutionError?
            switch index % 5 {
            case 0: error = failure { try c.tryResolve(type: HostileNeverRegistered.self, name: name) }
            case 1: error = failure { try c.tryResolve(type: HostileNeverRegistered.self, name: name, arguments: index, name) }
            case 2: error = failure { try c.tryResolve(type: HostileConsumer.self, arguments: name) }
            case 3: error = failure { try child.tryResolve(type: HostileNeverRegistered.self, name: name) }
            default: error = failure { try c.tryResolve(type: Int.self, name: name) }  // registered type, other names
            }
            guard let error else {
                check(false, "\(name): resolved something")
                continue
            }
            let text = error.description
            guard case .notRegistered = error.reason else {
                check(false, "\(name): \(error.reason)")
                continue
            }
            check(error.name == name, "\(name): error names \(String(describing: error.name))")
            check(text.hasPrefix("Syringe could not resolve "), text)
            check(text.contains("named \"\(name)\""), text)
            check(text.contains(index % 5 == 4 ? "Int" : "HostileNeverRegistered"), text)
            check(text.utf8.count < Self.errorTextLimit, "\(name): \(text.utf8.count) bytes")
            check(error.suggestions.filter { !$0.hasPrefix("…") }.count <= 5, "\(name): \(error.suggestions)")
            if index % 5 == 2 {
                check(error.path.count == 2, "\(name): path \(error.path)")
            }
            checked += 1
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(checked == 1_000)
        #expect(c.resolveIfRegistered(type: HostileNeverRegistered.self, name: "missing-0") == nil)
        #expect(c.resolveAll(type: HostileNeverRegistered.self).isEmpty)
        // Nothing was lost on the way.
        #expect(try c.tryResolve(type: Int.self, name: "int-999") == 999)
        #expect(try child.tryResolve(type: String.self, name: "string-0") == "0")
    }

    @Test("suggestions hold at most five entries, as documented, even with many near matches")
    func atMostFiveSuggestions() throws {
        let c = Container()
        for index in 0..<20 {
            c.register(type: Int.self, name: "near-\(index)", dependency: index)
        }
        let error = try #require(failure { try c.tryResolve(type: Int.self, name: "far") })
        // ResolutionError.suggestions: "A few registrations that look like
        // what was meant; never more than five."
        #expect(error.suggestions.count <= 5, "\(error.suggestions)")
    }

    // MARK: - Writers inside resolves

    @Test("factories and callbacks that register, remove and release while they are being resolved")
    func writersInsideResolves() throws {
        let counter = Counter()
        let c = Container()
        // The factories capture the container weakly: a strong capture would be
        // a cycle of the test's own making (container → registration → factory).
        // Removes its own registration while creating its shared instance.
        c.register(type: Tracked.self, name: "self-removing") { [weak c] _ in
            c?.remove(type: Tracked.self, name: "self-removing")
            return Tracked(counter)
        }
        // Releases every shared instance while creating its own.
        c.register(type: Tracked.self, name: "releasing") { [weak c] _ in
            c?.releaseSharedInstances()
            return Tracked(counter)
        }
        // Grows the table (many rebuilds) in the middle of a resolve.
        c.register(type: Int.self, name: "growing", in: .new) { [weak c] _ in
            for index in 0..<2_000 {
                c?.register(type: Int.self, name: "grown-\(index)", dependency: index)
            }
            return -1
        }
        // Replaces its own registration from its callback.
        c.register(type: String.self, name: "replaced-by-callback", in: .new) { _ in "first" }
            .onResolved { [weak c] _, _ in
                c?.register(type: String.self, name: "replaced-by-callback", in: .new) { _ in "second" }
            }

        let removing = try c.tryResolve(type: Tracked.self, name: "self-removing")
        #expect(!c.isRegistered(type: Tracked.self, name: "self-removing"))
        let releasing = try c.tryResolve(type: Tracked.self, name: "releasing")
        #expect(try c.tryResolve(type: Tracked.self, name: "releasing") === releasing, "created once")
        #expect(try c.tryResolve(type: Int.self, name: "growing") == -1)
        // A typed parameter: with `$0`, `!= $0` against an `Int?` lets the
        // compiler type the closure `(Int?) -> Bool` and interpolate "Optional(0)".
        let lost = (0..<2_000).filter { (index: Int) in c.resolveIfRegistered(type: Int.self, name: "grown-\(index)") != index }
        #expect(lost.isEmpty, "registered inside a resolve, then lost: \(lost.prefix(10))")
        #expect(try c.tryResolve(type: String.self, name: "replaced-by-callback") == "first")
        #expect(try c.tryResolve(type: String.self, name: "replaced-by-callback") == "second")
        #expect(removing !== releasing)
        #expect(counter.created == 2)

        // A removeAll from inside a factory.
        c.register(type: Tracked.self, name: "clearing", in: .new) { [weak c] _ in
            c?.removeAll()
            return Tracked(counter)
        }
        _ = try c.tryResolve(type: Tracked.self, name: "clearing")
        let missing = try #require(failure { try c.tryResolve(type: Int.self, name: "grown-0") })
        guard case .notRegistered = missing.reason else {
            Issue.record("expected .notRegistered, got \(missing.reason)")
            return
        }
    }

    @Test("a registration that implements its own type")
    func implementsItself() throws {
        let counter = Counter()
        let c = Container()
        c.register(type: Tracked.self) { _ in Tracked(counter) }.implements(Tracked.self)
        let first = try c.tryResolve(type: Tracked.self)
        #expect(try c.tryResolve(type: Tracked.self) === first)
        #expect(counter.created == 1)
        c.remove(type: Tracked.self)
        #expect(!c.isRegistered(type: Tracked.self))
    }

    // MARK: - Registration handles used late

    @Test("an alias added through a handle whose registration was already replaced does not outlive it")
    func aliasThroughStaleHandle() throws {
        let first = Counter()
        let second = Counter()
        let c = Container()
        let stale = c.register(type: Tracked.self, name: "x", in: .new) { _ in Tracked(first) }
        c.register(type: Tracked.self, name: "x", in: .new) { _ in Tracked(second) }  // replaces it
        // What a second thread configuring the same key can interleave with
        // `register(...).implements(...)`.
        stale.implements(AnyObject.self, name: "alias")
        if let instance = c.resolveIfRegistered(type: AnyObject.self, name: "alias") {
            #expect((instance as? Tracked)?.counter === second,
                    "the alias resolves the replaced registration, not the current one")
        }
        c.remove(type: Tracked.self, name: "x")
        #expect(!c.isRegistered(type: AnyObject.self, name: "alias"),
                "the alias outlives the removal of its registration")
    }
}
