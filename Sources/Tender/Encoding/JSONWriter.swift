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
        case .null: output.append(contentsOf: Array("null".utf8))
        case .bool(let value): output.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .number(let text): output.append(contentsOf: Array(text.utf8))
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

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, to output: inout [UInt8], escapingSlashes: Bool) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/") where escapingSlashes:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
