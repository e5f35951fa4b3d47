/// A JSON value that keeps object member order and number text exactly as written.
///
/// Tender reads JSON from outside with its own strict parser (see ``JSONValue/parse(_:limits:)``) because
/// Foundation's readers accept duplicate keys, trailing commas and `\u0000` (SEC-6), and writes it with
/// ``JSONValue/serialized(escapingSlashes:)``, which reproduces `NSJSONSerialization`'s bytes for a given
/// member order.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its literal text (validated against RFC 8259's grammar when parsed).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// An integer number.
    package static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// The string, if this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, if this is `true` or `false`.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, if this is an object.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The integer, if this is a number written as an integer (no fraction or exponent) that fits in `Int`.
    package var integerValue: Int? {
        guard case .number(let text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return nil
        }
        return Int(text)
    }

    /// A short name of the value's type, for error messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object whose members keep their order. Keys are unique when it comes from the strict parser.
package struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    package struct Member: Sendable, Hashable {
        package var key: String
        package var value: JSONValue
    }

    /// The members in order.
    package var members: [Member]

    /// Creates an object from members in order.
    package init(_ members: [Member] = []) {
        self.members = members
    }

    /// Creates an object from `key: value` pairs in the order written.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// The value for a key, or `nil`.
    package subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    package var keys: [String] { members.map(\.key) }

    /// The same members reordered: keys listed in `order` first (in that order), the rest after, as they were.
    package func reordered(_ order: [String]) -> JSONObject {
        var remaining = members
        var result: [Member] = []
        for key in order {
            if let index = remaining.firstIndex(where: { $0.key == key }) {
                result.append(remaining.remove(at: index))
            }
        }
        return JSONObject(result + remaining)
    }
}
