package import Foundation
package import Tender

/// A field of a provider's JSON answer that is missing or of the wrong type.
package struct JSONFieldError: Error, Sendable, Hashable {
    /// The field's key.
    package var key: String
    /// What is wrong, to follow "has": "no 'id' text", "a number for 'id' where text was expected".
    package var problem: String

    /// `what` with the problem: "Square's payment has no 'id' text".
    package func describing(_ what: String) -> String { "\(what) has \(problem)" }
}

/// Typed reads of a provider's JSON object: absent and `null` are the same, anything else of the wrong type is an
/// error naming the field.
extension JSONObject {
    /// Non-empty text.
    package func requiredString(_ key: String) throws(JSONFieldError) -> String {
        guard let value = try optionalString(key), !value.isEmpty else {
            throw JSONFieldError(key: key, problem: "no '\(key)' text")
        }
        return value
    }

    /// Text, or `nil` when absent or `null`.
    package func optionalString(_ key: String) throws(JSONFieldError) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?:
            throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where text was expected")
        }
    }

    /// An RFC 3339 timestamp; absent, `null` or empty is `nil`.
    package func optionalTimestamp(_ key: String) throws(JSONFieldError) -> Date? {
        guard let text = try optionalString(key), !text.isEmpty else { return nil }
        guard let date = InternetDate.parseRFC3339(text) else {
            throw JSONFieldError(key: key, problem: "'\(key)' that is not an RFC 3339 timestamp")
        }
        return date
    }

    /// A Boolean, or `nil` when absent or `null`.
    package func optionalBool(_ key: String) throws(JSONFieldError) -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?:
            throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where a Boolean was expected")
        }
    }

    /// An object, or `nil` when absent or `null`.
    package func optionalObject(_ key: String) throws(JSONFieldError) -> JSONObject? {
        switch self[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        case let other?:
            throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where an object was expected")
        }
    }

    /// The objects of an array; absent or `null` is empty.
    package func objects(_ key: String) throws(JSONFieldError) -> [JSONObject] {
        switch self[key] {
        case nil, .null?: return []
        case .array(let values)?:
            var objects: [JSONObject] = []
            for value in values {
                guard let object = value.objectValue else {
                    throw JSONFieldError(key: key, problem: "a '\(key)' list with \(value.typeName) in it")
                }
                objects.append(object)
            }
            return objects
        case let other?:
            throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where an array was expected")
        }
    }

    /// The strings of an array; absent or `null` is empty.
    package func strings(_ key: String) throws(JSONFieldError) -> [String] {
        switch self[key] {
        case nil, .null?: return []
        case .array(let values)?:
            var strings: [String] = []
            for value in values {
                guard let string = value.stringValue else {
                    throw JSONFieldError(key: key, problem: "a '\(key)' list with \(value.typeName) in it")
                }
                strings.append(string)
            }
            return strings
        case let other?:
            throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where an array was expected")
        }
    }
}
