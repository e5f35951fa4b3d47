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
    /// Parses JSON text strictly (RFC 8259), refusing what Foundation lets through:
    /// duplicate object keys, trailing commas, leading zeros, unescaped control characters,
    /// lone surrogates, `\u0000`, anything after the value, and input beyond `limits`.
    package static func parse(_ text: String, limits: JSONLimits = .callback) throws(JSONError) -> JSONValue {
        let bytes = Array(text.utf8)
        guard bytes.count <= limits.maximumBytes else {
            throw JSONError(message: "JSON text is larger than \(limits.maximumBytes) bytes", offset: 0)
        }
        var parser = StrictJSONParser(bytes: bytes, maximumDepth: limits.maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw JSONError(message: "unexpected text after the JSON value", offset: parser.position)
        }
        return value
    }
}

private struct StrictJSONParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func fail(_ message: String) -> JSONError {
        JSONError(message: message, offset: position)
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard position < bytes.count else { throw fail("unexpected end of JSON text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw fail("unexpected character in JSON text")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("unexpected end of JSON text") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[position + offset] != expected[offset] {
            throw fail("invalid literal in JSON text")
        }
        position += count
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
        position += 1  // {
        var members: [JSONObject.Member] = []
        var seen = Set<String>()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw fail("expected a string key in JSON object")
            }
            let keyOffset = position
            let key = try parseString()
            // Callback objects have a handful of keys: comparing with each is cheaper than hashing.
            let isDuplicate: Bool
            if members.count < 16 {
                isDuplicate = members.contains { $0.key == key }
            } else {
                if seen.isEmpty { seen = Set(members.map(\.key)) }
                isDuplicate = !seen.insert(key).inserted
            }
            guard !isDuplicate else {
                throw JSONError(message: "duplicate key in JSON object", offset: keyOffset)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw fail("expected ':' after key in JSON object")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of JSON text in object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(JSONObject(members))
            }
            throw fail("expected ',' or '}' in JSON object")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of JSON text in array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            throw fail("expected ',' or ']' in JSON array")
        }
    }

    mutating func parseNumber() throws(JSONError) -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number in JSON text") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw fail("numbers in JSON must not have leading zeros")
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw fail("invalid fraction in JSON number")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw fail("invalid exponent in JSON number")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func parseString() throws(JSONError) -> String {
        position += 1  // opening quote
        // Most strings have no escape: take their bytes as they are, in one copy.
        var end = position
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                // The input came from a String, so the bytes between quotes are valid UTF-8.
                let text = String(decoding: bytes[position..<end], as: UTF8.self)
                position = end + 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        var output = Array(bytes[position..<end])
        position = end
        while true {
            guard position < bytes.count else { throw fail("unterminated string in JSON text") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                // The input came from a String, so the bytes between escapes are valid UTF-8.
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw fail("unterminated escape in JSON string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    output.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw JSONError(message: "invalid escape in JSON string", offset: position - 2)
                }
            case 0x00..<0x20:
                throw fail("unescaped control character in JSON string")
            default:
                output.append(byte)
                position += 1
            }
        }
    }

    mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("truncated \\u escape in JSON string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape in JSON string")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    mutating func parseUnicodeEscape() throws(JSONError) -> Unicode.Scalar {
        let first = try parseHex4()
        switch first {
        case 0:
            throw fail("\\u0000 is not accepted in JSON strings")
        case 0xD800...0xDBFF:
            guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { throw fail("lone surrogate in JSON string") }
            position += 2
            let second = try parseHex4()
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
}

@inline(__always)
private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}
