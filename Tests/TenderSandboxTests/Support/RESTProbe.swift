import Foundation
import Tender
import Testing

/// Calls a provider stand-in's REST endpoint as a client would and reads its JSON answer.
enum RESTProbe {
    struct Answer: CustomStringConvertible {
        var status: Int
        var response: HTTPProbe.Response
        var object: JSONObject

        func header(_ name: String) -> String? { response.header(name) }

        /// The value at a dotted path, array items by index: `order.tenders.0.id`.
        func value(_ path: String) -> JSONValue? {
            var current: JSONValue? = .object(object)
            for key in path.split(separator: ".") {
                if let index = Int(key), let array = current?.arrayValue {
                    current = array.indices.contains(index) ? array[index] : nil
                } else {
                    current = current?.objectValue?[String(key)]
                }
            }
            return current
        }

        func string(_ path: String) -> String? { value(path)?.stringValue }
        func int(_ path: String) -> Int? { value(path)?.integerValue }
        func array(_ path: String) -> [JSONValue] { value(path)?.arrayValue ?? [] }

        /// Square's first error: `(category, code, detail, field)`.
        var squareError: (category: String?, code: String?, detail: String?, field: String?) {
            (
                string("errors.0.category"), string("errors.0.code"), string("errors.0.detail"),
                string("errors.0.field")
            )
        }

        var description: String { "HTTP \(status): \(response.body)" }
    }

    /// The `Square-Version` these tests send unless told otherwise.
    static let squareVersion = "2026-09-16"

    static func call(
        _ method: String = "GET",
        _ url: String,
        bearer: String? = nil,
        squareVersion: String? = RESTProbe.squareVersion,
        headers: [String: String] = [:],
        json: String? = nil
    ) async throws -> Answer {
        var all = headers
        if let bearer { all["Authorization"] = "Bearer " + bearer }
        if let squareVersion { all["Square-Version"] = squareVersion }
        let response = try await HTTPProbe.send(
            method,
            url,
            contentType: json == nil ? nil : "application/json",
            headers: all,
            body: json
        )
        let limits = JSONLimits(maximumBytes: 1 << 24, maximumDepth: 32)
        let object = (try? JSONValue.parse(response.body, limits: limits))?.objectValue ?? JSONObject()
        return Answer(status: response.status, response: response, object: object)
    }
}
