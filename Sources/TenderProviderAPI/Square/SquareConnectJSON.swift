package import Foundation
package import Tender

/// Reading and writing the JSON of Square's REST API (Square Connect), shared by the client and the sandbox.
package enum SquareConnectJSON {
    /// Square answers are small; 1 MiB and 32 levels leave room without letting a bad server hurt us.
    package static let limits = JSONLimits(maximumBytes: 1024 * 1024, maximumDepth: 32)

    /// One object of Square's error list: `{"category", "code", "detail", "field"}`.
    package struct ErrorObject: Sendable, Hashable {
        package var category: String
        package var code: String
        package var detail: String?
        package var field: String?

        package init(category: String, code: String, detail: String? = nil, field: String? = nil) {
            self.category = category
            self.code = code
            self.detail = detail
            self.field = field
        }

        /// The error as Square writes it.
        package var json: JSONValue {
            var object: JSONObject = ["category": .string(category), "code": .string(code)]
            object["detail"] = detail.map(JSONValue.string)
            object["field"] = field.map(JSONValue.string)
            return .object(object)
        }
    }

    /// The body of every error answer: `{"errors": [ … ]}`.
    package static func errorBody(_ errors: [ErrorObject]) -> String {
        let body: JSONObject = ["errors": .array(errors.map(\.json))]
        return JSONValue.object(body).serialized(escapingSlashes: false)
    }

    /// The errors of an error answer; empty when the body is not Square's error shape. Codes that are not
    /// plain upper-case identifiers are dropped, so nothing a server echoes ends up in an error message.
    package static func errors(in object: JSONObject?) -> [ErrorObject] {
        guard let list = object?["errors"]?.arrayValue else { return [] }
        return list.compactMap { value in
            guard let item = value.objectValue, let code = item["code"]?.stringValue, isIdentifier(code) else {
                return nil
            }
            let category = item["category"]?.stringValue.flatMap { isIdentifier($0) ? $0 : nil } ?? ""
            return ErrorObject(
                category: category,
                code: code,
                detail: item["detail"]?.stringValue,
                field: item["field"]?.stringValue
            )
        }
    }

    /// Whether text is a Square error identifier such as `ACCESS_TOKEN_EXPIRED`.
    package static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    /// Text, or `nil` when absent or `null`.
    package static func optionalString(
        _ object: JSONObject,
        _ key: String,
        in what: String
    ) throws(SquareAuthorizationError) -> String? {
        do {
            return try object.optionalString(key)
        } catch {
            throw SquareAuthorizationError(.unexpected, error.describing("Square's \(what)") + ".")
        }
    }

    /// An RFC 3339 timestamp; absent, `null` or empty is `nil`.
    package static func optionalTimestamp(
        _ object: JSONObject,
        _ key: String,
        in what: String
    ) throws(SquareAuthorizationError) -> Date? {
        do {
            return try object.optionalTimestamp(key)
        } catch {
            throw SquareAuthorizationError(.unexpected, error.describing("Square's \(what)") + ".")
        }
    }
}

extension JSONObject {
    /// Square's `Money` object, `{"amount": 100, "currency": "USD"}`: an integer of minor units and an ISO 4217
    /// code. `nil` when absent or `null`.
    func squareMoney(_ key: String) throws(JSONFieldError) -> Money? {
        guard let money = try optionalObject(key) else { return nil }
        guard let amount = money["amount"]?.integerValue else {
            throw JSONFieldError(key: key, problem: "'\(key)' without an integer amount")
        }
        guard let code = try? money.requiredString("currency"), let currency = try? Currency(code: code) else {
            throw JSONFieldError(key: key, problem: "'\(key)' without an ISO 4217 currency")
        }
        return Money(minorUnits: amount, currency: currency)
    }
}
