/// Checks on text that arrives from outside in a callback (SEC-6): bounded, no control characters, and,
/// for identifiers, a small character set.
package enum UntrustedText {
    /// Whether text is 1–`maximumLength` Unicode scalars with no control characters (C0, DEL, C1). With
    /// `allowingLineBreaks`, tab, line feed and carriage return are accepted (for messages).
    package static func isPlain(_ text: String, maximumLength: Int, allowingLineBreaks: Bool = false) -> Bool {
        let scalars = text.unicodeScalars
        guard !scalars.isEmpty else { return false }
        var count = 0
        for scalar in scalars {
            count += 1
            guard count <= maximumLength else { return false }
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: guard allowingLineBreaks else { return false }
            case 0x00...0x1F, 0x7F...0x9F: return false
            default: continue
            }
        }
        return true
    }

    /// Whether text is 1–`maximumLength` ASCII letters, digits, or characters from `punctuation`.
    package static func isIdentifier(_ text: String, maximumLength: Int, punctuation: String = "") -> Bool {
        let utf8 = text.utf8
        guard (1...maximumLength).contains(utf8.count) else { return false }
        // `punctuation` is a few bytes: searching them costs less than building a set of them. Both strings are
        // read in place, which costs less than iterating their UTF-8 views.
        var text = text
        var punctuation = punctuation
        return text.withUTF8 { bytes in
            punctuation.withUTF8 { extra in
                bytes.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"):
                        return true
                    default:
                        return extra.contains(byte)
                    }
                }
            }
        }
    }
}
