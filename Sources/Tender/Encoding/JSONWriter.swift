/// Compact JSON text, written value by value: Tender's one JSON writer.
///
/// It writes what `NSJSONSerialization` writes with options 0, which the Square SDK sends: no whitespace, `/` in a
/// string as `\/` when `escapingSlashes` is set, control characters as short escapes or `\u00xx` (lower-case hex),
/// every other character as raw UTF-8. ``JSONValue/serialized(escapingSlashes:)`` writes a value with it, and the
/// request builders write their payloads with it, member by member in their wire order.
///
/// ```swift
/// var json = JSONWriter(escapingSlashes: false)
/// json.beginObject()
/// json.member("amount", integer: 200)
/// json.member("type", "sale")
/// json.endObject()
/// json.text   // {"amount":200,"type":"sale"}
/// ```
package struct JSONWriter {
    /// The UTF-8 of the text written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether `/` in strings is written `\/`.
    package let escapingSlashes: Bool
    /// Whether the next value or key follows another one at the same level, and so needs a `,` first.
    private var followsValue = false

    /// A writer of an empty text.
    package init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
    }

    /// The text written so far.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{`.
    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        followsValue = false
    }

    /// `}`.
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        followsValue = true
    }

    /// `[`.
    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        followsValue = false
    }

    /// `]`.
    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        followsValue = true
    }

    /// A member's key and its `:`; the member's value comes next.
    package mutating func key(_ key: String) {
        separate()
        write(string: key)
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    /// A string value, quoted and escaped.
    package mutating func string(_ text: String) {
        separate()
        write(string: text)
        followsValue = true
    }

    /// A number value, written as its text (which must be a JSON number).
    package mutating func number(_ text: String) {
        separate()
        bytes += text.utf8
        followsValue = true
    }

    /// An integer value.
    package mutating func integer(_ value: Int) {
        number(String(value))
    }

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        number(value ? "true" : "false")
    }

    /// `null`.
    package mutating func null() {
        number("null")
    }

    /// A member whose value is a string.
    package mutating func member(_ key: String, _ text: String) {
        self.key(key)
        string(text)
    }

    /// A member whose value is `true` or `false`.
    package mutating func member(_ key: String, _ flag: Bool) {
        self.key(key)
        bool(flag)
    }

    /// A member whose value is an integer.
    package mutating func member(_ key: String, integer value: Int) {
        self.key(key)
        integer(value)
    }

    /// A whole value, an object's members in their stored order.
    package mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let text): number(text)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    /// `,` when a value at the same level came before.
    private mutating func separate() {
        if followsValue { bytes.append(UInt8(ascii: ",")) }
    }

    /// A string, quoted, each byte ``JSONValue/needsEscape(_:escapingSlashes:)`` marks written as its escape.
    private mutating func write(string text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard JSONValue.needsEscape(byte, escapingSlashes: escapingSlashes) else {
                bytes.append(byte)
                continue
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let digits = Array("0123456789abcdef".utf8)
                bytes += "u00".utf8
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The compact JSON text of this value (``JSONWriter``), members in their stored order, no whitespace.
    ///
    /// With `escapingSlashes` (the default), every `/` in a string is written `\/`: the bytes
    /// `NSJSONSerialization` writes with options 0, which the Square SDK sends.
    package func serialized(escapingSlashes: Bool = true) -> String {
        var writer = JSONWriter(escapingSlashes: escapingSlashes)
        writer.value(self)
        return writer.text
    }

    /// Whether ``serialized(escapingSlashes:)`` writes a byte of a string escaped: `"`, `\`, a control character, and
    /// `/` with `escapingSlashes`. Every other byte is written as it is.
    package static func needsEscape(_ byte: UInt8, escapingSlashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (byte == UInt8(ascii: "/") && escapingSlashes)
    }
}
