/// Compact JSON text, written member by member: Tender's one JSON writer.
///
/// It writes what `NSJSONSerialization` writes with options 0, which the Square SDK sends: no whitespace, `/` in a
/// string as `\/` when `escapingSlashes` is set, control characters as short escapes or `\u00xx` (lower-case hex),
/// every other character as raw UTF-8. ``JSONValue/serialized(escapingSlashes:)`` writes a value with it, and the
/// request builders write their payloads with it directly, in their wire order.
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
    /// The UTF-8 text written so far.
    package let output = ByteBuffer()
    /// Whether `/` in strings is written `\/`.
    package let escapingSlashes: Bool
    /// Whether the next value or key follows another one at the same level, and so needs a `,` first.
    private var followsValue = false
    /// Whether a string written (a key or a value) holds U+0000, which strict JSON readers refuse (SEC-6).
    package private(set) var containsNUL = false

    /// A writer of an empty text.
    package init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
    }

    /// The text written so far.
    package var text: String { output.text }

    /// `{`.
    package mutating func beginObject() {
        separate()
        output.append(UInt8(ascii: "{"))
        followsValue = false
    }

    /// `}`.
    package mutating func endObject() {
        output.append(UInt8(ascii: "}"))
        followsValue = true
    }

    /// `[`.
    package mutating func beginArray() {
        separate()
        output.append(UInt8(ascii: "["))
        followsValue = false
    }

    /// `]`.
    package mutating func endArray() {
        output.append(UInt8(ascii: "]"))
        followsValue = true
    }

    /// A member's key and its `:`; the member's value comes next.
    package mutating func key(_ key: String) {
        separate()
        writeString(key)
        output.append(UInt8(ascii: ":"))
        followsValue = false
    }

    /// A string value, quoted and escaped.
    package mutating func string(_ text: String) {
        separate()
        writeString(text)
        followsValue = true
    }

    /// An integer value.
    package mutating func integer(_ value: Int) {
        number(String(value))
    }

    /// A number value, written as its text (which must be a JSON number).
    package mutating func number(_ text: String) {
        separate()
        output.append(text)
        followsValue = true
    }

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        output.append(literal: value ? "true" : "false")
        followsValue = true
    }

    /// `null`.
    package mutating func null() {
        separate()
        output.append(literal: "null")
        followsValue = true
    }

    /// A member's key and its `:`, for a key written in the code: text that needs no escape, copied as it is.
    package mutating func key(_ key: StaticString) {
        assert(key.description.utf8.allSatisfy { !JSONValue.needsEscape($0, escapingSlashes: true) })
        separate()
        output.append(UInt8(ascii: "\""))
        output.append(literal: key)
        output.append(UInt8(ascii: "\""))
        output.append(UInt8(ascii: ":"))
        followsValue = false
    }

    /// A member whose value is a string.
    package mutating func member(_ key: StaticString, _ text: String) {
        self.key(key)
        string(text)
    }

    /// A member whose value is `true` or `false`.
    package mutating func member(_ key: StaticString, _ flag: Bool) {
        self.key(key)
        bool(flag)
    }

    /// A member whose value is an integer.
    package mutating func member(_ key: StaticString, integer value: Int) {
        self.key(key)
        integer(value)
    }

    /// A whole value, members in their stored order.
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
        if followsValue { output.append(UInt8(ascii: ",")) }
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes go in as they are, in one copy; otherwise the runs between the
        // escapes do.
        var sawNUL = false
        let slashes = escapingSlashes
        ByteScanning.append(
            text,
            to: output,
            isSpecial: { JSONValue.needsEscape($0, escapingSlashes: slashes) },
            special: { byte, output in
                JSONWriter.writeEscape(byte, to: output)
                if byte == 0 { sawNUL = true }
            }
        )
        containsNUL = containsNUL || sawNUL
        output.append(UInt8(ascii: "\""))
    }

    /// `\` and the escape of a byte ``JSONValue/needsEscape(_:escapingSlashes:)`` marks.
    private static func writeEscape(_ byte: UInt8, to bytes: ByteBuffer) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(literal: "u00")
            bytes.append(lowerHexDigit(byte >> 4))
            bytes.append(lowerHexDigit(byte & 0x0F))
        }
    }

    /// The lower-case hex digit of a value below 16, as `\u00xx` escapes are written.
    private static func lowerHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}

extension JSONValue {
    /// The compact JSON text of this value (``JSONWriter``), members in their stored order, no whitespace.
    ///
    /// With `escapingSlashes` (the default), every `/` in a string is written `\/`, non-ASCII characters are
    /// written as raw UTF-8 and control characters as short escapes or `\u00XX`: the bytes
    /// `NSJSONSerialization` writes with options 0, which the Square SDK sends.
    package func serialized(escapingSlashes: Bool = true) -> String {
        var writer = JSONWriter(escapingSlashes: escapingSlashes)
        writer.value(self)
        return writer.text
    }

    /// Whether ``serialized(escapingSlashes:)`` writes a byte of a string escaped: `"`, `\`, a control character, and
    /// `/` with `escapingSlashes`. Every other byte is written as it is.
    @inline(__always)
    package static func needsEscape(_ byte: UInt8, escapingSlashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (byte == UInt8(ascii: "/") && escapingSlashes)
    }
}
