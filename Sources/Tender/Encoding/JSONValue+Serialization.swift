extension JSONValue {
    /// The compact JSON text of this value, members in their stored order, no whitespace: Tender's one JSON writer.
    ///
    /// It writes what `NSJSONSerialization` writes with options 0, which the Square SDK sends: with
    /// `escapingSlashes` (the default) every `/` in a string is written `\/`, control characters as short escapes or
    /// `\u00xx` (lower-case hex), every other character as raw UTF-8. The request builders and the simulated POS apps
    /// write their JSON with it, in their wire order.
    package func serialized(escapingSlashes: Bool = true) -> String {
        var output: [UInt8] = []
        write(to: &output, escapingSlashes: escapingSlashes)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8], escapingSlashes: Bool) {
        switch self {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .number(let text): output += text.utf8
        case .string(let text): JSONValue.write(string: text, to: &output, escapingSlashes: escapingSlashes)
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
                JSONValue.write(string: member.key, to: &output, escapingSlashes: escapingSlashes)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output, escapingSlashes: escapingSlashes)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A string, quoted, each byte ``needsEscape(_:escapingSlashes:)`` marks written as its escape.
    private static func write(string text: String, to output: inout [UInt8], escapingSlashes: Bool) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard needsEscape(byte, escapingSlashes: escapingSlashes) else {
                output.append(byte)
                continue
            }
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                let digits = Array("0123456789abcdef".utf8)
                output += "u00".utf8
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether ``serialized(escapingSlashes:)`` writes a byte of a string escaped: `"`, `\`, a control character, and
    /// `/` with `escapingSlashes`. Every other byte is written as it is.
    package static func needsEscape(_ byte: UInt8, escapingSlashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (byte == UInt8(ascii: "/") && escapingSlashes)
    }
}
