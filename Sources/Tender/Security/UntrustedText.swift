/// Checks on text that arrives from outside in a callback (SEC-6): bounded, no control characters, and,
/// for identifiers, a small character set.
package enum UntrustedText {
    /// Whether text is 1–`maximumLength` Unicode scalars with no control characters (C0, DEL, C1). With
    /// `allowingLineBreaks`, tab, line feed and carriage return are accepted (for messages).
    package static func isPlain(_ text: String, maximumLength: Int, allowingLineBreaks: Bool = false) -> Bool {
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            guard count <= maximumLength else { return false }
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: guard allowingLineBreaks else { return false }
            case 0x00...0x1F, 0x7F...0x9F: return false
            default: continue
            }
        }
        return count > 0
    }

    /// Whether text is 1–`maximumLength` ASCII letters, digits, or characters from `punctuation`.
    package static func isIdentifier(_ text: String, maximumLength: Int, punctuation: String = "") -> Bool {
        guard (1...maximumLength).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                punctuation.utf8.contains(byte)
            }
        }
    }
}
