/// Checks on text that arrives from outside in a callback (SEC-6): bounded, no control characters, and,
/// for identifiers, a small character set.
package enum UntrustedText {
    /// Whether text is 1–`maximumLength` Unicode scalars with no control characters (C0, DEL, C1). With
    /// `allowingLineBreaks`, tab, line feed and carriage return are accepted (for messages).
    package static func isPlain(_ text: String, maximumLength: Int, allowingLineBreaks: Bool = false) -> Bool {
        var text = text
        // Read in place, byte by byte, while the text is ASCII: one scalar per byte, and the control characters are
        // the bytes below 0x20 and 0x7F. At the first byte beyond ASCII, the text is read scalar by scalar.
        let ascii = text.withUTF8 { bytes -> Bool? in
            guard !bytes.isEmpty else { return false }
            for byte in bytes {
                switch byte {
                case 0x20...0x7E: continue
                case 0x09, 0x0A, 0x0D: guard allowingLineBreaks else { return false }
                case 0x80...: return nil
                default: return false
                }
            }
            return bytes.count <= maximumLength
        }
        if let ascii { return ascii }
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
    package static func isIdentifier(_ text: String, maximumLength: Int, punctuation: StaticString = "") -> Bool {
        var text = text
        // Read in place, byte by byte: iterating the UTF-8 view costs several times more.
        return text.withUTF8 { isIdentifier($0, maximumLength: maximumLength, punctuation: punctuation) }
    }

    /// ``isIdentifier(_:maximumLength:punctuation:)`` of the UTF-8 bytes of text: every byte is one character,
    /// since the characters accepted are ASCII.
    package static func isIdentifier(
        _ bytes: UnsafeBufferPointer<UInt8>,
        maximumLength: Int,
        punctuation: StaticString = ""
    ) -> Bool {
        guard (1...maximumLength).contains(bytes.count) else { return false }
        // `punctuation` is a few bytes, and searching them costs less than building a set of them.
        return punctuation.withUTF8Buffer { extra in
            bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    extra.contains(byte)
                }
            }
        }
    }
}
