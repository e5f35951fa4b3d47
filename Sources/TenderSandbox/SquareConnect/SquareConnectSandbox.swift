package import Foundation
package import Logging
import Tender
package import TenderProviderAPI

/// A stand-in for Square's REST endpoints that authorization and verification use, with Square's answer shapes,
/// scopes and errors:
///
/// | endpoint | route | scope |
/// |---|---|---|
/// | RetrieveTokenStatus | `POST /oauth2/token/status` | any valid token |
/// | RetrieveLocation (an ID, or `main`) | `GET /v2/locations/{location_id}` | `MERCHANT_PROFILE_READ` |
/// | ListLocations | `GET /v2/locations` | `MERCHANT_PROFILE_READ` |
/// | RetrieveOrder | `GET /v2/orders/{order_id}` | `ORDERS_READ` |
/// | BatchRetrieveOrders | `POST /v2/orders/batch-retrieve` | `ORDERS_READ` |
/// | GetPayment | `GET /v2/payments/{payment_id}` | `PAYMENTS_READ` |
/// | ListPayments (cursor pagination; by `created_at`, or `offline_begin_time`…`offline_end_time`) | `GET /v2/payments` | `PAYMENTS_READ` |
/// | RefundPayment (idempotent by `idempotency_key`) | `POST /v2/refunds` | `PAYMENTS_WRITE` |
/// | GetPaymentRefund | `GET /v2/refunds/{refund_id}` | `PAYMENTS_READ` |
/// | ListPaymentRefunds (cursor pagination; by `created_at`, `location_id`, `status`) | `GET /v2/refunds` | `PAYMENTS_READ` |
/// | Authorize (the seller's Allow / Deny page) | `GET /oauth2/authorize` | — |
/// | ObtainToken (`authorization_code` with PKCE or secret, `refresh_token`) | `POST /oauth2/token` | — |
/// | RevokeToken | `POST /oauth2/revoke` | the application secret |
///
/// Errors have Square's body, `{"errors": [{"category", "code", "detail", "field"}]}`: `401 UNAUTHORIZED` for an
/// unknown token, `403 INSUFFICIENT_SCOPES` naming the scope a token lacks, `404 NOT_FOUND`, `400` with the field
/// for a bad request. Every answer carries a `Date` header from the sandbox's clock and a `Square-Version` header
/// (the request's, or `SquareConnectClient.defaultSquareVersion`); a request `Square-Version` that is not a
/// `YYYY-MM-DD` date gets `400 INVALID_SQUARE_VERSION_FORMAT`. The seller's token, location and application come
/// from ``Configuration/seller(accessToken:locationID:refreshToken:redirectURLs:now:)``; the token can be revoked,
/// and every endpoint broken, while the server runs. Refreshing with a rotating refresh token issues a new one and
/// retires the old one, as the PKCE flow does.
///
/// Orders and payments are recorded by the sandbox's Square Point of Sale when it approves a payment (see
/// ``SandboxServer``), or by a test with ``recordPayment(amount:locationID:tender:status:tip:orderID:isOffline:createdAt:applicationID:clientTransactionID:)``.
/// ``injectFault(_:method:path:times:)`` makes the next requests to a path fail or hang, for retry tests.
public actor SquareConnectSandbox {
    /// How long access tokens live: 30 days.
    package static let accessTokenLifetime: Duration = .seconds(30 * 86_400)
    /// How long access tokens obtained with `short_lived: true` live: 24 hours.
    package static let shortLivedAccessTokenLifetime: Duration = .seconds(86_400)
    /// How long rotating (PKCE) refresh tokens live: 90 days.
    package static let refreshTokenLifetime: Duration = .seconds(90 * 86_400)

    /// The sandbox's clock.
    package nonisolated let now: @Sendable () -> Date

    var accessTokens: [String: AccessToken] = [:]
    var locations: [String: SquareLocation] = [:]
    /// Location IDs in the order they were registered: the first of a merchant's is its main location.
    var locationOrder: [String] = []
    /// Payments and orders, by ID.
    var payments: [String: Payment] = [:]
    var orders: [String: Order] = [:]
    /// Refunds by ID, and the RefundPayment requests by seller and idempotency key.
    var refunds: [String: Refund] = [:]
    var refundKeys: [String: (request: RefundRequest, refundID: String)] = [:]
    /// The refunds still `PENDING`, which ``settleRefunds()`` looks at.
    var pendingRefunds: Set<String> = []
    /// Each payment's refunds, oldest first, and each refund's key in ``refundKeys``.
    var refundsByPayment: [String: [String]] = [:]
    var refundKeyOf: [String: String] = [:]
    /// How long a refund is pending, in seconds (``Configuration/refundSettlement``).
    let refundSettlement: TimeInterval
    /// The `Square-Version` answered when a request sends none.
    let squareVersion: String
    private var faults = FaultSchedule()
    var refreshTokens: [String: RefreshToken] = [:]
    var applications: [String: Application] = [:]
    private var fault: Fault?
    private var isPaused = false
    private var pausedRequests: [CheckedContinuation<Void, Never>] = []
    private var recorded: BoundedLog<RecordedRequest>
    /// Payment IDs, oldest first, for forgetting the oldest past ``Configuration/paymentLimit``.
    var paymentOrder: [String] = []
    let paymentLimit: Int
    /// Posts each recorded payment's webhooks, when a subscription is configured.
    let webhookSender: SquareWebhookSender?
    private let logger: Logger
    /// Sign-in: the merchant who answers the authorization page, and how long its codes live.
    let signInMerchantID: String
    let authorizationCodeLifetime: Duration
    /// Sign-in: authorization requests waiting for Allow or Deny, by consent ID, oldest first.
    var consents: [(id: String, consent: Consent)] = []
    /// Sign-in: authorization codes issued, by code.
    var authorizationCodes: [String: AuthorizationCodeRecord] = [:]
    /// Sign-in: the code each token obtained through a code was issued under, for revoking them together.
    var codeOfToken: [String: String] = [:]

    /// Drops the webhook deliveries under way and sends no more: ``SandboxServer/stop()`` calls it, so that no
    /// delivery outlives the sandbox.
    package func stopWebhooks() async {
        await webhookSender?.stop()
    }

    /// Creates a stand-in that knows what `configuration` registers, logging each request and its answer to `logger`
    /// (``SandboxConfiguration/logger``).
    package init(configuration: Configuration = Configuration(), logger: Logger = SandboxLog.silent) {
        self.now = configuration.now
        self.logger = logger
        self.squareVersion = configuration.squareVersion
        self.signInMerchantID = configuration.signInMerchantID
        self.authorizationCodeLifetime = configuration.authorizationCodeLifetime
        self.recorded = BoundedLog(limit: configuration.requestLimit)
        self.paymentLimit = max(1, configuration.paymentLimit)
        let settlement = configuration.refundSettlement.components
        self.refundSettlement = TimeInterval(settlement.seconds) + TimeInterval(settlement.attoseconds) / 1e18
        self.webhookSender = configuration.webhook.map { SquareWebhookSender(subscription: $0, logger: logger) }
        for token in configuration.accessTokens { accessTokens[token.token] = token }
        for location in configuration.locations {
            if locations[location.id] == nil { locationOrder.append(location.id) }
            locations[location.id] = location
        }
        for token in configuration.refreshTokens { refreshTokens[token.token] = token }
        for application in configuration.applications { applications[application.clientID] = application }
    }

    // MARK: Registering and breaking things

    /// Registers (or replaces) an access token.
    package func register(_ token: AccessToken) {
        accessTokens[token.token] = token
    }

    /// Registers (or replaces) a location. A merchant's first location is its main one (`main` in RetrieveLocation,
    /// ListPayments' default location).
    package func register(_ location: SquareLocation) {
        if locations[location.id] == nil { locationOrder.append(location.id) }
        locations[location.id] = location
    }

    /// Registers (or replaces) a refresh token.
    package func register(_ token: RefreshToken) {
        refreshTokens[token.token] = token
    }

    /// Registers (or replaces) an application for RevokeToken.
    package func register(_ application: Application) {
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

    /// Plays `fault` on the next `times` requests to `path` (and `method`, when given) instead of answering them
    /// normally, then answers as usual: for testing a client's retries and time-outs.
    ///
    /// `path` is matched against the request's path without its query, segment by segment; `*` stands for one
    /// segment, as in `/v2/payments/*`. Faults are played in the order they were injected.
    public func injectFault(_ fault: InjectedFault, method: String? = nil, path: String, times: Int = 1) {
        faults.add(fault, method: method, path: path, times: times)
    }

    /// How many injected faults are still to be played.
    package var pendingFaults: Int { faults.remaining }

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

    /// The requests received, oldest first, without tokens or bodies: at most ``Configuration/requestLimit``, the
    /// newest.
    public var requests: [RecordedRequest] { recorded.elements }

    /// Whether `token` is a registered access token that is neither revoked nor expired.
    package func isValid(accessToken token: String) -> Bool {
        guard let record = accessTokens[token], !record.isRevoked else { return false }
        return record.expiresAt.map { $0 > now() } ?? true
    }

    /// Waits until at least `count` requests arrived, or `timeout` seconds passed.
    /// - Returns: Whether that many requests arrived.
    package func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
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
        /// The `Square-Version` header.
        var squareVersion: String?
    }

    enum Endpoint: Sendable {
        case tokenStatus
        case location(encodedID: String)
        case locations
        case order(encodedID: String)
        case batchRetrieveOrders
        case payment(encodedID: String)
        case listPayments
        case refundPayment
        case refund(encodedID: String)
        case listRefunds
        case authorizePage
        case authorizeDecision
        case obtainToken
        case revokeToken
        case unknown

        /// The seller's pages in a browser, which send no `Square-Version`.
        var isPage: Bool {
            switch self {
            case .authorizePage, .authorizeDecision: return true
            default: return false
            }
        }
    }

    func handle(_ call: Call, endpoint: Endpoint) async -> Answer {
        recorded.append(
            RecordedRequest(
                method: call.method,
                path: call.path,
                queryNames: (try? QueryParameters(percentEncodedQuery: call.query))?.map(\.name) ?? [],
                squareVersion: call.squareVersion,
                authorizationScheme: call.authorization.flatMap { $0.split(separator: " ").first.map(String.init) },
                contentType: call.contentType
            )
        )
        if isPaused {
            await withCheckedContinuation { pausedRequests.append($0) }
        }
        // Refunds whose time has come complete now, and their webhooks leave, whatever the request.
        settleRefunds()
        var answer: Answer
        switch faults.take(method: call.method, path: call.path) {
        case .status(let status)?:
            answer = Self.faultAnswer(status, detail: "The sandbox is playing an injected fault.")
        case .stall(let seconds)?:
            // A hung server: the answer comes late (the actor serves other requests meanwhile).
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            answer = self.answer(call, endpoint: endpoint)
        case nil:
            answer = self.answer(call, endpoint: endpoint)
        }
        answer.squareVersion = Self.isSquareVersion(call.squareVersion) ? call.squareVersion : squareVersion
        logger.sandboxEvent(
            "square",
            "request",
            "\(call.method) \(call.path) → \(answer.status)\(answer.code.map { " " + $0 } ?? "")",
            ["method": "\(call.method)", "status": "\(answer.status)", "code": "\(answer.code ?? "")"]
        )
        return answer
    }

    /// Whether a `Square-Version` is a date as Square writes them, `YYYY-MM-DD`.
    static func isSquareVersion(_ text: String?) -> Bool {
        guard let text, text.utf8.count == 10 else { return false }
        return InternetDate.parseRFC3339(text + "T00:00:00Z") != nil
    }

    /// Square's error for a failing server: 5xx and 429 with their codes, any other status as a bad request.
    static func faultAnswer(_ status: Int, detail: String) -> Answer {
        switch status {
        case 429:
            return error(429, category: "RATE_LIMIT_ERROR", code: "RATE_LIMITED", detail: detail)
        case 500..<600:
            let codes = [502: "BAD_GATEWAY", 503: "SERVICE_UNAVAILABLE", 504: "GATEWAY_TIMEOUT"]
            return error(status, category: "API_ERROR", code: codes[status] ?? "INTERNAL_SERVER_ERROR", detail: detail)
        default:
            return error(status, category: "INVALID_REQUEST_ERROR", code: "BAD_REQUEST", detail: detail)
        }
    }

    private func answer(_ call: Call, endpoint: Endpoint) -> Answer {
        if !endpoint.isPage, let version = call.squareVersion, !Self.isSquareVersion(version) {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "INVALID_SQUARE_VERSION_FORMAT",
                detail: "The Square-Version header must be a date in the form YYYY-MM-DD, such as "
                    + "\(SquareConnectClient.defaultSquareVersion).",
                field: "Square-Version"
            )
        }
        switch fault {
        case .outage(let status)?:
            return Self.faultAnswer(status, detail: "The sandbox is simulating an outage.")
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
        case .order(let encodedID): return retrieveOrder(call, encodedID: encodedID)
        case .batchRetrieveOrders: return batchRetrieveOrders(call)
        case .payment(let encodedID): return getPayment(call, encodedID: encodedID)
        case .listPayments: return listPayments(call)
        case .refundPayment: return refundPayment(call)
        case .refund(let encodedID): return getPaymentRefund(call, encodedID: encodedID)
        case .listRefunds: return listPaymentRefunds(call)
        case .authorizePage: return authorizePage(call)
        case .authorizeDecision: return authorizeDecision(call)
        case .obtainToken: return obtainToken(call)
        case .revokeToken: return revokeToken(call)
        case .unknown:
            return Self.error(404, category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: "Resource not found.")
        }
    }

    /// The caller's access token, if it is valid and has `scope` (`MERCHANT_PROFILE_READ` for locations,
    /// `ORDERS_READ` for orders, `PAYMENTS_READ` for payments); otherwise the 401, or the 403 naming the scope.
    func reader(_ call: Call, scope: SquareOAuthScope) -> Result<AccessToken, AnswerError> {
        bearerToken(call).flatMap { record in
            guard record.scopes.contains(scope) else {
                return .failure(
                    AnswerError(
                        Self.error(
                            403,
                            category: "AUTHENTICATION_ERROR",
                            code: "INSUFFICIENT_SCOPES",
                            detail: "The merchant has not given your application sufficient permissions to do that. "
                                + "The developer must request the following OAuth scopes: \(scope.rawValue)"
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
        switch reader(call, scope: .merchantProfileRead) {
        case .success(let value): record = value
        case .failure(let failure): return failure.answer
        }
        // "Specify the string "main" to return the main location."
        let found: SquareLocation?
        if encodedID == "main" {
            found = mainLocation(of: record.merchantID)
        } else {
            found = (try? PercentEncoding.decode(encodedID)).flatMap { locations[$0] }.flatMap {
                $0.merchantID == nil || $0.merchantID == record.merchantID ? $0 : nil
            }
        }
        guard let location = found else {
            return Self.error(404, category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: "Location not found.")
        }
        return Self.ok(["location": .object(Self.locationJSON(location))])
    }

    /// Square's `Location` object, the same in RetrieveLocation and ListLocations.
    static func locationJSON(_ location: SquareLocation) -> JSONObject {
        var object = location.squareJSON
        object["business_name"] = .string(location.name)
        object["type"] = .string("PHYSICAL")
        object["language_code"] = .string("en-US")
        return object
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
        // "Indicates whether the returned access token should expire in 24 hours. Optional ... for any grant type."
        let shortLived: Bool
        switch Self.flag("short_lived", in: body) {
        case .success(let value): shortLived = value
        case .failure(let failure): return failure.answer
        }
        if body["grant_type"]?.stringValue == "authorization_code" {
            return authorizationCodeGrant(body, shortLived: shortLived)
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
        // "The returned access token is limited to the permissions that are the intersection of these requested
        // permissions and those authorized by the provided refresh_token."
        var requestedScopes: Set<SquareOAuthScope>?
        switch body["scopes"] {
        case nil, .null?: break
        case .array(let items)? where items.allSatisfy({ $0.stringValue != nil }):
            requestedScopes = Set(items.compactMap(\.stringValue).map(SquareOAuthScope.init(rawValue:)))
        default:
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "EXPECTED_ARRAY",
                detail: "scopes must be an array of permission names, such as [\"PAYMENTS_READ\"].",
                field: "scopes"
            )
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
        let expiresAt = issued.addingTimeInterval(
            (shortLived ? Self.shortLivedAccessTokenLifetime : Self.accessTokenLifetime).timeInterval
        )
        let accessToken = AccessToken(
            Self.randomToken(prefix: "EAAA"),
            merchantID: record.merchantID,
            clientID: record.clientID,
            scopes: requestedScopes.map { requested in record.scopes.filter(requested.contains) } ?? record.scopes,
            expiresAt: expiresAt
        )
        accessTokens[accessToken.token] = accessToken
        var next = record
        if record.rotates {
            refreshTokens[presented] = nil
            next.token = Self.randomToken(prefix: "EQAA")
            next.expiresAt = issued.addingTimeInterval(Self.refreshTokenLifetime.timeInterval)
            refreshTokens[next.token] = next
        }
        noteRefresh(of: presented, issuing: [accessToken.token, next.token])
        return Self.tokenAnswer(accessToken, refreshToken: next, shortLived: shortLived)
    }

    /// ObtainToken's answer for a new access token and the refresh token that goes with it.
    static func tokenAnswer(_ accessToken: AccessToken, refreshToken: RefreshToken, shortLived: Bool) -> Answer {
        var object: JSONObject = [
            "access_token": .string(accessToken.token),
            "token_type": .string("bearer"),
            "expires_at": .string(accessToken.expiresAt.map(InternetDate.rfc3339) ?? ""),
            "merchant_id": .string(accessToken.merchantID),
            "refresh_token": .string(refreshToken.token),
            "short_lived": .bool(shortLived),
        ]
        object["refresh_token_expires_at"] = refreshToken.expiresAt.map { .string(InternetDate.rfc3339($0)) }
        return ok(object)
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
        // "If true, terminate the given single access token, but do not terminate the entire authorization."
        let onlyAccessToken: Bool
        switch Self.flag("revoke_only_access_token", in: body) {
        case .success(let value): onlyAccessToken = value
        case .failure(let failure): return failure.answer
        }
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
            if onlyAccessToken {
                accessTokens[token]?.isRevoked = true
                return Self.ok(["success": .bool(true)])
            }
            merchantID = record.merchantID
        } else if onlyAccessToken {
            return Self.missing("access_token")
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

    /// An optional Boolean of a request body: `false` when absent, Square's `400 EXPECTED_BOOLEAN` when not a Boolean.
    static func flag(_ field: String, in body: JSONObject) -> Result<Bool, AnswerError> {
        switch body[field] {
        case nil, .null?: return .success(false)
        case .bool(let value)?: return .success(value)
        default:
            return .failure(
                AnswerError(
                    error(
                        400,
                        category: "INVALID_REQUEST_ERROR",
                        code: "EXPECTED_BOOLEAN",
                        detail: "\(field) must be true or false.",
                        field: field
                    )
                )
            )
        }
    }

    /// Square's `404 NOT_FOUND` for a record of `field` the seller does not have ("Payment not found.").
    static func notFound(_ detail: String, field: String) -> Answer {
        error(404, category: "INVALID_REQUEST_ERROR", code: "NOT_FOUND", detail: detail, field: field)
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
