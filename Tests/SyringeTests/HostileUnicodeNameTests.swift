import Testing
import Syringe

extension HostileInputTests {
    @Suite("Unicode normalisation of names")
    struct UnicodeNames {
        @Test("canonically equivalent names are one registration, whatever the form used to register or resolve", arguments: [
            ["caf\u{E9}", "cafe\u{301}"],
            ["\u{AC00}", "\u{1100}\u{1161}"],                                // Hangul LV
            ["\u{AC01}", "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}"],   // Hangul LVT
            ["\u{C5}", "A\u{30A}", "\u{212B}"],                             // Å, A + ring, ANGSTROM SIGN
            ["K", "\u{212A}"],                                              // KELVIN SIGN → ASCII K
            ["\u{3A9}", "\u{2126}"],                                        // OHM SIGN
            ["\u{915}\u{93C}", "\u{958}"],                                  // composition exclusion: NFC is decomposed
            ["a\u{301}\u{316}", "a\u{316}\u{301}", "\u{E1}\u{316}"],       // marks of different classes reorder
        ])
        func canonicalEquivalence(_ group: [String]) throws {
            for other in group.dropFirst() {
                #expect(group[0] == other, "test premise: \(group[0].unicodeScalars.map(\.value)) == \(other.unicodeScalars.map(\.value))")
            }
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

        @Test("names that are not canonically equivalent stay different registrations", arguments: [
            ("\u{FB01}", "fi"),                      // ligature: compatibility only
            ("\u{FF21}", "A"),                       // fullwidth A
            ("a\u{301}\u{300}", "a\u{300}\u{301}"),  // same combining class: order matters
            ("e\u{301}", "e"),
            ("\u{E9}\u{301}", "\u{E9}"),
            ("\u{C5}", "A"),
            ("\u{1100}\u{1161}", "\u{1100}"),
            ("\u{212B}", "A\u{30B}"),
        ])
        func notCanonicallyEquivalent(_ left: String, _ right: String) throws {
            #expect(left != right, "test premise: \(left.unicodeScalars.map(\.value)) != \(right.unicodeScalars.map(\.value))")
            let c = Container()
            c.register(type: String.self, name: left, dependency: "left")
            #expect(!c.isRegistered(type: String.self, name: right), "\(right.unicodeScalars.map(\.value)) found \(left.unicodeScalars.map(\.value))")
            c.register(type: String.self, name: right, dependency: "right")
            #expect(try c.tryResolve(type: String.self, name: left) == "left")
            #expect(try c.tryResolve(type: String.self, name: right) == "right")
            #expect(c.resolveAll(type: String.self).count == 2)
        }

        /// Registered through the first member of each group of equal names,
        /// or through the last.
        @Test("name equality in the container is exactly Swift String equality, over a mixed corpus",
              arguments: [false, true])
        func equalityMatchesSwift(registerWithLast: Bool) throws {
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
}
