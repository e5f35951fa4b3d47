/// A JSON value that keeps object member order and number text exactly as written.
///
/// Tender reads JSON from outside with its own strict parser (see ``JSONValue/parse(_:limits:)``) because
/// Foundation's readers accept duplicate keys, trailing commas and `\u0000` (SEC-6), and writes it with
/// ``JSONValue/serialized(escapingSlashes:)``, which reproduces `NSJSONSerialization`'s bytes for a given
/// member order.
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text (validated against RFC 8259's grammar when parsed).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
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
