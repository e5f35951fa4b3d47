import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// Tokens never show themselves (SEC-8).
@Suite("Square secrets stay hidden (SEC-8)")
struct SquareSecretsTests {
    static let secret = "EAAAsecret-that-must-never-print-0123456789"

    /// Every way Swift shows a value.
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var mirrored = ""
        for child in Mirror(reflecting: value).children { mirrored += "\(child.label ?? ""): \(child.value)\n" }
        return [String(describing: value), String(reflecting: value), "\(value)", dumped, mirrored]
    }

    @Test("tokens and secrets print as redacted, however they are printed")
    func redacted() {
        let values: [(Any, String)] = [
            (SquareAccessToken(Self.secret), "SquareAccessToken(redacted)"),
            (SquareRefreshToken(Self.secret), "SquareRefreshToken(redacted)"),
            (SquareApplicationSecret(Self.secret), "SquareApplicationSecret(redacted)"),
            (SumUpAccessToken(Self.secret), "SumUpAccessToken(redacted)"),
        ]
        for (value, expected) in values {
            #expect(String(describing: value) == expected)
            #expect(String(reflecting: value) == expected)
            for rendering in Self.renderings(of: value) {
                #expect(!rendering.contains(Self.secret))
            }
        }
        #expect(SquareAccessToken(Self.secret).withSecret { $0 } == Self.secret)
        #expect(SquareAccessToken("").isEmpty)
    }

    @Test("values that hold tokens print without them: grants, credentials, optionals, arrays")
    func containers() {
        let location = SquareLocation(id: "L1", name: "Café", currency: .usd, country: "US")
        let authorization = SquareAuthorization(
            location: location,
            merchantID: "M1",
            clientID: "sq0idp-x",
            scopes: [.paymentsWrite],
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000),
            issuedAt: Date(timeIntervalSince1970: 1_797_408_000)
        )
        let credentials = SquareCredentials(
            accessToken: SquareAccessToken(Self.secret),
            refreshToken: SquareRefreshToken(Self.secret + "-refresh"),
            authorization: authorization
        )
        let grant = SquareTokenGrant(
            accessToken: SquareAccessToken(Self.secret),
            expiresAt: nil,
            merchantID: "M1",
            refreshToken: SquareRefreshToken(Self.secret)
        )
        let values: [Any] = [
            credentials, grant, [credentials], Optional(grant) as Any, ["token": SquareAccessToken(Self.secret)],
        ]
        for value in values {
            for rendering in Self.renderings(of: value) {
                #expect(!rendering.contains(Self.secret), "\(type(of: value))")
            }
        }
    }

    @Test("the storage representation is the one place the tokens are written, and it round-trips")
    func storage() throws {
        let location = SquareLocation(
            id: "L1",
            name: "Café \"Zoë\"",
            currency: .jpy,
            country: "JP",
            mcc: "5812",
            merchantID: "M1",
            capabilities: [.creditCardProcessing, .automaticTransfers]
        )
        let credentials = SquareCredentials(
            accessToken: SquareAccessToken(Self.secret),
            refreshToken: nil,
            authorization: SquareAuthorization(
                location: location,
                merchantID: "M1",
                clientID: nil,
                scopes: SquareOAuthScope.required.sorted(),
                expiresAt: nil,
                issuedAt: Date(timeIntervalSince1970: 1_797_408_000)
            )
        )
        let data = credentials.storageRepresentation()
        #expect(String(decoding: data, as: UTF8.self).contains(Self.secret))
        #expect(try SquareCredentials(storageRepresentation: data) == credentials)
        for bad in ["", "[]", "{\"version\":2}", "{\"version\":1}", "{\"version\":1,\"access_token\":\"x\"}"] {
            #expect(throws: SquareAuthorizationError.self) {
                try SquareCredentials(storageRepresentation: Data(bad.utf8))
            }
        }
    }
}
