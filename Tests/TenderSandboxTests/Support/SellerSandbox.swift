import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// A sandbox whose Square REST stand-in knows one seller, as `tender sandbox --square-access-token …
/// --square-location-id …` runs it: a token with every scope, a narrow token with the authorization scopes only,
/// and a rotating refresh token.
struct SellerSandbox {
    static let accessToken = "EAAAseller-sandbox-access-token-0001"
    static let narrowToken = "EAAAseller-sandbox-narrow-token-0002"
    static let refreshToken = "EQAAseller-sandbox-refresh-token-0001"
    static let locationID = "LSELLER0001"

    let server: SandboxServer
    let base: String
    let capture: OutputCapture

    var square: SquareConnectSandbox { server.squareConnect }

    /// Runs `body` against a fresh sandbox, stops it, then checks that no token was logged or shown (SEC-8) and
    /// that log lines carry no URL (SEC-10).
    static func run(_ body: (SellerSandbox) async throws -> Void) async throws {
        let capture = OutputCapture()
        var square = SquareConnectSandbox.Configuration.seller(
            accessToken: accessToken,
            locationID: locationID,
            refreshToken: refreshToken
        )
        square.accessTokens.append(
            SquareConnectSandbox.AccessToken(
                narrowToken,
                merchantID: SquareConnectSandbox.Configuration.sellerMerchantID,
                clientID: SquareConnectSandbox.Configuration.sellerClientID,
                scopes: SquareOAuthScope.required.sorted(),
                expiresAt: Date().addingTimeInterval(86_400)
            )
        )
        let server = SandboxServer(configuration: SandboxConfiguration(squareConnect: square, log: capture.log))
        let base = try await server.start().absoluteString
        do {
            try await body(SellerSandbox(server: server, base: base, capture: capture))
        } catch {
            capture.record(error: error)
            await server.stop()
            throw error
        }
        await server.stop()
        capture.expectNoSecrets([accessToken, narrowToken, refreshToken])
        for line in capture.all where line.hasPrefix("square:") {
            #expect(!line.contains("://"), "a URL was logged: \(line)")
        }
    }

    /// A Square REST call with the seller's token.
    func square(
        _ method: String = "GET",
        _ path: String,
        bearer: String? = SellerSandbox.accessToken,
        squareVersion: String? = RESTProbe.squareVersion,
        headers: [String: String] = [:],
        json: String? = nil
    ) async throws -> RESTProbe.Answer {
        try await RESTProbe.call(
            method,
            base + path,
            bearer: bearer,
            squareVersion: squareVersion,
            headers: headers,
            json: json
        )
    }
}
