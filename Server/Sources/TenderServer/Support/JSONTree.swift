import Foundation

/// Any JSON value, read with `JSONDecoder` and written back with `JSONEncoder`: how the ledger keeps what a device
/// sent (a payment's snapshot, a verification's evidence) whole, whatever members it has.
///
/// Objects keep their members; the text written back has its keys sorted, and numbers that are integers stay integers.
public enum JSONTree: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number that is an integer.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONTree])
    /// An object.
    case object([String: JSONTree])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        // The decoder cannot say a value's type, only refuse the wrong one: try the commonest first (a payment's
        // members are mostly strings and nulls), which keeps the refusals, each a thrown error, few.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    /// Encodes the value as it was read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as compact JSON text with sorted keys.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a tree read from JSON cannot fail: it holds only JSON's own values (finite numbers).
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads JSON text (as stored by the ledger).
    public init(text: String) throws {
        self = try JSONDecoder().decode(JSONTree.self, from: Data(text.utf8))
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONTree? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
