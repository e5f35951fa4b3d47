import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

/// A sandbox that is one merchant everywhere, as `tender sandbox --square-access-token … --square-location-id …
/// --sumup-access-token … --sumup-merchant-code …` runs it: Square's REST stand-in knows the seller (a token with
/// every scope, a narrow token with the authorization scopes only, a rotating refresh token), Point of Sale is
/// logged in at its location, and SumUp's stand-in serves the merchant.
struct SellerSandbox {
    static let accessToken = "EAAAseller-sandbox-access-token-0001"
    static let narrowToken = "EAAAseller-sandbox-narrow-token-0002"
    static let refreshToken = "EQAAseller-sandbox-refresh-token-0001"
    static let locationID = "LSELLER0001"
    static let sumUpToken = "sumup-seller-sandbox-token-0001"
    static let merchantCode = "MSELLER01"
    static let applicationID = "sq0idp-seller-app"

    let server: SandboxServer
    let base: String
    let capture: OutputCapture

    var square: SquareConnectSandbox { server.squareConnect }
    var sumUp: SumUpSandbox { server.sumUp }

    /// Runs `body` against a fresh sandbox, stops it, then checks that no token was logged or shown (SEC-8) and
    /// that log lines carry no URL (SEC-10).
    static func run(
        profile: MerchantProfile = SellerSandbox.profile { _ in },
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
        let configuration = SandboxConfiguration(
            squareConnect: square,
            sumUp: sumUp,
            posApps: POSAppsSandbox.Configuration(profile: profile, seed: 22),
            logger: capture.logger
        )
        let server = SandboxServer(configuration: configuration)
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
        for line in capture.all where line.hasPrefix("pos:") || line.hasPrefix("square:") || line.hasPrefix("sumup:") {
            #expect(!line.contains("://"), "a URL was logged: \(line)")
        }
    }

    /// The merchant profile logged in at the seller's location, changed by `change`.
    static func profile(_ change: (inout MerchantProfile) -> Void) -> MerchantProfile {
        var profile = MerchantProfile.default
        profile.locationID = locationID
        change(&profile)
        return profile
    }

    /// A Square Point of Sale request for `amount` cents, with the location Point of Sale must be logged in at.
    static func squareRequest(
        amount: Int = 1250,
        tenders: SquareTenderTypes = [.card, .cash],
        locationID: String? = SellerSandbox.locationID
    ) throws -> String {
        try SquareRequest(
            applicationID: applicationID,
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: amount, currency: .usd),
            locationID: locationID.flatMap { SquareLocationID($0) },
            supportedTenderTypes: tenders
        ).urlString()
    }

    /// A SumUp request with a foreign transaction ID.
    static func sumUpRequest(
        amount: Int = 1250,
        currency: Currency = .usd,
        foreignTransactionID: String?,
        title: String? = "Coffee beans"
    ) throws -> String {
        try SumUpRequest(
            amount: Money(minorUnits: amount, currency: currency),
            affiliateKey: "KEY",
            title: title,
            callbackSuccess: URL(string: "my-app://sumup-done"),
            callbackFail: URL(string: "my-app://sumup-failed"),
            foreignTransactionID: foreignTransactionID
        ).urlString()
    }

    /// `POST /api/simulate`.
    func simulate(_ requestURL: String, _ outcome: String) async throws -> RESTProbe.Answer {
        let body = JSONValue.object(["request_url": .string(requestURL), "outcome": .string(outcome)])
        return try await RESTProbe.call(
            "POST",
            base + "/api/simulate",
            squareVersion: nil,
            json: body.serialized(escapingSlashes: false)
        )
    }

    /// `POST /api/simulate` for a Square request, and the callback it returned.
    func approveSquare(_ requestURL: String, _ outcome: String = "approve") async throws -> SquareResponse {
        let answer = try await simulate(requestURL, outcome)
        let callback = try #require(answer.string("callback_url"), "\(answer)")
        return try SquareResponse(callbackURLString: callback)
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
