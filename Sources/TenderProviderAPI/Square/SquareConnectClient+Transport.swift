import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way a request reaches Square: one builder of requests, one sending (once for authorization calls, retried
/// for reads), and one mapping of Square's refusals for every endpoint.
extension SquareConnectClient {
    /// Square's endpoints, by what their refusals mean. Authorization calls are sent once and fail with a
    /// ``SquareAuthorizationError``; reads of orders and payments are retried and fail with a ``ProviderAPIError``.
    enum Endpoint: Sendable {
        case tokenStatus
        case location(String)
        case locations
        case refresh
        case authorizationCode
        case revoke
        case retrieveOrder(String)
        case batchRetrieveOrders
        case getPayment(String)
        case listPayments
        case refundPayment
        case getRefund(String)
        case listRefunds
        /// ListLocations as a read of verification: how many locations the seller has, for a search that names none.
        case sellerLocations

        /// Square's name of the endpoint, such as `RetrieveOrder`.
        var name: String {
            switch self {
            case .tokenStatus: return "RetrieveTokenStatus"
            case .location: return "RetrieveLocation"
            case .locations: return "ListLocations"
            case .refresh, .authorizationCode: return "ObtainToken"
            case .revoke: return "RevokeToken"
            case .retrieveOrder: return "RetrieveOrder"
            case .batchRetrieveOrders: return "BatchRetrieveOrders"
            case .getPayment: return "GetPayment"
            case .listPayments: return "ListPayments"
            case .refundPayment: return "RefundPayment"
            case .getRefund: return "GetPaymentRefund"
            case .listRefunds: return "ListPaymentRefunds"
            case .sellerLocations: return "ListLocations"
            }
        }

        /// The scope an API call needs (a read, or RefundPayment, which its idempotency key makes safe to retry);
        /// `nil` for the authorization calls.
        var apiScope: SquareOAuthScope? {
            switch self {
            case .retrieveOrder, .batchRetrieveOrders: return .ordersRead
            case .getPayment, .listPayments, .getRefund, .listRefunds: return .paymentsRead
            case .refundPayment: return .paymentsWrite
            case .sellerLocations: return .merchantProfileRead
            case .tokenStatus, .location, .locations, .refresh, .authorizationCode, .revoke: return nil
            }
        }

        /// RefundPayment, whose 400s are Square's decisions about the refund (more than remains, another currency).
        var isRefund: Bool {
            if case .refundPayment = self { return true }
            return false
        }

        /// What Square's 404 means for a read: "no order 'O1'".
        var missing: String {
            switch self {
            case .retrieveOrder(let id): return "no order '\(id)'"
            case .getPayment(let id): return "no payment '\(id)'"
            case .getRefund(let id): return "no refund '\(id)'"
            case .refundPayment: return "no such payment to refund"
            case .batchRetrieveOrders: return "no such orders"
            default: return "no such \(name) resource"
            }
        }
    }

    /// What goes into the `Authorization` header.
    enum Credential {
        case none
        case bearer(SquareAccessToken)
        case client(SquareApplicationSecret)
    }

    /// Sends a request to Square and returns the JSON object of its 2xx answer. Authorization calls are sent once and
    /// their answer's `Date` checked against the device clock (``maximumClockSkew``); reads are retried as
    /// ``retryPolicy`` says. Every request counts in `tally`.
    func perform(
        _ endpoint: Endpoint,
        path: String,
        query: String? = nil,
        credential: Credential,
        body: String? = nil,
        tally: RequestTally? = nil
    ) async throws -> JSONObject {
        let isRead = endpoint.apiScope != nil
        guard let url = environment.url(path: path, query: query) else {
            throw Self.unexpected(endpoint, "Could not build the URL of \(endpoint.name) on \(environment).")
        }
        var request = URLRequest(url: url)
        request.httpMethod = body == nil ? "GET" : "POST"
        request.setValue(squareVersion, forHTTPHeaderField: "Square-Version")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch credential {
        case .none: break
        case .bearer(let token):
            token.withSecret { request.setValue("Bearer " + $0, forHTTPHeaderField: "Authorization") }
        case .client(let secret):
            secret.withSecret { request.setValue("Client " + $0, forHTTPHeaderField: "Authorization") }
        }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let limits = isRead ? Self.readLimits : SquareConnectJSON.limits
        let host = url.host ?? environment.description
        return try await (isRead ? retryPolicy : .never).run {
            let answer: ProviderTransportResponse
            do {
                answer = try await http.send(request, maximumBytes: limits.maximumBytes, tally: tally)
            } catch let failure as ProviderHTTPClient.TransportFailure {
                throw Self.failure(failure, endpoint, host: host)
            }
            if !isRead { try checkClock(answer) }
            let object = ProviderHTTPClient.jsonObject(answer.body, limits: limits)
            guard (200...299).contains(answer.status) else {
                throw Self.refusal(answer, url: url, SquareConnectJSON.errors(in: object), endpoint)
            }
            guard let object else {
                throw Self.unexpected(
                    endpoint,
                    "Square answered HTTP \(answer.status) without a JSON object; check the base URL "
                        + "\(environment).",
                    status: answer.status
                )
            }
            return object
        }
    }

    /// The largest read answer accepted: a ListPayments page of 100 payments stays far below it.
    static let readLimits = JSONLimits(maximumBytes: 8 * 1024 * 1024, maximumDepth: 32)

    private func checkClock(_ response: ProviderTransportResponse) throws {
        guard let maximumClockSkew, let header = response.value(forHeader: "Date"),
            let serverDate = InternetDate.parseHTTPDate(header)
        else { return }
        let skew = now().timeIntervalSince(serverDate)
        guard abs(skew) > maximumClockSkew.timeInterval else { return }
        let minutes = Int((abs(skew) / 60).rounded())
        throw SquareAuthorizationError(
            .deviceTimeDoesNotMatchServerTime,
            "The device clock is \(minutes) minutes \(skew > 0 ? "ahead of" : "behind") Square's, so token expiry "
                + "cannot be judged. Set the date and time automatically, then authorize again.",
            httpStatusCode: response.status
        )
    }

    /// `: Square's detail` (at most 200 characters, card numbers masked), or nothing when Square gave none.
    static func refusalDetail(_ error: SquareConnectJSON.ErrorObject?) -> String {
        guard let detail = error?.detail?.trimmingCharacters(in: .whitespacesAndNewlines), !detail.isEmpty else {
            return ""
        }
        let text = CardNumberScreen.excerpt(detail, limit: 200)
        return ": " + (text.hasSuffix(".") ? String(text.dropLast()) : text)
    }

    /// An answer that is not what Square's API documents, as the endpoint's error type.
    static func unexpected(_ endpoint: Endpoint, _ message: String, status: Int? = nil) -> any Error {
        guard endpoint.apiScope != nil else {
            return SquareAuthorizationError(.unexpected, message, httpStatusCode: status)
        }
        return ProviderAPIError(.unexpectedResponse, message, provider: .square, httpStatusCode: status)
    }

    /// The error of a request that got no complete answer from `host`.
    private static func failure(
        _ failure: ProviderHTTPClient.TransportFailure,
        _ endpoint: Endpoint,
        host: String
    ) -> any Error {
        guard endpoint.apiScope == nil else {
            return ProviderAPIError(failure, provider: .square, name: "Square", host: host)
        }
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
        case .tooLarge:
            return SquareAuthorizationError(
                .unexpected,
                "Square at \(host) failed: \(failure.reason); check the base URL."
            )
        case .failed(let what):
            return SquareAuthorizationError(
                .unexpected,
                "The request to Square at \(host) failed (\(what)); check the base URL and TLS settings."
            )
        case .notHTTP:
            return SquareAuthorizationError(.unexpected, "Square's answer is not an HTTP response.")
        }
    }

    /// Square's refusal of a call: what the status and Square's error list (``SquareConnectJSON/errors(in:)``) mean
    /// for the endpoint. A 404 means "no such resource" only with Square's own error, `NOT_FOUND` in the category
    /// `INVALID_REQUEST_ERROR`: any other 404 (an HTML page, an empty body, another API's JSON) is an answer that is
    /// not Square's, so that a mistyped base URL is never taken for Square saying it has nothing.
    static func refusal(
        _ answer: ProviderTransportResponse,
        url: URL,
        _ errors: [SquareConnectJSON.ErrorObject],
        _ endpoint: Endpoint
    ) -> any Error {
        let status = answer.status
        let squareCode = errors.first?.code
        let named = squareCode.map { " (\($0))" } ?? " (HTTP \(status))"
        let isNotFound = errors.contains { $0.code == "NOT_FOUND" && $0.category == "INVALID_REQUEST_ERROR" }
        if case .authorizationCode = endpoint, status == 400 || status == 401 {
            return authorizationCodeError(status: status, error: errors.first)
        }
        guard let scope = endpoint.apiScope else {
            return authorizationRefusal(status, squareCode, isNotFound: isNotFound, endpoint)
        }
        func error(_ code: ProviderAPIError.Code, _ message: String) -> ProviderAPIError {
            ProviderAPIError(
                code,
                message,
                provider: .square,
                httpStatusCode: status,
                providerErrorCode: squareCode,
                requiredScope: code == .insufficientScopes ? scope.rawValue : nil
            )
        }
        switch status {
        case 401:
            return error(.invalidAccessToken, accessTokenMessage(squareCode: squareCode, status: status))
        case 403 where squareCode == "INSUFFICIENT_SCOPES":
            return error(
                .insufficientScopes,
                "The access token lacks \(scope.rawValue), which \(endpoint.name) needs (403 INSUFFICIENT_SCOPES). "
                    + (scope == .paymentsWrite
                        ? "Have the seller authorize your app again with PAYMENTS_WRITE."
                        : "Have the seller authorize your app again with ORDERS_READ and PAYMENTS_READ "
                            + "(SquareOAuthScope.verification).")
            )
        case 403:
            return error(.forbidden, "Square refused \(endpoint.name)\(named).")
        case 404 where isNotFound:
            return error(.notFound, "Square has \(endpoint.missing) (NOT_FOUND).")
        case 404:
            return error(
                .unexpectedResponse,
                "The server answered \(endpoint.name) with HTTP 404 but without Square's NOT_FOUND error: it is not "
                    + "Square's API. Check the base URL \(Self.origin(url))."
            )
        case 400 where endpoint.isRefund:
            return error(.badRequest, "Square refused the refund\(named)" + Self.refusalDetail(errors.first) + ".")
        case 400:
            return error(.badRequest, "Square refused \(endpoint.name) as malformed\(named).")
        default:
            var failure = ProviderAPIError(
                status: status,
                providerErrorCode: squareCode,
                provider: .square,
                name: "Square"
            )
            if failure.isTransient {
                failure.retryAfter = ProviderHTTPClient.retryAfter(answer.value(forHeader: "Retry-After"))
            }
            return failure
        }
    }

    /// `http://127.0.0.1:8080`: a URL's scheme, host and port, without its path.
    private static func origin(_ url: URL) -> String {
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(url.scheme ?? "https")://\(url.host ?? "")\(port)"
    }

    /// The refusal of an authorization call (every endpoint but ObtainToken's authorization code, which has its own).
    private static func authorizationRefusal(
        _ status: Int,
        _ squareCode: String?,
        isNotFound: Bool,
        _ endpoint: Endpoint
    ) -> SquareAuthorizationError {
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
        case (404, .location(let locationID)) where isNotFound:
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
        case (404, .revoke) where isNotFound:
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

    /// What a 401 or 403 for the access token means, by Square's code.
    private static func accessTokenMessage(squareCode: String?, status: Int) -> String {
        switch squareCode {
        case "ACCESS_TOKEN_EXPIRED":
            return "Square says the access token has expired (ACCESS_TOKEN_EXPIRED). Refresh it, or have the seller "
                + "authorize your app again."
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
