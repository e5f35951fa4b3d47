public import Foundation
import Tender
public import TenderProviderAPI

/// A stand-in for Square's REST endpoints that authorization uses, with Square's answer shapes and errors:
///
/// | endpoint | route |
/// |---|---|
/// | RetrieveTokenStatus | `POST /oauth2/token/status` |
/// | RetrieveLocation | `GET /v2/locations/{location_id}` |
/// | ListLocations | `GET /v2/locations` |
/// | Authorize (the seller's Allow / Deny page) | `GET /oauth2/authorize` |
/// | ObtainToken (`authorization_code` with PKCE or secret, `refresh_token`) | `POST /oauth2/token` |
/// | RevokeToken | `POST /oauth2/revoke` |
///
/// Errors have Square's body, `{"errors": [{"category", "code", "detail", "field"}]}`; every answer carries a
/// `Date` header from the sandbox's clock. Registered tokens and locations come from a ``Configuration``
/// and can be added, revoked or broken while the server runs. Refreshing with a rotating refresh token
/// issues a new one and retires the old one, as the PKCE flow does.
public actor SquareConnectSandbox {
    /// How long access tokens live: 30 days.
    public static let accessTokenLifetime: TimeInterval = 30 * 86_400
    /// How long rotating (PKCE) refresh tokens live: 90 days.
    public static let refreshTokenLifetime: TimeInterval = 90 * 86_400

    /// The sandbox's clock.
    public nonisolated let now: @Sendable () -> Date

    var accessTokens: [String: AccessToken] = [:]
    var locations: [String: SquareLocation] = [:]
    var refreshTokens: [String: RefreshToken] = [:]
    var applications: [String: Application] = [:]
    private var fault: Fault?
    private var isPaused = false
    private var pausedRequests: [CheckedContinuation<Void, Never>] = []
    private var recorded: [RecordedRequest] = []
    private let log: (@Sendable (String) -> Void)?
    /// Sign-in: the merchant who answers the authorization page, and how long its codes live.
    let signInMerchantID: String
    let authorizationCodeLifetime: TimeInterval
    /// Sign-in: authorization requests waiting for Allow or Deny, by consent ID, oldest first.
    var consents: [(id: String, consent: Consent)] = []
    /// Sign-in: authorization codes issued, by code.
    var authorizationCodes: [String: AuthorizationCodeRecord] = [:]
    /// Sign-in: the code each token obtained through a code was issued under, for revoking them together.
    var codeOfToken: [String: String] = [:]

    /// Creates a stand-in that knows what `configuration` registers.
    public init(configuration: Configuration = Configuration(), log: (@Sendable (String) -> Void)? = nil) {
        self.now = configuration.now
        self.log = log
        self.signInMerchantID = configuration.signInMerchantID
        self.authorizationCodeLifetime = configuration.authorizationCodeLifetime
        for token in configuration.accessTokens { accessTokens[token.token] = token }
        for location in configuration.locations { locations[location.id] = location }
        for token in configuration.refreshTokens { refreshTokens[token.token] = token }
        for application in configuration.applications { applications[application.clientID] = application }
    }

    // MARK: Registering and breaking things

    /// Registers (or replaces) an access token.
    public func register(_ token: AccessToken) {
        accessTokens[token.token] = token
    }

    /// Registers (or replaces) a location.
    public func register(_ location: SquareLocation) {
        locations[location.id] = location
    }

    /// Registers (or replaces) a refresh token.
    public func register(_ token: RefreshToken) {
        refreshTokens[token.token] = token
    }

    /// Registers (or replaces) an application for RevokeToken.
    public func register(_ application: Application) {
        applications[application.clientID] = application
    }

    /// Revokes an access token, as a seller removing the app in the Square Dashboard would.
    public func revoke(accessToken token: String) {
        accessTokens[token]?.isRevoked = true
    }

    /// Something going wrong between the app and Square, for testing how the app copes.
    public enum Fault: Sendable, Hashable {
        /// Every endpoint answers this status (such as 500 or 503) with Square's error body.
        case outage(status: Int)
        /// Every endpoint answers 429 `RATE_LIMITED`.
        case rateLimited
        /// Every endpoint answers 200 with an HTML login page, as a captive Wi-Fi portal does.
        case captivePortal
    }

    /// Makes every endpoint fail with `fault` until set to `nil`.
    public func setFault(_ fault: Fault?) {
        self.fault = fault
    }

    /// Holds every answer until ``resume()``: requests are recorded on arrival, then wait.
    public func pause() {
        isPaused = true
    }

    /// Releases held answers.
    public func resume() {
        isPaused = false
        let waiting = pausedRequests
        pausedRequests = []
        for continuation in waiting { continuation.resume() }
    }

    /// The requests received so far, in order, without tokens or bodies.
    public var requests: [RecordedRequest] { recorded }

    /// Whether `token` is a registered access token that is neither revoked nor expired.
    public func isValid(accessToken token: String) -> Bool {
        guard let record = accessTokens[token], !record.isRevoked else { return false }
        return record.expiresAt.map { $0 > now() } ?? true
    }

    /// Waits until at least `count` requests arrived, or `timeout` seconds passed.
    /// - Returns: Whether that many requests arrived.
    public func waitForRequests(count: Int, timeout: TimeInterval = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while recorded.count < count {
            guard Date() < deadline else { return false }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    // MARK: Handling requests

    /// A request as the routes hand it over.
    struct Call: Sendable {
        var method: String
        var path: String
        /// The raw, percent-encoded query.
        var query: String = ""
        var authorization: String?
        var squareVersion: String?
        var contentType: String?
        var body: Data
    }

    /// What to answer.
    struct Answer: Sendable {
        var status: Int
        var body: String
        /// Square's error code, for the log.
        var code: String?
        var contentType = "application/json"
        /// The `Location` of a redirect.
        var location: String?
    }

    enum Endpoint: Sendable {
        case tokenStatus
        case location(encodedID: String)
        case locations
        case authorizePage
        case authorizeDecision
        case obtainToken
        case revokeToken
        case unknown
    }

    func handle(_ call: Call, endpoint: Endpoint) async -> Answer {
        recorded.append(
            RecordedRequest(
                method: call.method,
                path: call.path,
                squareVersion: call.squareVersion,
                authorizationScheme: call.authorization.flatMap { $0.split(separator: " ").first.map(String.init) },
                contentType: call.contentType
            )
        )
        if isPaused {
            await withCheckedContinuation { pausedRequests.append($0) }
        }
        let answer = answer(call, endpoint: endpoint)
        log?("square: \(call.method) \(call.path) → \(answer.status)\(answer.code.map { " " + $0 } ?? "")")
        return answer
    }

    private func answer(_ call: Call, endpoint: Endpoint) -> Answer {
        switch fault {
        case .outage(let status)?:
            return Self.error(
                status,
                category: "API_ERROR",
                code: status == 503 ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR",
                detail: "The sandbox is simulating an outage."
            )
        case .rateLimited?:
            return Self.error(
                429,
                category: "RATE_LIMIT_ERROR",
                code: "RATE_LIMITED",
                detail: "The sandbox is simulating rate limiting."
            )
        case .captivePortal?:
            return Answer(
                status: 200,
                body: "<!DOCTYPE html><html><body><form>Log in to Airport Wi-Fi</form></body></html>",
                contentType: "text/html; charset=utf-8"
            )
        case nil:
            break
        }
        switch endpoint {
        case .tokenStatus: return tokenStatus(call)
        case .location(let encodedID): return location(call, encodedID: encodedID)
        case .locations: return listLocations(call)
        case .authorizePage: return authorizePage(call)
        case .authorizeDecision: return authorizeDecision(call)
        case .obtainToken: return obtainToken(call)
        case .revokeToken: return revokeToken(call)
        case .unknown:
            return Self.error(404, category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: "Resource not found.")
        }
    }

    /// The caller's access token, if it is valid and may read locations (`MERCHANT_PROFILE_READ`), as
    /// RetrieveLocation and ListLocations both require; otherwise the 401 or 403 Square answers.
    func locationReader(_ call: Call) -> Result<AccessToken, AnswerError> {
        bearerToken(call).flatMap { record in
            guard record.scopes.contains(.merchantProfileRead) else {
                return .failure(
                    AnswerError(
                        Self.error(
                            403,
                            category: "AUTHENTICATION_ERROR",
                            code: "INSUFFICIENT_SCOPES",
                            detail: "The merchant has not given your application sufficient permissions to do that. "
                                + "The developer must request the following OAuth scopes: MERCHANT_PROFILE_READ"
                        )
                    )
                )
            }
            return .success(record)
        }
    }

    /// The registered, usable token of a `Bearer` header, or Square's 401.
    func bearerToken(_ call: Call) -> Result<AccessToken, AnswerError> {
        guard let header = call.authorization, header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            return .failure(
                AnswerError(
                    Self.error(
                        401,
                        category: "AUTHENTICATION_ERROR",
                        code: "UNAUTHORIZED",
                        detail: "Your request did not include an `Authorization` http header with an access token."
                    )
                )
            )
        }
        guard let record = accessTokens[String(header.dropFirst(7))] else {
            return .failure(
                AnswerError(
                    Self.error(
                        401,
                        category: "AUTHENTICATION_ERROR",
                        code: "UNAUTHORIZED",
                        detail: "This request could not be authorized."
                    )
                )
            )
        }
        if record.isRevoked {
            return .failure(
                AnswerError(
                    Self.error(
                        401,
                        category: "AUTHENTICATION_ERROR",
                        code: "ACCESS_TOKEN_REVOKED",
                        detail: "The access token has been revoked."
                    )
                )
            )
        }
        if let expiresAt = record.expiresAt, expiresAt <= now() {
            return .failure(
                AnswerError(
                    Self.error(
                        401,
                        category: "AUTHENTICATION_ERROR",
                        code: "ACCESS_TOKEN_EXPIRED",
                        detail: "The access token has expired."
                    )
                )
            )
        }
        return .success(record)
    }

    private func tokenStatus(_ call: Call) -> Answer {
        let record: AccessToken
        switch bearerToken(call) {
        case .success(let value): record = value
        case .failure(let failure): return failure.answer
        }
        var object: JSONObject = ["scopes": .array(record.scopes.map { .string($0.rawValue) })]
        object["expires_at"] = record.expiresAt.map { .string(InternetDate.rfc3339($0)) }
        object["client_id"] = .string(record.clientID)
        object["merchant_id"] = .string(record.merchantID)
        return Self.ok(object)
    }

    private func location(_ call: Call, encodedID: String) -> Answer {
        let record: AccessToken
        switch locationReader(call) {
        case .success(let value): record = value
        case .failure(let failure): return failure.answer
        }
        guard let id = try? PercentEncoding.decode(encodedID), let location = locations[id],
            location.merchantID == nil || location.merchantID == record.merchantID
        else {
            return Self.error(404, category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: "Location not found.")
        }
        var object = location.squareJSON
        object["business_name"] = .string(location.name)
        object["type"] = .string("PHYSICAL")
        object["language_code"] = .string("en-US")
        return Self.ok(["location": .object(object)])
    }

    private func obtainToken(_ call: Call) -> Answer {
        guard let text = String(data: call.body, encoding: .utf8),
            let body = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "BAD_REQUEST",
                detail: "The request body is not a JSON object."
            )
        }
        for field in ["client_id", "grant_type"] where body[field]?.stringValue?.isEmpty != false {
            return Self.missing(field)
        }
        if body["grant_type"]?.stringValue == "authorization_code" {
            return authorizationCodeGrant(body)
        }
        guard body["grant_type"]?.stringValue == "refresh_token" else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "INVALID_VALUE",
                detail: "The sandbox supports grant_type authorization_code and refresh_token.",
                field: "grant_type"
            )
        }
        guard let presented = body["refresh_token"]?.stringValue, !presented.isEmpty else {
            return Self.missing("refresh_token")
        }
        let clientID = body["client_id"]?.stringValue ?? ""
        if let secret = body["client_secret"]?.stringValue, applications[clientID]?.secret != secret {
            return Self.error(
                401,
                category: "AUTHENTICATION_ERROR",
                code: "UNAUTHORIZED",
                detail: "The application ID or secret is not valid."
            )
        }
        guard let record = refreshTokens[presented], record.clientID == clientID,
            record.expiresAt.map({ $0 > now() }) ?? true
        else {
            return Self.error(
                401,
                category: "AUTHENTICATION_ERROR",
                code: "UNAUTHORIZED",
                detail: "The refresh token is not valid."
            )
        }
        let issued = now()
        let accessToken = AccessToken(
            Self.randomToken(prefix: "EAAA"),
            merchantID: record.merchantID,
            clientID: record.clientID,
            scopes: record.scopes,
            expiresAt: issued.addingTimeInterval(Self.accessTokenLifetime)
        )
        accessTokens[accessToken.token] = accessToken
        var next = record
        if record.rotates {
            refreshTokens[presented] = nil
            next.token = Self.randomToken(prefix: "EQAA")
            next.expiresAt = issued.addingTimeInterval(Self.refreshTokenLifetime)
            refreshTokens[next.token] = next
        }
        noteRefresh(of: presented, issuing: [accessToken.token, next.token])
        var object: JSONObject = [
            "access_token": .string(accessToken.token),
            "token_type": .string("bearer"),
            "expires_at": .string(InternetDate.rfc3339(issued.addingTimeInterval(Self.accessTokenLifetime))),
            "merchant_id": .string(record.merchantID),
            "refresh_token": .string(next.token),
            "short_lived": .bool(false),
        ]
        object["refresh_token_expires_at"] = next.expiresAt.map { .string(InternetDate.rfc3339($0)) }
        return Self.ok(object)
    }

    private func revokeToken(_ call: Call) -> Answer {
        let unauthorized = Self.error(
            401,
            category: "AUTHENTICATION_ERROR",
            code: "UNAUTHORIZED",
            detail: "The application ID or secret is not valid."
        )
        guard let header = call.authorization, header.count > 7, header.prefix(7).lowercased() == "client " else {
            return unauthorized
        }
        guard let text = String(data: call.body, encoding: .utf8),
            let body = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "BAD_REQUEST",
                detail: "The request body is not a JSON object."
            )
        }
        guard let clientID = body["client_id"]?.stringValue, !clientID.isEmpty else { return Self.missing("client_id") }
        guard applications[clientID]?.secret == String(header.dropFirst(7)) else { return unauthorized }
        let merchantID: String
        if let token = body["access_token"]?.stringValue, !token.isEmpty {
            guard let record = accessTokens[token], record.clientID == clientID else {
                return Self.error(
                    404,
                    category: "INVALID_REQUEST_ERROR",
                    code: "NOT_FOUND",
                    detail: "The access token was not found."
                )
            }
            merchantID = record.merchantID
        } else if let merchant = body["merchant_id"]?.stringValue, !merchant.isEmpty {
            merchantID = merchant
        } else {
            return Self.missing("access_token")
        }
        // Revoking ends every token of this seller for this application, refresh tokens included.
        for (key, record) in accessTokens where record.merchantID == merchantID && record.clientID == clientID {
            accessTokens[key]?.isRevoked = true
        }
        refreshTokens = refreshTokens.filter { !($0.value.merchantID == merchantID && $0.value.clientID == clientID) }
        return Self.ok(["success": .bool(true)])
    }

    // MARK: Answers

    /// A failed check, carried through `Result`.
    struct AnswerError: Error {
        let answer: Answer
        init(_ answer: Answer) { self.answer = answer }
    }

    static func ok(_ object: JSONObject) -> Answer {
        Answer(status: 200, body: JSONValue.object(object).serialized(escapingSlashes: false))
    }

    static func error(
        _ status: Int,
        category: String,
        code: String,
        detail: String,
        field: String? = nil
    ) -> Answer {
        Answer(
            status: status,
            body: SquareConnectJSON.errorBody([
                SquareConnectJSON.ErrorObject(category: category, code: code, detail: detail, field: field)
            ]),
            code: code
        )
    }

    static func missing(_ field: String) -> Answer {
        error(
            400,
            category: "INVALID_REQUEST_ERROR",
            code: "MISSING_REQUIRED_PARAMETER",
            detail: "Missing required parameter.",
            field: field
        )
    }

    /// A token-like random string: a prefix and 60 URL-safe characters from the system CSPRNG.
    static func randomToken(prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<60).map { _ in alphabet[Int(generator.next(upperBound: UInt8(64)))] })
    }
}
