import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

@Suite("Square authorization values")
struct SquareAuthorizationValueTests {
    @Test("the error codes are the SDK's AuthorizationError cases, snake case on the wire (§1)")
    func sdkCodes() {
        let sdkNames = [
            "alreadyAuthorized", "alreadyInProgress", "authorizationCodeAlreadyRedeemed", "deauthorizationInProgress",
            "deviceTimeDoesNotMatchServerTime", "emptyAccessToken", "emptyLocationID", "expiredAuthorizationCode",
            "invalidAccessToken", "invalidLocationID", "invalidAuthorizationCode",
            "locationNotActivatedForCardProcessing", "noNetwork", "unexpected", "unsupportedCountry",
        ]
        #expect(SquareAuthorizationError.Code.sdkCodes.map(\.camelCaseName) == sdkNames)
        #expect(SquareAuthorizationError.Code.invalidAccessToken.rawValue == "invalid_access_token")
        #expect(SquareAuthorizationError.Code.emptyLocationID.rawValue == "empty_location_id")
        #expect(SquareAuthorizationError.Code.noNetwork.rawValue == "no_network")
        #expect(
            SquareAuthorizationError.Code.locationNotActivatedForCardProcessing.rawValue
                == "location_not_activated_for_card_processing"
        )
        for code in SquareAuthorizationError.Code.sdkCodes {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
        }
        do {
            throw SquareAuthorizationError(.noNetwork, "offline")
        } catch SquareAuthorizationError.Code.noNetwork {
            // matched by code
        } catch {
            Issue.record("the ~= pattern did not match")
        }
    }

    static let location = SquareLocation(
        id: "L1",
        name: "Café",
        currency: .usd,
        country: "US",
        merchantID: "M1"
    )
    static let authorization = SquareAuthorization(
        location: location,
        merchantID: "M1",
        clientID: "sq0idp-x",
        scopes: SquareOAuthScope.required.sorted(),
        expiresAt: Date(timeIntervalSince1970: 1_800_000_000),
        issuedAt: Date(timeIntervalSince1970: 1_797_408_000)
    )

    static func request(currency: Currency = .usd, locationID: String? = nil) -> SquareRequest {
        SquareRequest(
            applicationID: "sq0idp-x",
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: 500, currency: currency),
            locationID: locationID.flatMap { SquareLocationID($0) }
        )
    }

    @Test("prepare fills location_id of the request's dialect, keeps a matching one, refuses others")
    func prepare() throws {
        let filled = try Self.authorization.prepare(Self.request())
        #expect(filled.locationID?.rawValue == "L1")
        #expect(try filled.urlString().contains("location_id"))
        var old = Self.request()
        old.dialect = .registerSDK2_0
        #expect(try Self.authorization.prepare(old).urlString().contains("merchant_id"))
        #expect(try Self.authorization.prepare(Self.request(locationID: "L1")) == filled)
        #expect(try Self.authorization.prepare(Self.request(locationID: "")).locationID?.rawValue == "L1")
        #expect(throws: SquareAuthorizationError.self) {
            try Self.authorization.prepare(Self.request(locationID: "L2"))
        }
        do {
            _ = try Self.authorization.prepare(Self.request(currency: .jpy))
            Issue.record("a JPY request at a USD location was accepted")
        } catch let error as SquareAuthorizationError {
            #expect(error.code == .currencyMismatch)
            #expect(error.message.contains("JPY") && error.message.contains("USD"))
        }
    }

    @Test(
        "the 7-day refresh policy: by age, by time left, never for tokens that never expire (§1)",
        arguments: [
            (0.0, 30.0, false), (6.9, 30.0, false), (7.1, 30.0, true), (0.0, 6.0, true), (0.0, 8.0, false),
            (29.0, 30.0, true),
        ]
    )
    func refreshPolicy(ageDays: Double, lifetimeDays: Double, expected: Bool) {
        let issued = Date(timeIntervalSince1970: 1_797_408_000)
        let now = issued.addingTimeInterval(ageDays * 86_400)
        let expires = issued.addingTimeInterval(lifetimeDays * 86_400)
        #expect(SquareRefreshPolicy.default.needsRefresh(issuedAt: issued, expiresAt: expires, at: now) == expected)
        #expect(!SquareRefreshPolicy.default.needsRefresh(issuedAt: issued, expiresAt: nil, at: now))
    }

    @Test("Square's official answer shapes parse (§2)")
    func answerShapes() throws {
        let status = try SquareTokenStatus(
            squareJSON: try #require(
                try JSONValue.parse(
                    #"{"scopes":["PAYMENTS_WRITE","PAYMENTS_WRITE_IN_PERSON","MERCHANT_PROFILE_READ","ORDERS_READ"],"expires_at":"2026-12-20T22:03:46Z","client_id":"sq0idp-uaPHILoPzWZk3tlJqlML0g","merchant_id":"MLQW4MN8KY6ZD"}"#
                ).objectValue
            )
        )
        #expect(status.missingScopes().isEmpty)
        #expect(status.scopes.contains(SquareOAuthScope(rawValue: "ORDERS_READ")))
        #expect(status.expiresAt == InternetDate.parseRFC3339("2026-12-20T22:03:46Z"))
        let personal = try SquareTokenStatus(
            squareJSON: try #require(try JSONValue.parse(#"{"scopes":["PAYMENTS_WRITE"],"expires_at":""}"#).objectValue)
        )
        #expect(personal.expiresAt == nil)
        #expect(personal.missingScopes() == [.merchantProfileRead, .paymentsWriteInPerson])

        let grant = try SquareTokenGrant(
            squareJSON: try #require(
                try JSONValue.parse(
                    #"{"access_token":"EAAAEL_EXAMPLE","token_type":"bearer","expires_at":"2024-05-15T19:36:00Z","merchant_id":"ML61OXvVbScCI","refresh_token":"EXAMPLEzRUFx8","short_lived":false}"#
                ).objectValue
            )
        )
        #expect(grant.accessToken == SquareAccessToken("EAAAEL_EXAMPLE"))
        #expect(grant.refreshToken == SquareRefreshToken("EXAMPLEzRUFx8"))
        #expect(grant.merchantID == "ML61OXvVbScCI")

        let location = try SquareLocation(
            squareJSON: try #require(
                try JSONValue.parse(
                    #"{"id":"L88917AVBK2S5","name":"Main St","status":"ACTIVE","currency":"USD","country":"US","mcc":"5812","merchant_id":"MLQW4","capabilities":["CREDIT_CARD_PROCESSING","AUTOMATIC_TRANSFERS"],"timezone":"America/Los_Angeles"}"#
                ).objectValue
            )
        )
        #expect(location.canProcessCards)
        #expect(location.mcc == "5812")
        #expect(try SquareLocation(squareJSON: location.squareJSON) == location)
    }

    @Test(
        "malformed answers are unexpected, not a crash",
        arguments: [
            #"{"scopes":"PAYMENTS_WRITE"}"#, #"{"scopes":[1]}"#, #"{"expires_at":"tomorrow"}"#, #"{"expires_at":5}"#,
        ]
    )
    func malformedStatus(json: String) throws {
        let object = try #require(try JSONValue.parse(json).objectValue)
        #expect(throws: SquareAuthorizationError.self) { try SquareTokenStatus(squareJSON: object) }
    }

    @Test(
        "a location without id, currency or country, or with an unknown currency, is unexpected",
        arguments: [
            #"{"name":"x","status":"ACTIVE","currency":"USD","country":"US"}"#,
            #"{"id":"L","status":"ACTIVE","country":"US"}"#,
            #"{"id":"L","status":"ACTIVE","currency":"XYZ","country":"US"}"#,
            #"{"id":"L","status":"ACTIVE","currency":"USD","country":"US","capabilities":"CARDS"}"#,
        ]
    )
    func malformedLocation(json: String) throws {
        let object = try #require(try JSONValue.parse(json).objectValue)
        #expect(throws: SquareAuthorizationError.self) { try SquareLocation(squareJSON: object) }
    }

    @Test("Square errors keep only identifier codes, never echoed text")
    func errorObjects() throws {
        let object = try #require(
            try JSONValue.parse(
                #"{"errors":[{"category":"AUTHENTICATION_ERROR","code":"Bearer EAAAleak","detail":"x"},{"category":"AUTHENTICATION_ERROR","code":"ACCESS_TOKEN_EXPIRED"}]}"#
            ).objectValue
        )
        #expect(SquareConnectJSON.errors(in: object).map(\.code) == ["ACCESS_TOKEN_EXPIRED"])
    }

    @Test("environments: production, sandbox, and only http(s) base URLs")
    func environments() throws {
        #expect(SquareEnvironment.production.baseURL.absoluteString == "https://connect.squareup.com")
        #expect(SquareEnvironment.sandbox.baseURL.absoluteString == "https://connect.squareupsandbox.com")
        let local = try SquareEnvironment(baseURL: try #require(URL(string: "http://127.0.0.1:8080/square/")))
        #expect(local.url(path: "/oauth2/token")?.absoluteString == "http://127.0.0.1:8080/square/oauth2/token")
        for bad in ["ftp://example.com", "file:///tmp", "https://example.com?x=1", "connect.squareup.com"] {
            #expect(throws: SquareAuthorizationError.self, "\(bad)") {
                try SquareEnvironment(baseURL: try #require(URL(string: bad)))
            }
        }
    }

    @Test("scopes, location statuses and capabilities are Codable as their names (the standard library's Codable)")
    func rawValueCodable() throws {
        let data = try JSONEncoder().encode([SquareOAuthScope.paymentsWrite, SquareOAuthScope(rawValue: "NEW_SCOPE")])
        #expect(String(decoding: data, as: UTF8.self) == #"["PAYMENTS_WRITE","NEW_SCOPE"]"#)
        #expect(
            try JSONDecoder().decode([SquareOAuthScope].self, from: data) == [
                .paymentsWrite, SquareOAuthScope(rawValue: "NEW_SCOPE"),
            ]
        )
        let status = try JSONEncoder().encode(SquareLocation.Status.inactive)
        #expect(String(decoding: status, as: UTF8.self) == #""INACTIVE""#)
        #expect(
            try JSONDecoder().decode(SquareLocation.Capability.self, from: Data(#""AUTOMATIC_TRANSFERS""#.utf8))
                == .automaticTransfers
        )
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SquareLocation.Status.self, from: Data("7".utf8))
        }
    }
}
