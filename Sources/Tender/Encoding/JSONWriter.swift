extension JSONValue {
    /// The compact JSON text of this value, members in their stored order, no whitespace.
    ///
    /// With `escapingSlashes` (the default), every `/` in a string is written `\/`, non-ASCII characters are
    /// written as raw UTF-8 and control characters as short escapes or `\u00XX`: the bytes
    /// `NSJSONSerialization` writes with options 0, which the Square SDK sends.
    package func serialized(escapingSlashes: Bool = true) -> String {
        var output: [UInt8] = []
        write(to: &output, escapingSlashes: escapingSlashes)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8], escapingSlashes: Bool) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONValue.writeString(text, to: &output, escapingSlashes: escapingSlashes)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output, escapingSlashes: escapingSlashes)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &output, escapingSlashes: escapingSlashes)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output, escapingSlashes: escapingSlashes)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8], escapingSlashes: Bool) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.makeContiguousUTF8()  // a no-op for native strings, which is nearly every string
        _ = text.utf8.withContiguousStorageIfAvailable { bytes in
            // Copy the runs that need no escape in one go each; most strings are one such run.
            var run = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard needsEscape(byte, escapingSlashes: escapingSlashes) else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                appendEscape(byte, to: &output)
                run = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether ``serialized(escapingSlashes:)`` writes a byte of a string escaped: `"`, `\`, a control character, and
    /// `/` with `escapingSlashes`. Every other byte is written as it is.
    @inline(__always)
    package static func needsEscape(_ byte: UInt8, escapingSlashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (byte == UInt8(ascii: "/") && escapingSlashes)
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            output.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), lowerHexDigit(byte >> 4),
                lowerHexDigit(byte & 0x0F),
            ])
        }
    }

    /// The lower-case hex digit of a value below 16, as `\u00xx` escapes are written.
    @inline(__always)
    static func lowerHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}
