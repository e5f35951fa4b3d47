import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// A sandbox whose REST stand-ins know one merchant, as `tender sandbox --square-access-token …
/// --square-location-id … --sumup-access-token … --sumup-merchant-code …` runs it: Square's knows the seller (a
/// token with every scope, a narrow token with the authorization scopes only, a rotating refresh token), SumUp's
/// serves the merchant.
struct SellerSandbox {
    static let accessToken = "EAAAseller-sandbox-access-token-0001"
    static let narrowToken = "EAAAseller-sandbox-narrow-token-0002"
    static let refreshToken = "EQAAseller-sandbox-refresh-token-0001"
    static let locationID = "LSELLER0001"
    static let sumUpToken = "sumup-seller-sandbox-token-0001"
    static let merchantCode = "MSELLER01"

    let server: SandboxServer
    let base: String
    let capture: OutputCapture

    var square: SquareConnectSandbox { server.squareConnect }
    var sumUp: SumUpSandbox { server.sumUp }

    /// Runs `body` against a fresh sandbox, stops it, then checks that no token was logged or shown (SEC-8) and
    /// that log lines carry no URL (SEC-10).
    static func run(
        sumUp: SumUpSandbox.Configuration = SumUpSandbox.Configuration(
            accessToken: SellerSandbox.sumUpToken,
            merchantCode: SellerSandbox.merchantCode
        ),
        _ body: (SellerSandbox) async throws -> Void
    ) async throws {
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
        let server = SandboxServer(
            configuration: SandboxConfiguration(squareConnect: square, sumUp: sumUp, log: capture.log)
        )
        let base = try await server.start().absoluteString
        do {
            try await body(SellerSandbox(server: server, base: base, capture: capture))
        } catch {
            capture.record(error: error)
            await server.stop()
            throw error
        }
        await server.stop()
        capture.expectNoSecrets([accessToken, narrowToken, refreshToken, sumUpToken])
        for line in capture.all where line.hasPrefix("square:") || line.hasPrefix("sumup:") {
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

    /// A SumUp transaction lookup with the merchant's token: `query` is the raw query.
    func sumUpLookup(
        _ query: String,
        merchantCode: String = SellerSandbox.merchantCode,
        bearer: String? = SellerSandbox.sumUpToken
    ) async throws -> RESTProbe.Answer {
        try await RESTProbe.call(
            "GET",
            base + "/v2.1/merchants/\(merchantCode)/transactions" + (query.isEmpty ? "" : "?" + query),
            bearer: bearer,
            squareVersion: nil
        )
    }
}
