import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The REST client against the sandbox over real HTTP on loopback (spec §2).
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square Connect client over HTTP", .serialized)
struct SquareConnectClientTests {
    typealias Harness = SandboxHarness

    @Test("RetrieveTokenStatus sends Square-Version and a bearer token, and reads scopes and expiry (§2)")
    func tokenStatus() async throws {
        try await Harness.run { harness in
            let status = try await harness.client().retrieveTokenStatus(SquareAccessToken(Harness.accessToken))
            #expect(status.scopes == SquareConnectSandbox.Configuration.sellerScopes)
            #expect(status.missingScopes().isEmpty)
            #expect(status.clientID == SquareConnectSandbox.Configuration.sellerClientID)
            #expect(status.merchantID == SquareConnectSandbox.Configuration.sellerMerchantID)
            let expiresAt = try #require(status.expiresAt)
            #expect(expiresAt.timeIntervalSince(harness.clock.now) == 30 * 86_400)
            let request = try #require(await harness.square.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/oauth2/token/status")
            #expect(request.squareVersion == SquareConnectClient.defaultSquareVersion)
            #expect(request.authorizationScheme == "Bearer")
            #expect(request.contentType == "application/json")
            return []
        }
    }

    @Test(
        "a refused token is invalidAccessToken with Square's code (§2 RetrieveTokenStatus 401)",
        arguments: ["unknown", "expired", "revoked"]
    )
    func refusedToken(kind: String) async throws {
        try await Harness.run { harness in
            let token: String
            switch kind {
            case "expired":
                token = "EAAAexpired-token"
                await harness.square.register(
                    SquareConnectSandbox.AccessToken(
                        token,
                        merchantID: "M1",
                        clientID: "C1",
                        expiresAt: harness.clock.now.addingTimeInterval(-1)
                    )
                )
            case "revoked":
                token = Harness.accessToken
                await harness.square.revoke(accessToken: token)
            default:
                token = "EAAAnobody-knows-this-token"
            }
            let error = await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await harness.client().retrieveTokenStatus(SquareAccessToken(token))
            }
            let expected = [
                "unknown": "UNAUTHORIZED", "expired": "ACCESS_TOKEN_EXPIRED", "revoked": "ACCESS_TOKEN_REVOKED",
            ]
            #expect(error?.squareErrorCode == expected[kind])
            #expect(error?.httpStatusCode == 401)
            return [token]
        }
    }

    @Test("RetrieveLocation reads Square's Location object (§2)")
    func location() async throws {
        try await Harness.run { harness in
            let location = try await harness.client()
                .retrieveLocation(Harness.locationID, accessToken: SquareAccessToken(Harness.accessToken))
            #expect(location.id == Harness.locationID)
            #expect(location.name == "Tender Sandbox Café")
            #expect(location.currency == .usd)
            #expect(location.country == "US")
            #expect(location.mcc == "5812")
            #expect(location.status == .active)
            #expect(location.canProcessCards)
            #expect(await harness.square.requests.first?.path == "/v2/locations/\(Harness.locationID)")
            return []
        }
    }

    @Test("an unknown location, or another seller's, is invalidLocationID (§2 RetrieveLocation 404)")
    func unknownLocation() async throws {
        try await Harness.run { harness in
            await harness.square.register(
                SquareLocation(id: "LOTHER", name: "Not yours", currency: .usd, country: "US", merchantID: "MOTHER")
            )
            for id in ["LNOWHERE", "LOTHER", "L with/slash"] {
                let error = await expectAuthorizationError(.invalidLocationID, capture: harness.capture) {
                    try await harness.client().retrieveLocation(id, accessToken: SquareAccessToken(Harness.accessToken))
                }
                #expect(error?.squareErrorCode == "NOT_FOUND")
                #expect(error?.httpStatusCode == 404)
            }
            // The ID is one path segment, percent-encoded: a slash cannot reach another route.
            #expect(await harness.square.requests.last?.path == "/v2/locations/L%20with%2Fslash")
            return []
        }
    }

    @Test("a token without MERCHANT_PROFILE_READ cannot read locations: invalidAccessToken (403 INSUFFICIENT_SCOPES)")
    func insufficientScopes() async throws {
        try await Harness.run { harness in
            let token = "EAAAno-profile-scope"
            await harness.square.register(
                SquareConnectSandbox.AccessToken(
                    token,
                    merchantID: SquareConnectSandbox.Configuration.sellerMerchantID,
                    clientID: "C1",
                    scopes: [.paymentsWrite],
                    expiresAt: nil
                )
            )
            let error = await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await harness.client().retrieveLocation(Harness.locationID, accessToken: SquareAccessToken(token))
            }
            #expect(error?.squareErrorCode == "INSUFFICIENT_SCOPES")
            return [token]
        }
    }

    @Test(
        "5xx, 429 and a captive portal's HTML are unexpected",
        arguments: [
            SquareConnectSandbox.Fault.outage(status: 500), .outage(status: 503), .rateLimited, .captivePortal,
        ]
    )
    func faults(fault: SquareConnectSandbox.Fault) async throws {
        try await Harness.run { harness in
            await harness.square.setFault(fault)
            let error = await expectAuthorizationError(.unexpected, capture: harness.capture) {
                try await harness.client().retrieveTokenStatus(SquareAccessToken(Harness.accessToken))
            }
            switch fault {
            case .outage(let status):
                #expect(error?.httpStatusCode == status)
                #expect(error?.squareErrorCode == (status == 503 ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR"))
            case .rateLimited:
                #expect(error?.httpStatusCode == 429)
            case .captivePortal:
                #expect(error?.httpStatusCode == 200)
            }
            await harness.square.setFault(nil)
            _ = try await harness.client().retrieveTokenStatus(SquareAccessToken(Harness.accessToken))
            return []
        }
    }

    @Test("a closed port is noNetwork (§2: network failures map to noNetwork)")
    func closedPort() async throws {
        let capture = OutputCapture()
        let unreachable = try RefusingPort()
        defer { withExtendedLifetime(unreachable) {} }
        let client = SquareConnectClient(
            environment: try SquareEnvironment(baseURL: unreachable.baseURL),
            timeout: .seconds(10)
        )
        let error = await expectAuthorizationError(.noNetwork, capture: capture) {
            try await client.retrieveTokenStatus(SquareAccessToken("EAAAclosed-port-token"))
        }
        #expect(error?.httpStatusCode == nil)
        capture.expectNoSecrets(["EAAAclosed-port-token"])
    }

    @Test("no answer within the timeout is noNetwork")
    func timeout() async throws {
        try await Harness.run { harness in
            await harness.square.pause()
            await expectAuthorizationError(.noNetwork, capture: harness.capture) {
                try await harness.client(timeout: .seconds(1)).retrieveTokenStatus(
                    SquareAccessToken(Harness.accessToken)
                )
            }
            await harness.square.resume()
            return []
        }
    }

    @Test(
        "a Date header far from the device clock is deviceTimeDoesNotMatchServerTime (§2)",
        arguments: [3600.0, -3600.0, 301.0]
    )
    func clockSkew(offset: TimeInterval) async throws {
        try await Harness.run { harness in
            let clock = harness.clock
            let device = harness.client(now: { clock.now.addingTimeInterval(offset) })
            let error = await expectAuthorizationError(.deviceTimeDoesNotMatchServerTime, capture: harness.capture) {
                try await device.retrieveTokenStatus(SquareAccessToken(Harness.accessToken))
            }
            #expect(error?.message.contains(offset > 0 ? "ahead of" : "behind") == true)
            // Within five minutes the answer is used.
            let close = harness.client(now: { clock.now.addingTimeInterval(offset > 0 ? 299 : -299) })
            _ = try await close.retrieveTokenStatus(SquareAccessToken(Harness.accessToken))
            return []
        }
    }

    @Test("PKCE refresh rotates the refresh token: the old one is refused afterwards (§2 ObtainToken)")
    func refreshRotates() async throws {
        try await Harness.run { harness in
            let client = harness.client()
            let old = SquareRefreshToken(Harness.refreshToken)
            let clientID = SquareConnectSandbox.Configuration.sellerClientID
            let grant = try await client.refreshAccessToken(refreshToken: old, clientID: clientID)
            let newAccess = grant.accessToken.withSecret { $0 }
            let newRefresh = try #require(grant.refreshToken).withSecret { $0 }
            #expect(newAccess != Harness.accessToken)
            #expect(newRefresh != Harness.refreshToken)
            #expect(grant.tokenType == "bearer")
            #expect(grant.merchantID == SquareConnectSandbox.Configuration.sellerMerchantID)
            #expect(grant.expiresAt == harness.clock.now.addingTimeInterval(30 * 86_400).rounded)
            #expect(grant.refreshTokenExpiresAt != nil)
            #expect(!grant.isShortLived)
            harness.capture.record(value: grant)
            #expect(await harness.square.isValid(accessToken: newAccess))

            let error = await expectAuthorizationError(.invalidRefreshToken, capture: harness.capture) {
                try await client.refreshAccessToken(refreshToken: old, clientID: clientID)
            }
            #expect(error?.httpStatusCode == 401)
            // The new one works, once.
            let next = try await client.refreshAccessToken(
                refreshToken: try #require(grant.refreshToken),
                clientID: clientID
            )
            harness.capture.record(value: next)
            let request = try #require(await harness.square.requests.first)
            #expect(request.path == "/oauth2/token")
            #expect(request.authorizationScheme == nil)
            return [
                newAccess, newRefresh, next.accessToken.withSecret { $0 },
                try #require(next.refreshToken).withSecret { $0 },
            ]
        }
    }

    @Test("a refresh token for another application is refused")
    func refreshWrongClient() async throws {
        try await Harness.run { harness in
            await expectAuthorizationError(.invalidRefreshToken, capture: harness.capture) {
                try await harness.client()
                    .refreshAccessToken(
                        refreshToken: SquareRefreshToken(Harness.refreshToken),
                        clientID: "sq0idp-other"
                    )
            }
            return []
        }
    }

    @Test("a code-flow refresh token stays the same")
    func refreshWithoutRotation() async throws {
        try await Harness.run { harness in
            let token = "EQAAcode-flow-refresh-token"
            await harness.square.register(
                SquareConnectSandbox.RefreshToken(
                    token,
                    merchantID: SquareConnectSandbox.Configuration.sellerMerchantID,
                    clientID: SquareConnectSandbox.Configuration.sellerClientID,
                    rotates: false
                )
            )
            let client = harness.client()
            let grant = try await client.refreshAccessToken(
                refreshToken: SquareRefreshToken(token),
                clientID: SquareConnectSandbox.Configuration.sellerClientID
            )
            #expect(grant.refreshToken == SquareRefreshToken(token))
            _ = try await client.refreshAccessToken(
                refreshToken: SquareRefreshToken(token),
                clientID: SquareConnectSandbox.Configuration.sellerClientID
            )
            return [token, grant.accessToken.withSecret { $0 }]
        }
    }

    @Test("RevokeToken needs the application secret, then the token is refused (§2 RevokeToken)")
    func revoke() async throws {
        try await Harness.run { harness in
            let client = harness.client()
            let token = SquareAccessToken(Harness.accessToken)
            let clientID = SquareConnectSandbox.Configuration.sellerClientID
            await expectAuthorizationError(.invalidApplicationCredentials, capture: harness.capture) {
                try await client.revokeToken(
                    token,
                    clientID: clientID,
                    applicationSecret: SquareApplicationSecret("wrong")
                )
            }
            try await client.revokeToken(
                token,
                clientID: clientID,
                applicationSecret: SquareApplicationSecret(SquareConnectSandbox.Configuration.sellerApplicationSecret)
            )
            #expect(await harness.square.requests.last?.authorizationScheme == "Client")
            let error = await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await client.retrieveTokenStatus(token)
            }
            #expect(error?.squareErrorCode == "ACCESS_TOKEN_REVOKED")
            // Revoking ends the refresh token too.
            await expectAuthorizationError(.invalidRefreshToken, capture: harness.capture) {
                try await client.refreshAccessToken(
                    refreshToken: SquareRefreshToken(Harness.refreshToken),
                    clientID: clientID
                )
            }
            return []
        }
    }

    @Test("the sandbox answers Square's error shape with a Date header, even for unknown paths")
    func errorShape() async throws {
        try await Harness.run { harness in
            var request = URLRequest(url: harness.baseURL.appendingPathComponent("v2/customers"))
            request.httpMethod = "GET"
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 404)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let date = try #require(http.value(forHTTPHeaderField: "Date"))
            #expect(InternetDate.parseHTTPDate(date) == harness.clock.now.rounded)
            let object = try #require(try JSONValue.parse(String(decoding: data, as: UTF8.self)).objectValue)
            let first = try #require(object["errors"]?.arrayValue?.first?.objectValue)
            #expect(first["category"]?.stringValue == "INVALID_REQUEST_ERROR")
            #expect(first["code"]?.stringValue == "NOT_FOUND")
            #expect(first["detail"]?.stringValue != nil)
            return []
        }
    }
}

extension Date {
    /// The date with whole seconds, as HTTP and RFC 3339 timestamps carry it.
    var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
