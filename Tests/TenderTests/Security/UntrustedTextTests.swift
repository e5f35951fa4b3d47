import PropertyBased
import Testing

@testable import Tender

/// SEC-6's checks on text from a callback, read a word at a time, against the rules stated scalar by scalar.
@Suite("Untrusted text (SEC-6)")
struct UntrustedTextTests {
    /// 1–`maximumLength` scalars, none a control character (C0, DEL, C1) except, with `allowingLineBreaks`, tab,
    /// line feed and carriage return.
    static func isPlainReference(_ text: String, maximumLength: Int, allowingLineBreaks: Bool) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard (1...maximumLength).contains(scalars.count) else { return false }
        return scalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: allowingLineBreaks
            case 0x00...0x1F, 0x7F...0x9F: false
            default: true
            }
        }
    }

    /// 1–`maximumLength` bytes, each an ASCII letter or digit or one of `punctuation`.
    static func isIdentifierReference(_ text: String, maximumLength: Int, punctuation: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\(punctuation)".utf8)
        return (1...maximumLength).contains(text.utf8.count) && text.utf8.allSatisfy(allowed.contains)
    }

    /// Characters of every kind the rules tell apart: letters, digits, punctuation in and out of the allowed sets,
    /// the line breaks, other C0 controls, DEL, C1 controls, and characters beyond ASCII of 2, 3 and 4 bytes.
    static let characters: [Character] = [
        "a", "Z", "0", "9", "-", "_", ".", " ", "~", "%", "\t", "\n", "\r", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}",
        "\u{9F}", "\u{A0}", "é", "€", "😀", "\r\n",
    ]

    static let texts = Gen.element(of: characters).array(of: 0...24).map { String($0.compactMap { $0 }) }

    @Test("isPlain gives what the scalar-by-scalar rule gives (property)")
    func plain() async {
        await propertyCheck(count: 4000, input: Self.texts, Gen.int(in: 1...20), Gen.bool) { text, maximum, breaks in
            #expect(
                UntrustedText.isPlain(text, maximumLength: maximum, allowingLineBreaks: breaks)
                    == Self.isPlainReference(text, maximumLength: maximum, allowingLineBreaks: breaks),
                "\(text.unicodeScalars.map(\.value)) \(maximum) \(breaks)"
            )
        }
    }

    @Test("isPlain counts scalars, not bytes, against the limit")
    func plainCountsScalars() {
        #expect(UntrustedText.isPlain("ééé", maximumLength: 3))
        #expect(!UntrustedText.isPlain("éééé", maximumLength: 3))
        #expect(UntrustedText.isPlain(String(repeating: "a", count: 8), maximumLength: 8))
        #expect(!UntrustedText.isPlain(String(repeating: "a", count: 9), maximumLength: 8))
        #expect(!UntrustedText.isPlain("", maximumLength: 8))
        #expect(!UntrustedText.isPlain("abcdefgh\u{7F}", maximumLength: 20))
        #expect(UntrustedText.isPlain("line one\nline two", maximumLength: 20, allowingLineBreaks: true))
        #expect(!UntrustedText.isPlain("line one\nline two", maximumLength: 20))
    }

    @Test("isIdentifier gives what the byte-by-byte rule gives, for each set of punctuation (property)")
    func identifier() async {
        await propertyCheck(count: 4000, input: Self.texts, Gen.int(in: 1...20)) { text, maximum in
            #expect(
                UntrustedText.isIdentifier(text, maximumLength: maximum)
                    == Self.isIdentifierReference(text, maximumLength: maximum, punctuation: "")
            )
            #expect(
                UntrustedText.isIdentifier(text, maximumLength: maximum, punctuation: "-_")
                    == Self.isIdentifierReference(text, maximumLength: maximum, punctuation: "-_")
            )
            #expect(
                UntrustedText.isIdentifier(text, maximumLength: maximum, punctuation: "-_.")
                    == Self.isIdentifierReference(text, maximumLength: maximum, punctuation: "-_.")
            )
        }
    }

    @Test("text kept from outside never keeps a card number's first digits, even where it is cut (SEC-9)")
    func safeMasksBeforeCutting() {
        // Cut first, the quote would keep "411111111111", twelve digits of the card, which no screen finds.
        let quoted = UntrustedText.safe("card 4111111111111111 declined", limit: 17)
        #expect(quoted == "card XXXXXXXXXXXX…")
        #expect(!quoted.contains("4111"))
        #expect(UntrustedText.safe("4111 1111 1111 1111", mask: "*") == "**** **** **** 1111")
        #expect(UntrustedText.safe(String(repeating: "a", count: 50)) == String(repeating: "a", count: 40) + "…")
        #expect(UntrustedText.safe("é\u{301}") == "é\u{301}", "cut by characters, never inside one")
    }

    @Test("control characters: quoted as they are, NUL replaced in the journal, a server's text unreadable")
    func safeControlCharacters() {
        #expect(UntrustedText.safe("a\u{0}b\tc") == "a\u{0}b\tc")
        // SQLite reads text up to its first NUL: the journal would keep "a".
        #expect(UntrustedText.safe("a\u{0}b", controls: .keptButNUL) == "a\u{FFFD}b")
        #expect(UntrustedText.safe("a\tb", controls: .keptButNUL) == "a\tb")
        for text in ["a\u{0}b", "line\nbreak", "\u{1B}[31mred", "c1\u{85}"] {
            #expect(UntrustedText.safe(text, controls: .unreadable) == "(unreadable)", "\(text.debugDescription)")
        }
        #expect(UntrustedText.safe("", controls: .unreadable) == "")
        #expect(
            UntrustedText.safe("ORDER 4111111111111111", limit: 200, controls: .unreadable) == "ORDER XXXXXXXXXXXX1111"
        )
    }
}
