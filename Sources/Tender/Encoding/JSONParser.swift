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
        try parse(bytes: Array(text.utf8), limits: limits)
    }

    /// Parses JSON text given as its UTF-8 bytes, which must be valid UTF-8 (the decoder of a query value checks it);
    /// see ``parse(_:limits:)``.
    package static func parse(bytes: [UInt8], limits: JSONLimits = .callback) throws(JSONError) -> JSONValue {
        let document = try JSONDocument(bytes: bytes, limits: limits)
        return document.value(at: document.root)
    }
}

/// JSON text read strictly (RFC 8259) into a flat list of its values, in order: Tender's one JSON reader.
///
/// Every rule is checked here, once, whatever reads the document next: ``JSONValue/parse(_:limits:)`` makes a tree of
/// it, and the callback parsers look their members up by key, on the bytes, making a `String` only of what they keep.
/// It refuses what Foundation lets through: duplicate object keys, trailing commas, leading zeros, unescaped control
/// characters, invalid escapes, lone surrogates, `\u0000`, anything after the value, and input beyond its limits.
package struct JSONDocument: Sendable {
    /// What a value is.
    package enum Kind: Sendable {
        case object, array, string, number, `true`, `false`, null
    }

    /// One value: an object or array is followed by its members' keys and values, or its elements, in order.
    package struct Node: Sendable {
        /// What the value is.
        package let kind: Kind
        /// Its text: a string's bytes between the quotes (escapes as written), a number's digits.
        let text: Range<Int>
        /// Whether a string holds an escape, so that its bytes are not its text.
        let isEscaped: Bool
        /// The index of the node after this value and everything in it.
        fileprivate(set) var next: Int
    }

    /// The JSON text.
    package let bytes: [UInt8]
    /// The values, in the order they appear.
    package private(set) var nodes: [Node] = []
    /// The index of the outermost value.
    package let root = 0

    /// Reads JSON text given as its UTF-8 bytes, which must be valid UTF-8 (a `String`'s, or a decoded query value,
    /// which the decoder checks).
    /// - Throws: ``JSONError`` naming the first problem and its offset, never the text.
    package init(bytes: [UInt8], limits: JSONLimits = .callback) throws(JSONError) {
        self.bytes = bytes
        guard bytes.count <= limits.maximumBytes else {
            throw JSONError(message: "JSON text is larger than \(limits.maximumBytes) bytes", offset: 0)
        }
        var reader = Reader(bytes: bytes, maximumDepth: limits.maximumDepth)
        reader.skipWhitespace()
        try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.position == bytes.count else {
            throw JSONError(message: "unexpected text after the JSON value", offset: reader.position)
        }
        nodes = reader.nodes
    }

    // MARK: Reading a document

    /// The members of the object at `index`: each key's node and its value's node, in order.
    package func members(of index: Int) -> [(key: Int, value: Int)] {
        guard nodes[index].kind == .object else { return [] }
        var members: [(key: Int, value: Int)] = []
        var child = index + 1
        while child < nodes[index].next {
            members.append((child, child + 1))
            child = nodes[child + 1].next
        }
        return members
    }

    /// Calls `body` with each member of the object at `index`, in order: its key's node and its value's node.
    package func forEachMember(of index: Int, _ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        guard nodes[index].kind == .object else { return }
        var child = index + 1
        while child < nodes[index].next {
            try body(child, child + 1)
            child = nodes[child + 1].next
        }
    }

    /// How many members the object at `index` has.
    package func memberCount(of index: Int) -> Int {
        var count = 0
        forEachMember(of: index) { _, _ in count += 1 }
        return count
    }

    /// The elements of the array at `index`, in order.
    package func elements(of index: Int) -> [Int] {
        guard nodes[index].kind == .array else { return [] }
        var elements: [Int] = []
        var child = index + 1
        while child < nodes[index].next {
            elements.append(child)
            child = nodes[child].next
        }
        return elements
    }

    /// The value of the member `key` of the object at `index`, or `nil` when it has none (or is no object).
    package func value(forKey key: WireName, in index: Int) -> Int? {
        guard nodes[index].kind == .object else { return nil }
        var child = index + 1
        while child < nodes[index].next {
            let keyNode = nodes[child]
            if keyNode.isEscaped ? key.matches(ArraySlice(decodedString(keyNode))) : key.matches(bytes, keyNode.text) {
                return child + 1
            }
            child = nodes[child + 1].next
        }
        return nil
    }

    /// The text of the string at `index`, or `nil` when it is no string.
    package func string(at index: Int) -> String? {
        let node = nodes[index]
        guard node.kind == .string else { return nil }
        // Valid UTF-8: the document's bytes are, and escapes decode to whole scalars.
        return node.isEscaped
            ? String(decoding: decodedString(node), as: UTF8.self) : String(decoding: bytes[node.text], as: UTF8.self)
    }

    /// The text of the number at `index`, or `nil` when it is no number.
    package func number(at index: Int) -> String? {
        let node = nodes[index]
        return node.kind == .number ? String(decoding: bytes[node.text], as: UTF8.self) : nil
    }

    /// The value at `index` as a ``JSONValue`` tree.
    package func value(at index: Int) -> JSONValue {
        switch nodes[index].kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(number(at: index) ?? "")
        case .string: return .string(string(at: index) ?? "")
        case .array: return .array(elements(of: index).map { value(at: $0) })
        case .object:
            return .object(
                JSONObject(
                    members(of: index).map {
                        JSONObject.Member(key: string(at: $0.key) ?? "", value: value(at: $0.value))
                    }
                )
            )
        }
    }

    /// A short name of the type of the value at `index`, for error messages.
    package func typeName(at index: Int) -> String {
        switch nodes[index].kind {
        case .null: "null"
        case .true, .false: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The decoded bytes of a string with escapes (checked when the document was read).
    private func decodedString(_ node: Node) -> [UInt8] {
        Reader.decodedString(node, in: bytes)
    }

    // MARK: The rules

    /// A forward reader of the JSON grammar: the one place that decides what is JSON.
    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0
        /// The values read so far.
        var nodes: [Node] = []
        /// Whether ``string()`` appends a string's decoded bytes to ``decoded``.
        var decoding = false
        /// The decoded bytes of the strings read while ``decoding``.
        var decoded: [UInt8] = []

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            // A value takes at least two bytes but for a digit: room for the usual text, without growing.
            nodes.reserveCapacity(min(bytes.count / 4 + 4, 1024))
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

        /// Reads one value and appends its nodes.
        mutating func value(depth: Int) throws(JSONError) {
            guard position < bytes.count else { throw fail("unexpected end of JSON text") }
            switch bytes[position] {
            case UInt8(ascii: "{"): try object(depth: depth + 1)
            case UInt8(ascii: "["): try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                let start = position + 1
                let isEscaped = try string()
                nodes.append(
                    Node(kind: .string, text: start..<(position - 1), isEscaped: isEscaped, next: nodes.count + 1)
                )
            case UInt8(ascii: "t"): try literal("true", .true)
            case UInt8(ascii: "f"): try literal("false", .false)
            case UInt8(ascii: "n"): try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = position
                try number()
                nodes.append(Node(kind: .number, text: start..<position, isEscaped: false, next: nodes.count + 1))
            default:
                throw fail("unexpected character in JSON text")
            }
        }

        mutating func literal(_ literal: String, _ kind: Kind) throws(JSONError) {
            let expected = literal.utf8
            guard bytes.count - position >= expected.count else { throw fail("unexpected end of JSON text") }
            guard bytes[position..<(position + expected.count)].elementsEqual(expected) else {
                throw fail("invalid literal in JSON text")
            }
            nodes.append(Node(kind: kind, text: position..<position, isEscaped: false, next: nodes.count + 1))
            position += expected.count
        }

        mutating func object(depth: Int) throws(JSONError) {
            guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
            let index = nodes.count
            nodes.append(Node(kind: .object, text: position..<position, isEscaped: false, next: 0))
            position += 1  // {
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                nodes[index].next = nodes.count
                return
            }
            // The duplicate check: a callback's objects have a handful of keys, and comparing with each earlier one
            // (found through the nodes) costs less than hashing; beyond 16, a set of their texts.
            var keyCount = 0
            var keySet: Set<String> = []
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a string key in JSON object")
                }
                let keyOffset = position
                try value(depth: depth)
                let key = nodes.count - 1
                let isDuplicate: Bool
                if keyCount < 16 {
                    var earlier = index + 1
                    var found = false
                    while earlier < key, !found {
                        found = isSameKey(earlier, key)
                        earlier = nodes[earlier + 1].next
                    }
                    isDuplicate = found
                } else {
                    if keySet.isEmpty {
                        var earlier = index + 1
                        while earlier < key {
                            keySet.insert(text(nodes[earlier]))
                            earlier = nodes[earlier + 1].next
                        }
                    }
                    isDuplicate = !keySet.insert(text(nodes[key])).inserted
                }
                keyCount += 1
                if isDuplicate {
                    throw JSONError(message: "duplicate key in JSON object", offset: keyOffset)
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after key in JSON object")
                }
                position += 1
                skipWhitespace()
                try value(depth: depth)
                if try closes(index, "}", "object") { return }
            }
        }

        /// After a container's member or element: `false` at `,` (another follows), `true` at `closing`, where the
        /// container at `index` ends; anything else is an error that names `container`.
        mutating func closes(_ index: Int, _ closing: Unicode.Scalar, _ container: String) throws(JSONError) -> Bool {
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of JSON text in \(container)") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                return false
            case UInt8(ascii: closing):
                position += 1
                nodes[index].next = nodes.count
                return true
            default:
                throw fail("expected ',' or '\(closing)' in JSON \(container)")
            }
        }

        /// Whether two keys are the same key: the same `String`s, compared as Swift compares them (canonical
        /// equivalence); on their bytes when both are ASCII without escapes, where that is the same.
        func isSameKey(_ first: Int, _ second: Int) -> Bool {
            let (a, b) = (nodes[first], nodes[second])
            let (left, right) = (bytes[a.text], bytes[b.text])
            // Two different ASCII characters first: no text that starts so is canonically equivalent to the other
            // (combining marks never move before their base), whatever follows.
            if !a.isEscaped, !b.isEscaped, let l = left.first, let r = right.first, l < 0x80, r < 0x80, l != r {
                return false
            }
            if !a.isEscaped, !b.isEscaped, left.allSatisfy({ $0 < 0x80 }), right.allSatisfy({ $0 < 0x80 }) {
                return left.elementsEqual(right)
            }
            return text(a) == text(b)
        }

        /// The text of a string node.
        func text(_ node: Node) -> String {
            guard node.isEscaped else { return String(decoding: bytes[node.text], as: UTF8.self) }
            return String(decoding: Reader.decodedString(node, in: bytes), as: UTF8.self)
        }

        /// The decoded bytes of a string with escapes, read again (it was checked when it was first read).
        static func decodedString(_ node: Node, in bytes: [UInt8]) -> [UInt8] {
            var reader = Reader(bytes: bytes, maximumDepth: 0)
            reader.position = node.text.lowerBound - 1
            reader.decoding = true
            _ = try? reader.string()
            return reader.decoded
        }

        mutating func array(depth: Int) throws(JSONError) {
            guard depth <= maximumDepth else { throw fail("JSON nesting is deeper than \(maximumDepth) levels") }
            let index = nodes.count
            nodes.append(Node(kind: .array, text: position..<position, isEscaped: false, next: 0))
            position += 1  // [
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                nodes[index].next = nodes.count
                return
            }
            while true {
                skipWhitespace()
                try value(depth: depth)
                if try closes(index, "]", "array") { return }
            }
        }

        mutating func number() throws(JSONError) {
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number in JSON text") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if position < bytes.count, isDigit(bytes[position]) {
                    throw fail("numbers in JSON must not have leading zeros")
                }
            } else {
                skipDigits()
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw fail("invalid fraction in JSON number")
                }
                skipDigits()
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count,
                    bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw fail("invalid exponent in JSON number")
                }
                skipDigits()
            }
        }

        mutating func skipDigits() {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }

        /// Reads a string from its opening quote to just after its closing one: whether it holds an escape. While
        /// ``decoding``, appends its decoded bytes to ``decoded``.
        mutating func string() throws(JSONError) -> Bool {
            position += 1  // the opening quote
            var run = position  // the first byte not yet copied to the output
            var isEscaped = false
            while true {
                guard position < bytes.count else { throw fail("unterminated string in JSON text") }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    if decoding { decoded.append(contentsOf: bytes[run..<position]) }
                    position += 1
                    return isEscaped
                case UInt8(ascii: "\\"):
                    isEscaped = true
                    if decoding { decoded.append(contentsOf: bytes[run..<position]) }
                    position += 1
                    guard position < bytes.count else { throw fail("unterminated escape in JSON string") }
                    let escape = bytes[position]
                    position += 1
                    let byte: UInt8
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte = escape
                    case UInt8(ascii: "b"): byte = 0x08
                    case UInt8(ascii: "f"): byte = 0x0C
                    case UInt8(ascii: "n"): byte = 0x0A
                    case UInt8(ascii: "r"): byte = 0x0D
                    case UInt8(ascii: "t"): byte = 0x09
                    case UInt8(ascii: "u"):
                        let scalar = try unicodeEscape()
                        if decoding { UTF8.encode(scalar) { self.decoded.append($0) } }
                        run = position
                        continue
                    default:
                        throw JSONError(message: "invalid escape in JSON string", offset: position - 2)
                    }
                    if decoding { decoded.append(byte) }
                    run = position
                case 0x00..<0x20:
                    throw fail("unescaped control character in JSON string")
                default:
                    position += 1
                }
            }
        }

        mutating func hex4() throws(JSONError) -> UInt32 {
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

        mutating func unicodeEscape() throws(JSONError) -> Unicode.Scalar {
            let first = try hex4()
            switch first {
            case 0:
                throw fail("\\u0000 is not accepted in JSON strings")
            case 0xD800...0xDBFF:
                guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw fail("lone surrogate in JSON string") }
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
    }
}

@inline(__always)
private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}
