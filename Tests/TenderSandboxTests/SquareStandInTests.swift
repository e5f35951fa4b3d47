import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// Where the Square stand-in was found to differ from Square by driving it with Square's official Python SDK, each
/// now as Square documents it (issue 22).
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square stand-in: as Square answers", .serialized)
struct SquareStandInTests {
    typealias Seller = SellerSandbox

    static let endpoints: [(String, String, String?)] = [
        ("POST", "/oauth2/token/status", nil),
        ("GET", "/v2/locations", nil),
        ("GET", "/v2/locations/main", nil),
        ("GET", "/v2/orders/NOPE", nil),
        ("POST", "/v2/orders/batch-retrieve", #"{"order_ids": ["NOPE"]}"#),
        ("GET", "/v2/payments/NOPE", nil),
        ("GET", "/v2/payments", nil),
        ("GET", "/v2/customers", nil),
    ]

    @Test("every answer carries Square-Version: the request's, or the pinned one when it names none")
    func squareVersionHeader() async throws {
        try await Seller.run { seller in
            for (method, path, body) in Self.endpoints {
                let named = try await seller.square(method, path, squareVersion: "2024-01-18", json: body)
                #expect(named.header("Square-Version") == "2024-01-18", "\(method) \(path)")
                let unnamed = try await seller.square(method, path, squareVersion: nil, json: body)
                #expect(
                    unnamed.header("Square-Version") == SquareConnectClient.defaultSquareVersion,
                    "\(method) \(path)"
                )
            }
            // Errors too: an unknown token.
            let refused = try await seller.square(
                "GET",
                "/v2/payments",
                bearer: "EAAAunknown",
                squareVersion: "2025-01-23"
            )
            #expect(refused.status == 401)
            #expect(refused.header("Square-Version") == "2025-01-23")
        }
    }

    @Test(
        "a Square-Version that is not a YYYY-MM-DD date gets 400 INVALID_SQUARE_VERSION_FORMAT",
        arguments: ["2026-13-01", "2026-02-30", "2026-9-16", "20260916", "latest", "2026-09-16T00:00:00Z", "9999"]
    )
    func invalidSquareVersion(version: String) async throws {
        try await Seller.run { seller in
            for (method, path, body) in Self.endpoints {
                let answer = try await seller.square(method, path, squareVersion: version, json: body)
                #expect(answer.status == 400, "\(method) \(path): \(answer)")
                #expect(answer.squareError.category == "INVALID_REQUEST_ERROR")
                #expect(answer.squareError.code == "INVALID_SQUARE_VERSION_FORMAT")
                #expect(answer.header("Square-Version") == SquareConnectClient.defaultSquareVersion)
            }
        }
    }

    @Test("RetrieveLocation takes main; ListLocations gives the same Location object as RetrieveLocation")
    func mainAndSameLocation() async throws {
        try await Seller.run { seller in
            // A second location, registered later: not the main one.
            await seller.square.register(
                SquareLocation(
                    id: "LAAAFIRSTBYNAME",
                    name: "Later",
                    currency: .usd,
                    country: "US",
                    merchantID: SquareConnectSandbox.Configuration.sellerMerchantID
                )
            )
            let main = try await seller.square("GET", "/v2/locations/main")
            #expect(main.status == 200)
            #expect(main.string("location.id") == Seller.locationID)
            let byID = try await seller.square("GET", "/v2/locations/\(Seller.locationID)")
            #expect(byID.value("location") == main.value("location"))
            let list = try await seller.square("GET", "/v2/locations")
            #expect(list.array("locations").count == 2)
            #expect(list.value("locations.0") == byID.value("location"), "the same object, key for key")
            #expect(list.string("locations.0.business_name") == "Tender Sandbox Café")
            let later = try await seller.square("GET", "/v2/locations/LAAAFIRSTBYNAME")
            #expect(list.value("locations.1") == later.value("location"))
            // main is the token's seller's: another seller has none here.
            await seller.square.register(
                SquareConnectSandbox.AccessToken(
                    "EAAAlocationless-seller",
                    merchantID: "MLNOLOCATION",
                    clientID: SquareConnectSandbox.Configuration.sellerClientID,
                    expiresAt: nil
                )
            )
            #expect(
                try await seller.square("GET", "/v2/locations/main", bearer: "EAAAlocationless-seller").status == 404
            )
        }
    }

    static func refresh(_ seller: SellerSandbox, extra: String) async throws -> RESTProbe.Answer {
        try await seller.square(
            "POST",
            "/oauth2/token",
            bearer: nil,
            json:
                #"{"client_id": "\#(SquareConnectSandbox.Configuration.sellerClientID)", "grant_type": "refresh_token", "refresh_token": "\#(SellerSandbox.refreshToken)"\#(extra)}"#
        )
    }

    @Test("ObtainToken with a refresh token honours scopes (the intersection) and short_lived (24 hours)")
    func refreshScopesAndShortLived() async throws {
        try await Seller.run { seller in
            let before = Date()
            let obtained = try await Self.refresh(
                seller,
                extra: #", "scopes": ["PAYMENTS_READ", "ORDERS_READ", "CUSTOMERS_READ"], "short_lived": true"#
            )
            #expect(obtained.status == 200, "\(obtained)")
            #expect(obtained.value("short_lived") == .bool(true))
            let expiresAt = try #require(obtained.string("expires_at").flatMap(InternetDate.parseRFC3339))
            #expect(abs(expiresAt.timeIntervalSince(before) - 86_400) < 60)
            let token = try #require(obtained.string("access_token"))
            let status = try await seller.square("POST", "/oauth2/token/status", bearer: token)
            // CUSTOMERS_READ was never authorized, so it is not granted.
            #expect(status.array("scopes").compactMap(\.stringValue) == ["ORDERS_READ", "PAYMENTS_READ"])
            #expect(try await seller.square("GET", "/v2/locations", bearer: token).status == 403)
            #expect(try await seller.square("GET", "/v2/payments", bearer: token).status == 200)
            // The refresh token keeps its scopes: the next refresh without `scopes` gets them all, for 30 days.
            let rotated = try #require(obtained.string("refresh_token"))
            let next = try await seller.square(
                "POST",
                "/oauth2/token",
                bearer: nil,
                json:
                    #"{"client_id": "\#(SquareConnectSandbox.Configuration.sellerClientID)", "grant_type": "refresh_token", "refresh_token": "\#(rotated)"}"#
            )
            #expect(next.value("short_lived") == .bool(false))
            let nextExpiry = try #require(next.string("expires_at").flatMap(InternetDate.parseRFC3339))
            #expect(abs(nextExpiry.timeIntervalSince(before) - 30 * 86_400) < 60)
            let nextToken = try #require(next.string("access_token"))
            let full = try await seller.square("POST", "/oauth2/token/status", bearer: nextToken)
            #expect(
                full.array("scopes").compactMap(\.stringValue)
                    == SquareConnectSandbox.Configuration.sellerScopes.map(\.rawValue)
            )
        }
    }

    @Test(
        "ObtainToken refuses a scopes or short_lived of the wrong type with the field",
        arguments: [
            (#", "scopes": "PAYMENTS_READ""#, "EXPECTED_ARRAY", "scopes"),
            (#", "scopes": [1]"#, "EXPECTED_ARRAY", "scopes"),
            (#", "short_lived": "yes""#, "EXPECTED_BOOLEAN", "short_lived"),
        ]
    )
    func refreshBadTypes(extra: String, code: String, field: String) async throws {
        try await Seller.run { seller in
            let answer = try await Self.refresh(seller, extra: extra)
            #expect(answer.status == 400)
            #expect(answer.squareError.code == code)
            #expect(answer.squareError.field == field)
        }
    }

    @Test("RevokeToken with revoke_only_access_token ends that access token alone; the authorization stays")
    func revokeOnlyAccessToken() async throws {
        try await Seller.run { seller in
            let clientID = SquareConnectSandbox.Configuration.sellerClientID
            let secret = SquareConnectSandbox.Configuration.sellerApplicationSecret
            let obtained = try await Self.refresh(seller, extra: "")
            let token = try #require(obtained.string("access_token"))
            let rotated = try #require(obtained.string("refresh_token"))
            let revoke = try await seller.square(
                "POST",
                "/oauth2/revoke",
                bearer: nil,
                headers: ["Authorization": "Client " + secret],
                json: #"{"client_id": "\#(clientID)", "access_token": "\#(token)", "revoke_only_access_token": true}"#
            )
            #expect(revoke.status == 200, "\(revoke)")
            #expect(revoke.value("success") == .bool(true))
            let revoked = try await seller.square("POST", "/oauth2/token/status", bearer: token)
            #expect(revoked.squareError.code == "ACCESS_TOKEN_REVOKED")
            // The seller's other token and the refresh token still work.
            #expect(try await seller.square("POST", "/oauth2/token/status").status == 200)
            let again = try await seller.square(
                "POST",
                "/oauth2/token",
                bearer: nil,
                json: #"{"client_id": "\#(clientID)", "grant_type": "refresh_token", "refresh_token": "\#(rotated)"}"#
            )
            #expect(again.status == 200)

            // Without the flag, RevokeToken ends the whole authorization.
            let againToken = try #require(again.string("access_token"))
            let all = try await seller.square(
                "POST",
                "/oauth2/revoke",
                bearer: nil,
                headers: ["Authorization": "Client " + secret],
                json: #"{"client_id": "\#(clientID)", "access_token": "\#(againToken)"}"#
            )
            #expect(all.status == 200)
            #expect(try await seller.square("POST", "/oauth2/token/status").squareError.code == "ACCESS_TOKEN_REVOKED")

            // The flag needs the access token to end, and a Boolean.
            for (body, code) in [
                (
                    #"{"client_id": "\#(clientID)", "merchant_id": "M", "revoke_only_access_token": true}"#,
                    "MISSING_REQUIRED_PARAMETER"
                ),
                (
                    #"{"client_id": "\#(clientID)", "access_token": "\#(token)", "revoke_only_access_token": "yes"}"#,
                    "EXPECTED_BOOLEAN"
                ),
            ] {
                let answer = try await seller.square(
                    "POST",
                    "/oauth2/revoke",
                    bearer: nil,
                    headers: ["Authorization": "Client " + secret],
                    json: body
                )
                #expect(answer.status == 400)
                #expect(answer.squareError.code == code)
            }
        }
    }
}
