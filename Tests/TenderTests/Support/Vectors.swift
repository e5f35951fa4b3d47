import Foundation
import Testing

@testable import Tender

/// The vectors of `Fixtures/square-point-of-sale.json` (from the official SDK's tests; spec §8).
struct SquareVector: CustomTestStringConvertible, Sendable {
    let name: String
    let kind: String
    let input: JSONObject
    let expect: JSONObject
    let top: JSONObject

    var testDescription: String { name }

    static let all: [SquareVector] = {
        guard
            let url = Bundle.module.url(
                forResource: "square-point-of-sale",
                withExtension: "json",
                subdirectory: "Fixtures"
            ),
            let data = try? Data(contentsOf: url),
            let json = try? JSONValue.parse(
                String(decoding: data, as: UTF8.self),
                limits: .init(maximumBytes: 1 << 20, maximumDepth: 16)
            ),
            let array = json.arrayValue
        else { return [] }
        return array.compactMap { value in
            guard let object = value.objectValue, let name = object["name"]?.stringValue,
                let kind = object["kind"]?.stringValue, let input = object["input"]?.objectValue,
                let expect = object["expect"]?.objectValue
            else { return nil }
            return SquareVector(name: name, kind: kind, input: input, expect: expect, top: object)
        }
    }()

    static func of(kind: String) -> [SquareVector] { all.filter { $0.kind == kind } }
}

extension JSONValue {
    /// An order-insensitive view for comparing decoded objects (spec §1.2: key order is not defined).
    var unordered: UnorderedJSON {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let text): return .number(text)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(\.unordered))
        case .object(let object):
            var dictionary: [String: UnorderedJSON] = [:]
            for member in object.members { dictionary[member.key] = member.value.unordered }
            return .object(dictionary)
        }
    }
}

indirect enum UnorderedJSON: Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([UnorderedJSON])
    case object([String: UnorderedJSON])

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "\(value)"
        case .number(let text): return text
        case .string(let text): return "\"\(text)\""
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let dictionary):
            return "{" + dictionary.keys.sorted().map { "\"\($0)\":\(dictionary[$0]!)" }.joined(separator: ",") + "}"
        }
    }
}
