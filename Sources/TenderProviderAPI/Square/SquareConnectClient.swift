public import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls Square's REST endpoints: those authorization needs — RetrieveTokenStatus, RetrieveLocation,
/// ListLocations, ObtainToken (refresh, and the PKCE sign-in's authorization code) and RevokeToken — and those
/// verification reads — RetrieveOrder, BatchRetrieveOrders, GetPayment and ListPayments.
///
/// Every request sends `Square-Version` and JSON, must be answered in full within ``timeout`` (its deadline, from
/// the connection to the last byte), follows no redirect, stores no cookies and caches nothing; an answer larger
/// than Square's ever are is not read further. Every failure of an authorization call is a
/// ``SquareAuthorizationError`` whose code says what happened:
///
/// | Square's answer | code |
/// |---|---|
/// | no connection, host not found, connection refused, no complete answer by the deadline | ``SquareAuthorizationError/Code/noNetwork`` |
/// | `Date` header more than ``maximumClockSkew`` from the device clock | ``SquareAuthorizationError/Code/deviceTimeDoesNotMatchServerTime`` |
/// | 401 or 403 for a token | ``SquareAuthorizationError/Code/invalidAccessToken`` |
/// | 404 with Square's `NOT_FOUND` for a location | ``SquareAuthorizationError/Code/invalidLocationID`` |
/// | 400 or 401 for a refresh token | ``SquareAuthorizationError/Code/invalidRefreshToken`` |
/// | 400 or 401 for an authorization code | ``SquareAuthorizationError/Code/invalidAuthorizationCode``, ``SquareAuthorizationError/Code/authorizationCodeAlreadyRedeemed``, ``SquareAuthorizationError/Code/expiredAuthorizationCode`` or ``SquareAuthorizationError/Code/invalidCodeVerifier`` |
/// | 5xx, 429, a redirect, a body that is not Square's JSON | ``SquareAuthorizationError/Code/unexpected`` |
///
/// The reads of orders and payments are retried as ``retryPolicy`` says and fail with a ``ProviderAPIError``
/// (see ``SquarePaymentVerifier``); the authorization calls are sent once.
///
/// Tokens go only into the `Authorization` header or the JSON body, never into a URL, and never into an
/// error (SEC-8).
public final class SquareConnectClient: Sendable, CustomReflectable {
    /// The `Square-Version` sent by default.
    public static let defaultSquareVersion = "2025-10-16"

    /// Where requests go.
    public let environment: SquareEnvironment
    /// The `Square-Version` header of every request.
    public let squareVersion: String
    /// The deadline of every request, from the connection to the last byte of the answer: a request not answered
    /// in full by then fails as ``SquareAuthorizationError/Code/noNetwork`` (a read, as
    /// ``ProviderAPIError/Code/noNetwork``, after its retries, each with a deadline of its own).
    public let timeout: Duration
    /// The largest accepted difference between the device clock and the `Date` of Square's answer; `nil` turns the
    /// check off. Authorization calls only: a read's answer does not depend on the clock.
    public let maximumClockSkew: Duration?
    /// How the reads of orders and payments retry time-outs, connection failures, 5xx and 429.
    public let retryPolicy: RetryPolicy

    let now: @Sendable () -> Date
    let http: ProviderHTTPClient

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - environment: Production (the default), Square's sandbox, or any base URL.
    ///   - squareVersion: The `Square-Version` header.
    ///   - timeout: The deadline of each request, connection to last byte (default 30 seconds).
    ///   - maximumClockSkew: The largest accepted clock difference (default 5 minutes), or `nil`.
    ///   - retryPolicy: How reads retry transient failures (default ``RetryPolicy/standard``: four tries).
    ///   - transport: What sends the requests: a URL session of the client's own by default
    ///     (``ProviderURLSessionTransport``); a server on SwiftNIO can pass one that waits on its event loops.
    ///   - now: The device clock; inject one in tests.
    public init(
        environment: SquareEnvironment = .production,
        squareVersion: String = SquareConnectClient.defaultSquareVersion,
        timeout: Duration = .seconds(30),
        maximumClockSkew: Duration? = .seconds(300),
        retryPolicy: RetryPolicy = .standard,
        transport: any ProviderTransport = ProviderURLSessionTransport(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.environment = environment
        self.squareVersion = squareVersion
        self.timeout = timeout
        self.maximumClockSkew = maximumClockSkew
        self.retryPolicy = retryPolicy
        self.now = now
        self.http = ProviderHTTPClient(timeout: timeout, transport: transport)
    }

    /// A mirror of the settings only. The transport is left out: `dump` would otherwise walk into a URL session's task
    /// registry and print a request's `Authorization` header, token included (SEC-8).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "environment": environment, "squareVersion": squareVersion, "timeout": timeout,
                "maximumClockSkew": maximumClockSkew as Any,
            ],
            displayStyle: .class
        )
    }

    // MARK: Endpoints

    /// RetrieveTokenStatus: `POST /oauth2/token/status` with the token as bearer.
    package func retrieveTokenStatus(_ accessToken: SquareAccessToken) async throws -> SquareTokenStatus {
        let object = try await perform(
            .tokenStatus,
            path: "/oauth2/token/status",
            credential: .bearer(accessToken),
            body: ""
        )
        return try SquareTokenStatus(squareJSON: object)
    }

    /// RetrieveLocation: `GET /v2/locations/{location_id}`.
    package func retrieveLocation(_ locationID: String, accessToken: SquareAccessToken) async throws -> SquareLocation {
        let path = "/v2/locations/" + PercentEncoding.encode(locationID)
        let object = try await perform(.location(locationID), path: path, credential: .bearer(accessToken))
        guard let location = object["location"]?.objectValue else {
            throw SquareAuthorizationError(.unexpected, "Square's RetrieveLocation answer has no 'location' object.")
        }
        return try SquareLocation(squareJSON: location)
    }

    /// ObtainToken with `grant_type` `refresh_token`, as the PKCE flow does it on the device: no client secret.
    ///
    /// In the PKCE flow the answer carries a new refresh token and the one sent stops working: store the
    /// new one at once. (The code flow refreshes on your server, with the application secret.)
    package func refreshAccessToken(
        refreshToken: SquareRefreshToken,
        clientID: String
    ) async throws -> SquareTokenGrant {
        let body: JSONObject = refreshToken.withSecret { secret in
            [
                "client_id": .string(clientID),
                "grant_type": .string("refresh_token"),
                "refresh_token": .string(secret),
            ]
        }
        let object = try await perform(
            .refresh,
            path: "/oauth2/token",
            credential: .none,
            body: JSONValue.object(body).serialized(escapingSlashes: false)
        )
        return try SquareTokenGrant(squareJSON: object)
    }

    /// ObtainToken with `grant_type` `authorization_code`, as the PKCE flow does it on the device: the code
    /// from the sign-in redirect and the code verifier, no client secret.
    ///
    /// Prefer ``SquareSignIn/exchange(_:using:)``, which checks the redirect first. The answer carries a
    /// rotating refresh token (PKCE). Authorization codes are single-use and short-lived: a second exchange of
    /// the same code fails, and Square may then revoke the tokens the first one obtained (RFC 6749 §10.5).
    ///
    /// - Parameters:
    ///   - authorizationCode: the `code` of the redirect.
    ///   - codeVerifier: the verifier whose challenge the authorization URL carried.
    ///   - clientID: your application ID.
    ///   - redirectURL: the redirect URL the authorization URL named, sent as `redirect_uri`.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/invalidAuthorizationCode``,
    ///   ``SquareAuthorizationError/Code/authorizationCodeAlreadyRedeemed``,
    ///   ``SquareAuthorizationError/Code/expiredAuthorizationCode``,
    ///   ``SquareAuthorizationError/Code/invalidCodeVerifier``, and the transport errors of every call.
    package func obtainToken(
        authorizationCode: SquareAuthorizationCode,
        codeVerifier: SquareCodeVerifier,
        clientID: String,
        redirectURL: URL?
    ) async throws -> SquareTokenGrant {
        var body: JSONObject = ["client_id": .string(clientID), "grant_type": .string("authorization_code")]
        authorizationCode.withSecret { body["code"] = .string($0) }
        codeVerifier.withSecret { body["code_verifier"] = .string($0) }
        if let redirectURL { body["redirect_uri"] = .string(redirectURL.absoluteString) }
        let object = try await perform(
            .authorizationCode,
            path: "/oauth2/token",
            credential: .none,
            body: JSONValue.object(body).serialized(escapingSlashes: false)
        )
        return try SquareTokenGrant(squareJSON: object)
    }

    /// ListLocations: `GET /v2/locations`, every location of the token's seller.
    public func listLocations(accessToken: SquareAccessToken) async throws -> [SquareLocation] {
        let object = try await perform(.locations, path: "/v2/locations", credential: .bearer(accessToken))
        switch object["locations"] {
        case nil, .null?:
            return []
        case .array(let items)?:
            return try items.map { item in
                guard let location = item.objectValue else {
                    throw SquareAuthorizationError(.unexpected, "Square's ListLocations answer lists a non-object.")
                }
                return try SquareLocation(squareJSON: location)
            }
        case let other?:
            throw SquareAuthorizationError(
                .unexpected,
                "Square's ListLocations answer has \(other.typeName) for 'locations' where an array was expected."
            )
        }
    }

    /// RevokeToken: `POST /oauth2/revoke` with `Authorization: Client <application secret>`.
    ///
    /// For server-side Swift only: the application secret must never ship in an app. An app signs out with
    /// ``SquareAuthorizationManager/deauthorize()`` and asks its server to revoke.
    public func revokeToken(
        _ accessToken: SquareAccessToken,
        clientID: String,
        applicationSecret: SquareApplicationSecret
    ) async throws {
        let body: JSONObject = accessToken.withSecret { secret in
            ["client_id": .string(clientID), "access_token": .string(secret)]
        }
        let object = try await perform(
            .revoke,
            path: "/oauth2/revoke",
            credential: .client(applicationSecret),
            body: JSONValue.object(body).serialized(escapingSlashes: false)
        )
        guard object["success"]?.boolValue == true else {
            throw SquareAuthorizationError(.unexpected, "Square's RevokeToken answer does not say success.")
        }
    }
}
