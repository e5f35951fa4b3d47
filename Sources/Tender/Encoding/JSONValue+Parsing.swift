/// Why a JSON text was refused.
package struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for people; never contains the input.
    package var message: String
    /// The byte offset where the problem was found.
    package var offset: Int

    package var description: String { "\(message) (at byte \(offset))" }
}

/// Bounds on JSON that arrives from outside.
package struct JSONLimits: Sendable, Hashable {
    /// The largest accepted text, in UTF-8 bytes.
    package var maximumBytes: Int
    /// The deepest accepted nesting of arrays and objects.
    package var maximumDepth: Int

    /// Creates limits.
    package init(maximumBytes: Int, maximumDepth: Int) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
    }

    /// 64 KiB and 16 levels: far above any POS callback, far below anything that could hurt.
    package static let callback = JSONLimits(maximumBytes: 64 * 1024, maximumDepth: 16)
}

extension JSONValue {
    /// Parses JSON text strictly (RFC 8259): Tender's one JSON reader.
    ///
    /// It refuses what Foundation lets through (SEC-6): duplicate object keys (compared as Swift compares strings, so
    /// an escaped or canonically equivalent spelling is the same key), trailing commas, leading zeros, unescaped
    /// control characters, invalid escapes, lone surrogates, `\u0000`, anything after the value, and input beyond
    /// `limits`. The nesting bound also bounds the reader's recursion.
    /// - Throws: ``JSONError`` naming the first problem and its offset, never the text.
    package static func parse(_ text: String, limits: JSONLimits = .callback) throws(JSONError) -> JSONValue {
        let bytes = Array(text.utf8)
        guard bytes.count <= limits.maximumBytes else {
            throw JSONError(message: "JSON text is larger than \(limits.maximumBytes) bytes", offset: 0)
        }
        var reader = JSONReader(bytes: bytes, maximumDepth: limits.maximumDepth)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.position == bytes.count else {
            throw JSONError(message: "unexpected text after the JSON value", offset: reader.position)
        }
        return value
    }
}

/// A forward reader of the JSON grammar over a text's UTF-8: the one place that decides what is JSON.
private struct JSONReader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    func fail(_ message: String) -> JSONError {
        JSONError(message: message, offset: position)
    }

    /// The byte at the reading position, or `nil` at the end.
    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Reads one value; `depth` is the number of arrays and objects around it.
    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard let byte = current else { throw fail("unexpected end of JSON text") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character in JSON text")
        }
    }

    mutating func literal(_ literal: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count else { throw fail("unexpected end of JSON text") }
        guard bytes[position..<(position + expected.count)].elementsEqual(expected) else {
            throw fail("invalid literal in JSON text")
        }
        position += expected.count
        return value
    }

    mutating func object(depth: Int) throws(JSONError) -> JSONObject {
        guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
        position += 1  // {
        var members: [JSONObject.Member] = []
        var keys: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return JSONObject(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("expected a string key in JSON object") }
            let keyOffset = position
            let key = try string()
            guard keys.insert(key).inserted else {
                throw JSONError(message: "duplicate key in JSON object", offset: keyOffset)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':' after key in JSON object") }
            position += 1
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try value(depth: depth)))
            if try closes("}", "object") { return JSONObject(members) }
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> [JSONValue] {
        guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            if try closes("]", "array") { return elements }
        }
    }

    /// After a container's member or element: `false` at `,` (another follows), `true` at `closing`; anything else
    /// is an error that names `container`.
    mutating func closes(_ closing: Unicode.Scalar, _ container: String) throws(JSONError) -> Bool {
        skipWhitespace()
        switch current {
        case nil:
            throw fail("unexpected end of JSON text in \(container)")
        case UInt8(ascii: ","):
            position += 1
            return false
        case UInt8(ascii: closing):
            position += 1
            return true
        default:
            throw fail("expected ',' or '\(closing)' in JSON \(container)")
        }
    }

    /// Reads a number's text, as written (RFC 8259 §6).
    mutating func number() throws(JSONError) -> String {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw fail("invalid number in JSON text") }
        position += 1
        if first == UInt8(ascii: "0") {
            if let next = current, isDigit(next) { throw fail("numbers in JSON must not have leading zeros") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let next = current, isDigit(next) else { throw fail("invalid fraction in JSON number") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let next = current, isDigit(next) else { throw fail("invalid exponent in JSON number") }
            skipDigits()
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Reads a string from its opening quote to just after its closing one, escapes decoded.
    mutating func string() throws(JSONError) -> String {
        position += 1  // the opening quote
        var run = position  // the first byte not yet in `text`
        var text: [UInt8] = []  // the string up to `run`, escapes decoded
        while true {
            guard let byte = current else { throw fail("unterminated string in JSON text") }
            switch byte {
            case UInt8(ascii: "\""):
                let end = position
                position += 1
                // Valid UTF-8: the text's bytes are, and escapes decode to whole scalars. Without an escape, the
                // string is its bytes.
                guard !text.isEmpty else { return String(decoding: bytes[run..<end], as: UTF8.self) }
                text += bytes[run..<end]
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                text += bytes[run..<position]
                position += 1
                try escape(into: &text)
                run = position
            case 0x00..<0x20:
                throw fail("unescaped control character in JSON string")
            default:
                position += 1
            }
        }
    }

    /// Reads the escape after a `\` and appends the UTF-8 of what it stands for.
    mutating func escape(into text: inout [UInt8]) throws(JSONError) {
        guard let escape = current else { throw fail("unterminated escape in JSON string") }
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"): UTF8.encode(try unicodeEscape()) { text.append($0) }
        default: throw JSONError(message: "invalid escape in JSON string", offset: position - 2)
        }
    }

    /// The scalar of a `\u` escape (after the `u`), joining a surrogate pair.
    mutating func unicodeEscape() throws(JSONError) -> Unicode.Scalar {
        let first = try hex4()
        switch first {
        case 0:
            throw fail("\\u0000 is not accepted in JSON strings")
        case 0xD800...0xDBFF:
            guard bytes[position...].starts(with: "\\u".utf8) else { throw fail("lone surrogate in JSON string") }
            position += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw fail("lone surrogate in JSON string") }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else { throw fail("invalid \\u escape in JSON string") }
            return scalar
        case 0xDC00...0xDFFF:
            throw fail("lone surrogate in JSON string")
        default:
            guard let scalar = Unicode.Scalar(first) else { throw fail("invalid \\u escape in JSON string") }
            return scalar
        }
    }

    /// Four hex digits of a `\u` escape.
    mutating func hex4() throws(JSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("truncated \\u escape in JSON string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = PercentEncoding.hexValue(bytes[position]) else {
                throw fail("invalid \\u escape in JSON string")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
