import Foundation
import Testing

@testable import Tender

/// The one rule for Square's IDs (``SquareIDRule``), which the callback parser, ``SquareLocationID`` and the request
/// decoder share (issue 33: `SquareResponse` once allowed `_-.:`, the verifier's rule `-_`).
@Suite("Square IDs: one rule")
struct SquareIDRuleTests {
    /// IDs Square issues and the SDK's vectors use (square §2.3, §8: `TRANSACTION_ID`, `location-id`, `abc123`;
    /// a base-62 order ID, a location ID, a UUID `client_transaction_id`), and one of `api.json`'s 192 characters.
    static let squareIDs = [
        "TRANSACTION_ID", "CLIENT_ID", "location-id", "abc123", "zXypXgXhWmbuoCGLzxQiqkDEVP9ZT", "L88917AVBK2S5",
        "12345678-1234-1234-1234-123456789012", String(repeating: "a", count: 192),
    ]
    /// What no Square ID holds: `.` and `:` (nothing Square issues has them, and `.` or `..` would not be one URL
    /// path segment for the verifier), spaces and other punctuation, non-ASCII, more than 192 characters, a card
    /// number (SEC-9), nothing at all.
    static let notSquareIDs = [
        "T1:2.3", "a.b", "..", "ccof:card", "a b", "<script>", "é", String(repeating: "a", count: 193),
        "4111111111111111", "TX-4111-1111-1111-1111", "",
    ]

    @Test("a Square ID is 1 to 192 ASCII letters, digits, '-' or '_', and no card number (square §2.3, §8; api.json)")
    func rule() {
        for id in Self.squareIDs { #expect(SquareIDRule.isValid(id), "\(id)") }
        for text in Self.notSquareIDs { #expect(!SquareIDRule.isValid(text), "\(text)") }
    }

    @Test("the callback parser, SquareLocationID and the request decoder take exactly the IDs the rule takes")
    func oneRuleEverywhere() throws {
        for text in Self.squareIDs + Self.notSquareIDs where !text.isEmpty {
            let valid = SquareIDRule.isValid(text)
            #expect((SquareLocationID(text) != nil) == valid, "\(text)")
            for key in ["transaction_id", "client_transaction_id"] {
                let data = JSONValue.object(["status": .string("ok"), key: .string(text)])
                let url = "my-app://cb?data=" + PercentEncoding.encode(data.serialized())
                #expect(((try? SquareResponse(callbackURLString: url)) != nil) == valid, "\(key) \(text)")
            }
            var request = SquareRequest(
                applicationID: "sq0idp-x",
                callbackURL: try #require(URL(string: "my-app://done")),
                amount: Money(minorUnits: 100, currency: .usd)
            )
            var payload = try SquareRequest.payloadObject(urlString: try request.urlString())
            payload["location_id"] = .string(text)
            #expect(((try? SquareRequest(payload: payload)) != nil) == valid, "location_id \(text)")
            request.locationID = SquareLocationID(text)
            #expect(request.locationID?.rawValue == (valid ? text : nil))
        }
    }

    @Test("a location ID read from JSON is checked as it is made")
    func codable() throws {
        let decoded = try JSONDecoder().decode([SquareLocationID].self, from: Data(#"["L1"]"#.utf8))
        #expect(decoded.map(\.rawValue) == ["L1"])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([SquareLocationID].self, from: Data(#"["L 1"]"#.utf8))
        }
    }
}
