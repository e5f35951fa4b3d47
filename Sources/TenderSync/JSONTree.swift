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

    /// The value as compact JSON text with sorted keys (by their UTF-8 bytes), slashes unescaped: what the ledger
    /// stores of a device's object, written at every change of every payment a device syncs.
    ///
    /// Written here rather than by `JSONEncoder`, which costs as much as reading the batch did: a tree read from JSON
    /// holds only JSON's own values, so writing it back is a walk with one rule per case. Strings escape `"`, `\\`
    /// and the control characters below U+0020, as RFC 8259 requires, and nothing else.
    public var text: String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .null: output += "null".utf8
        case .bool(let value): output += (value ? "true" : "false").utf8
        case .integer(let value): output += String(value).utf8
        // A tree read from JSON holds finite numbers only; `description` writes the shortest text that reads back
        // to the same value (`1e-07`, `0.5`), which is JSON.
        case .number(let value): output += (value.isFinite ? value.description : "null").utf8
        case .string(let value): Self.write(string: value, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: key, into: &output)
                output.append(UInt8(ascii: ":"))
                members[key]?.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func write(string: String, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0x08: output += #"\b"#.utf8
            case 0x0C: output += #"\f"#.utf8
            case 0x00..<0x20:
                output += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
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
