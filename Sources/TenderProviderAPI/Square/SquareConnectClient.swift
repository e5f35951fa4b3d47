public import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls Square's REST endpoints: those authorization needs — RetrieveTokenStatus, RetrieveLocation,
/// ListLocations, ObtainToken (refresh, and the PKCE sign-in's authorization code) and RevokeToken — and those
/// verification reads — RetrieveOrder, BatchRetrieveOrders, GetPayment and ListPayments.
///
/// Every request sends `Square-Version` and JSON, times out after ``timeout``, follows no
/// redirect, stores no cookies and caches nothing. Every failure of an authorization call is a
/// ``SquareAuthorizationError`` whose code says what happened:
///
/// | Square's answer | code |
/// |---|---|
/// | no connection, host not found, connection refused, timed out | ``SquareAuthorizationError/Code/noNetwork`` |
/// | `Date` header more than ``maximumClockSkew`` from the device clock | ``SquareAuthorizationError/Code/deviceTimeDoesNotMatchServerTime`` |
/// | 401 or 403 for a token | ``SquareAuthorizationError/Code/invalidAccessToken`` |
/// | 404 for a location | ``SquareAuthorizationError/Code/invalidLocationID`` |
/// | 400 or 401 for a refresh token | ``SquareAuthorizationError/Code/invalidRefreshToken`` |
/// | 400 or 401 for an authorization code | ``SquareAuthorizationError/Code/invalidAuthorizationCode``, ``SquareAuthorizationError/Code/authorizationCodeAlreadyRedeemed``, ``SquareAuthorizationError/Code/expiredAuthorizationCode`` or ``SquareAuthorizationError/Code/invalidCodeVerifier`` |
/// | 5xx, 429, a redirect, a body that is not Square's JSON | ``SquareAuthorizationError/Code/unexpected`` |
///
/// The reads of orders and payments are retried as ``retryPolicy`` says and fail with a ``ProviderAPIError``
/// (see ``retrieveOrder(_:accessToken:)``); the authorization calls are sent once.
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
    /// How long a request may go without an answer before it fails with ``SquareAuthorizationError/Code/noNetwork``.
    public let timeout: Duration
    /// The largest accepted difference between the device clock and the `Date` of Square's answer; `nil` turns the
    /// check off. Authorization calls only: a read's answer does not depend on the clock.
    public let maximumClockSkew: Duration?
    /// How the reads of orders and payments retry time-outs, connection failures, 5xx and 429.
    public let retryPolicy: RetryPolicy

    private let now: @Sendable () -> Date
    let http: ProviderHTTPClient

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - environment: Production (the default), Square's sandbox, or any base URL.
    ///   - squareVersion: The `Square-Version` header.
    ///   - timeout: How long to wait for an answer (default 30 seconds).
    ///   - maximumClockSkew: The largest accepted clock difference (default 5 minutes), or `nil`.
    ///   - retryPolicy: How reads retry transient failures (default ``RetryPolicy/standard``: four tries).
    ///   - now: The device clock; inject one in tests.
    public init(
        environment: SquareEnvironment = .production,
        squareVersion: String = SquareConnectClient.defaultSquareVersion,
        timeout: Duration = .seconds(30),
        maximumClockSkew: Duration? = .seconds(300),
        retryPolicy: RetryPolicy = .standard,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.environment = environment
        self.squareVersion = squareVersion
        self.timeout = timeout
        self.maximumClockSkew = maximumClockSkew
        self.retryPolicy = retryPolicy
        self.now = now
        self.http = ProviderHTTPClient(timeout: timeout.timeInterval)
    }

    /// A mirror of the settings only. The URL session is left out: `dump` would otherwise walk into its task
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
    public func retrieveTokenStatus(_ accessToken: SquareAccessToken) async throws -> SquareTokenStatus {
        let object = try await send(.tokenStatus, path: "/oauth2/token/status", bearer: accessToken, body: "")
        return try SquareTokenStatus(squareJSON: object)
    }

    /// RetrieveLocation: `GET /v2/locations/{location_id}`.
    public func retrieveLocation(_ locationID: String, accessToken: SquareAccessToken) async throws -> SquareLocation {
        let path = "/v2/locations/" + PercentEncoding.encode(locationID)
        let object = try await send(.location(locationID), path: path, bearer: accessToken, body: nil)
        guard let location = object["location"]?.objectValue else {
            throw SquareAuthorizationError(.unexpected, "Square's RetrieveLocation answer has no 'location' object.")
        }
        return try SquareLocation(squareJSON: location)
    }

    /// ObtainToken with `grant_type` `refresh_token`, as the PKCE flow does it on the device: no client secret.
    ///
    /// In the PKCE flow the answer carries a new refresh token and the one sent stops working: store the
    /// new one at once. (The code flow refreshes on your server, with the application secret.)
    public func refreshAccessToken(
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
        let object = try await send(
            .refresh,
            path: "/oauth2/token",
            bearer: nil,
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
    public func obtainToken(
        authorizationCode: SquareAuthorizationCode,
        codeVerifier: SquareCodeVerifier,
        clientID: String,
        redirectURL: URL?
    ) async throws -> SquareTokenGrant {
        var body: JSONObject = ["client_id": .string(clientID), "grant_type": .string("authorization_code")]
        authorizationCode.withSecret { body["code"] = .string($0) }
        codeVerifier.withSecret { body["code_verifier"] = .string($0) }
        if let redirectURL { body["redirect_uri"] = .string(redirectURL.absoluteString) }
        let object = try await send(
            .authorizationCode,
            path: "/oauth2/token",
            bearer: nil,
            body: JSONValue.object(body).serialized(escapingSlashes: false)
        )
        return try SquareTokenGrant(squareJSON: object)
    }

    /// ListLocations: `GET /v2/locations`, every location of the token's seller.
    public func listLocations(accessToken: SquareAccessToken) async throws -> [SquareLocation] {
        let object = try await send(.locations, path: "/v2/locations", bearer: accessToken, body: nil)
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
        let object = try await send(
            .revoke,
            path: "/oauth2/revoke",
            authorization: applicationSecret.withSecret { "Client " + $0 },
            body: JSONValue.object(body).serialized(escapingSlashes: false)
        )
        guard object["success"]?.boolValue == true else {
            throw SquareAuthorizationError(.unexpected, "Square's RevokeToken answer does not say success.")
        }
    }

    // MARK: Transport

    private enum Endpoint {
        case tokenStatus
        case location(String)
        case locations
        case refresh
        case authorizationCode
        case revoke
    }

    private func send(
        _ endpoint: Endpoint,
        path: String,
        bearer: SquareAccessToken?,
        body: String?
    ) async throws -> JSONObject {
        try await send(endpoint, path: path, authorization: bearer?.withSecret { "Bearer " + $0 }, body: body)
    }

    private func send(
        _ endpoint: Endpoint,
        path: String,
        authorization: String?,
        body: String?
    ) async throws -> JSONObject {
        guard let url = environment.url(path: path) else {
            throw SquareAuthorizationError(.unexpected, "Could not build the URL of \(path) on \(environment).")
        }
        var request = URLRequest(url: url)
        request.httpMethod = body == nil ? "GET" : "POST"
        request.setValue(squareVersion, forHTTPHeaderField: "Square-Version")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }

        let http: HTTPURLResponse
        let data: Data
        do {
            (http, data) = try await self.http.send(request)
        } catch let failure as ProviderHTTPClient.TransportFailure {
            throw Self.map(failure, host: url.host ?? environment.description)
        }
        try checkClock(http)
        let object = ProviderHTTPClient.jsonObject(data, limits: SquareConnectJSON.limits)
        if (200...299).contains(http.statusCode) {
            guard let object else {
                throw SquareAuthorizationError(
                    .unexpected,
                    "Square answered HTTP \(http.statusCode) without a JSON object; check the base URL \(environment).",
                    httpStatusCode: http.statusCode
                )
            }
            return object
        }
        throw Self.map(status: http.statusCode, errors: SquareConnectJSON.errors(in: object), endpoint: endpoint)
    }

    private func checkClock(_ response: HTTPURLResponse) throws {
        guard let maximumClockSkew, let header = response.value(forHTTPHeaderField: "Date"),
            let serverDate = InternetDate.parseHTTPDate(header)
        else { return }
        let skew = now().timeIntervalSince(serverDate)
        guard abs(skew) > maximumClockSkew.timeInterval else { return }
        let minutes = Int((abs(skew) / 60).rounded())
        throw SquareAuthorizationError(
            .deviceTimeDoesNotMatchServerTime,
            "The device clock is \(minutes) minutes \(skew > 0 ? "ahead of" : "behind") Square's, so token expiry "
                + "cannot be judged. Set the date and time automatically, then authorize again.",
            httpStatusCode: response.statusCode
        )
    }

    private static func map(_ failure: ProviderHTTPClient.TransportFailure, host: String) -> SquareAuthorizationError {
        switch failure {
        case .timedOut, .unreachable:
            return SquareAuthorizationError(
                .noNetwork,
                "Could not reach Square at \(host): \(failure.reason). Check the connection and try again."
            )
        case .redirected:
            return SquareAuthorizationError(
                .unexpected,
                "Square at \(host) answered with a redirect, which Tender does not follow; check the base URL."
            )
        case .failed(let code):
            return SquareAuthorizationError(
                .unexpected,
                "The request to Square at \(host) failed (URLError \(code)); check the base URL and TLS settings."
            )
        case .notHTTP:
            return SquareAuthorizationError(.unexpected, "Square's answer is not an HTTP response.")
        }
    }

    private static func map(status: Int, errors: [SquareConnectJSON.ErrorObject], endpoint: Endpoint) -> any Error {
        let squareCode = errors.first?.code
        if case .authorizationCode = endpoint, status == 400 || status == 401 {
            return authorizationCodeError(status: status, error: errors.first)
        }
        let named = squareCode.map { " (\($0))" } ?? ""
        func error(_ code: SquareAuthorizationError.Code, _ message: String) -> SquareAuthorizationError {
            SquareAuthorizationError(code, message, squareErrorCode: squareCode, httpStatusCode: status)
        }
        switch (status, endpoint) {
        case (500...599, _):
            return error(
                .unexpected,
                "Square answered HTTP \(status)\(named): its service is having trouble. Try again later."
            )
        case (429, _):
            return error(.unexpected, "Square is limiting requests (HTTP 429\(named)). Wait a little and try again.")
        case (300...399, _):
            return error(
                .unexpected,
                "Square answered with a redirect (HTTP \(status)), which Tender does not follow; check the base URL."
            )
        case (401, .tokenStatus), (401, .location), (401, .locations), (403, .tokenStatus), (403, .location),
            (403, .locations):
            return error(.invalidAccessToken, accessTokenMessage(squareCode: squareCode, status: status))
        case (404, .location(let locationID)):
            return error(
                .invalidLocationID,
                "Square knows no location '\(locationID)' for this seller\(named). Pass the ID of one of the "
                    + "seller's locations (see ListLocations in the Square Dashboard or API)."
            )
        case (400, .refresh), (401, .refresh):
            return error(
                .invalidRefreshToken,
                "Square does not accept the refresh token\(named): it was revoked, has expired, or was already "
                    + "used (PKCE refresh tokens rotate). Ask the seller to authorize your app again."
            )
        case (401, .revoke), (403, .revoke):
            return error(
                .invalidApplicationCredentials,
                "Square does not accept the application ID and secret\(named); check them in the Developer Dashboard."
            )
        case (404, .revoke):
            return error(.invalidAccessToken, "Square knows no such access token to revoke\(named).")
        default:
            return error(.unexpected, "Square answered HTTP \(status)\(named), which Tender does not expect here.")
        }
    }

    /// ObtainToken's refusals of an authorization code. Square's error objects give these cases no distinct
    /// `code` (it is `UNAUTHORIZED` or a request error), so the `field` and a few words of the `detail` tell
    /// them apart; the detail itself is never copied into the message.
    private static func authorizationCodeError(
        status: Int,
        error: SquareConnectJSON.ErrorObject?
    ) -> SquareAuthorizationError {
        let detail = error?.detail?.lowercased() ?? ""
        let field = error?.field
        let named = error.map { " (\($0.code))" } ?? " (HTTP \(status))"
        func make(_ code: SquareAuthorizationError.Code, _ message: String) -> SquareAuthorizationError {
            SquareAuthorizationError(code, message, squareErrorCode: error?.code, httpStatusCode: status)
        }
        if detail.contains("redeemed") || detail.contains("already used") {
            return make(
                .authorizationCodeAlreadyRedeemed,
                "Square says the authorization code was already exchanged\(named); codes are single-use. Start a new "
                    + "sign-in. (Square may have revoked the tokens of the first exchange.)"
            )
        }
        if detail.contains("expired") {
            return make(
                .expiredAuthorizationCode,
                "Square says the authorization code has expired\(named); exchange it within minutes. Start a new sign-in."
            )
        }
        if field == "code_verifier" || detail.contains("code_verifier") || detail.contains("code verifier") {
            return make(
                .invalidCodeVerifier,
                "Square does not accept the PKCE code verifier for this code\(named): it was not the one whose "
                    + "challenge the authorization URL carried. Start a new sign-in."
            )
        }
        if field == "redirect_uri" {
            return make(
                .invalidAuthorizationCode,
                "Square does not accept the redirect_uri for this code\(named): it must be the redirect URL the "
                    + "authorization URL named, as registered in the Developer Dashboard."
            )
        }
        if field == "client_id" || field == "client_secret" {
            return make(
                .invalidApplicationCredentials,
                "Square does not accept the application ID\(named); check the client ID on the OAuth page of the "
                    + "Developer Dashboard."
            )
        }
        return make(
            .invalidAuthorizationCode,
            "Square does not accept the authorization code\(named): unknown, or issued to another application. "
                + "Start a new sign-in."
        )
    }

    private static func accessTokenMessage(squareCode: String?, status: Int) -> String {
        switch squareCode {
        case "ACCESS_TOKEN_EXPIRED":
            return "Square says the access token has expired (ACCESS_TOKEN_EXPIRED). Refresh it, or have the seller "
                + "authorize your app again, then authorize with the new token."
        case "ACCESS_TOKEN_REVOKED":
            return "Square says the access token was revoked (ACCESS_TOKEN_REVOKED): the seller removed your app's "
                + "access. Have the seller authorize your app again."
        case "INSUFFICIENT_SCOPES":
            return "The access token lacks a permission this call needs (INSUFFICIENT_SCOPES). Request "
                + "MERCHANT_PROFILE_READ, PAYMENTS_WRITE and PAYMENTS_WRITE_IN_PERSON when the seller authorizes."
        default:
            let named = squareCode.map { " (\($0))" } ?? " (HTTP \(status))"
            return "Square does not accept the access token\(named). Use a seller's OAuth access token for this "
                + "environment (production and sandbox tokens differ)."
        }
    }
}
