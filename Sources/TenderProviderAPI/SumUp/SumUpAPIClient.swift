import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls SumUp's REST API: the transaction lookup verification needs,
/// `GET /v2.1/merchants/{merchant_code}/transactions` (Retrieve a transaction, scope `transactions.history`).
///
/// It shares its HTTP plumbing with ``SquareConnectClient``: JSON, a deadline per request (``timeout``, connection
/// to last byte), answers read against a size limit, no redirect followed, no cookie or cache, time-outs,
/// connection failures, 5xx and 429 retried as ``retryPolicy`` says. Failures are ``ProviderAPIError``s: 401
/// ``ProviderAPIError/Code/invalidAccessToken``, 403 ``ProviderAPIError/Code/insufficientScopes`` (naming
/// `transactions.history`), 404 with SumUp's `NOT_FOUND` error ``ProviderAPIError/Code/notFound`` (any other 404 is
/// ``ProviderAPIError/Code/unexpectedResponse``: not SumUp's answer), and so on. The token goes only into the
/// `Authorization` header (SEC-8).
public final class SumUpAPIClient: Sendable, CustomReflectable {
    /// Where requests go.
    public let environment: SumUpEnvironment
    /// The deadline of every request, from the connection to the last byte of the answer.
    public let timeout: Duration
    /// How requests retry time-outs, connection failures, 5xx and 429.
    public let retryPolicy: RetryPolicy
    private let http: ProviderHTTPClient

    /// The largest answer accepted.
    static let limits = JSONLimits(maximumBytes: 1024 * 1024, maximumDepth: 32)

    /// Creates a client.
    /// - Parameters:
    ///   - environment: SumUp's production API (the default) or any base URL.
    ///   - timeout: The deadline of each request, connection to last byte (default 30 seconds).
    ///   - retryPolicy: How transient failures are retried (default ``RetryPolicy/standard``: four tries).
    ///   - transport: What sends the requests: a URL session of the client's own by default
    ///     (``ProviderURLSessionTransport``); a server on SwiftNIO can pass one that waits on its event loops.
    public init(
        environment: SumUpEnvironment = .production,
        timeout: Duration = .seconds(30),
        retryPolicy: RetryPolicy = .standard,
        transport: any ProviderTransport = ProviderURLSessionTransport()
    ) {
        self.environment = environment
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.http = ProviderHTTPClient(timeout: timeout, transport: transport)
    }

    /// A mirror of the settings only: `dump` would otherwise walk into a URL session's task registry and print a
    /// request's `Authorization` header (SEC-8).
    public var customMirror: Mirror {
        Mirror(self, children: ["environment": environment, "timeout": timeout], displayStyle: .class)
    }

    /// How a transaction is looked up: exactly one key, as SumUp requires.
    package enum TransactionLookup: Sendable, Hashable {
        /// By the `foreign-tx-id` the request carried (`foreign_transaction_id`): the key SumUp documents for
        /// looking up a payment made from another app.
        case foreignTransactionID(String)
        /// By the transaction code the POS app returned as `smp-tx-code` (`transaction_code`).
        case transactionCode(String)
    }

    /// Retrieve a transaction: `GET /v2.1/merchants/{merchant_code}/transactions` with one of
    /// `foreign_transaction_id` or `transaction_code`.
    /// - Throws: ``ProviderAPIError``; ``ProviderAPIError/Code/notFound`` when SumUp says it has no such transaction,
    ///   ``ProviderAPIError/Code/invalidInput`` (nothing sent) for a merchant code or key of the wrong shape.
    package func transaction(
        merchantCode: String,
        _ lookup: TransactionLookup,
        accessToken: SumUpAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SumUpTransaction {
        guard UntrustedText.isIdentifier(merchantCode, maximumLength: 32) else {
            throw ProviderAPIError(
                .invalidInput,
                "The SumUp merchant code '\(CardNumberScreen.excerpt(merchantCode))' is not one (1 to 32 letters and "
                    + "digits, such as MH4H92C7); nothing was sent.",
                provider: .sumUp
            )
        }
        var query = QueryParameters()
        switch lookup {
        case .foreignTransactionID(let id):
            // SumUp's URL scheme: at most 128 printable ASCII characters.
            guard UntrustedText.isPlain(id, maximumLength: 128), id.utf8.allSatisfy({ $0 < 0x80 }) else {
                throw Self.invalid("foreign transaction ID", id, "1 to 128 printable ASCII characters")
            }
            query.append(name: "foreign_transaction_id", value: id)
        case .transactionCode(let code):
            guard UntrustedText.isIdentifier(code, maximumLength: 64, punctuation: "-_") else {
                throw Self.invalid("transaction code", code, "1 to 64 letters, digits, '-' or '_'")
            }
            query.append(name: "transaction_code", value: code)
        }
        guard
            let url = ProviderBaseURL.url(
                environment.baseURL,
                path: "/v2.1/merchants/\(merchantCode)/transactions",
                query: query.percentEncodedQuery
            )
        else {
            throw ProviderAPIError(
                .invalidInput,
                "Could not build the URL of SumUp's transaction lookup.",
                provider: .sumUp
            )
        }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        accessToken.withSecret { request.setValue("Bearer " + $0, forHTTPHeaderField: "Authorization") }
        let object = try await http.readJSON(
            request,
            provider: .sumUp,
            name: "SumUp",
            retry: retryPolicy,
            limits: Self.limits,
            tally: tally,
            refusal: Self.refusal
        )
        do throws(JSONFieldError) {
            let transaction = try SumUpTransaction(sumUpJSON: object)
            guard transaction.id != nil || transaction.transactionCode != nil else {
                throw JSONFieldError(key: "id", problem: "neither an 'id' nor a 'transaction_code'")
            }
            return transaction
        } catch {
            throw ProviderAPIError(
                .unexpectedResponse,
                error.describing("SumUp's transaction") + "; check that the base URL points at SumUp's API.",
                provider: .sumUp
            )
        }
    }

    private static func invalid(_ what: String, _ value: String, _ shape: String) -> ProviderAPIError {
        ProviderAPIError(
            .invalidInput,
            "The \(what) '\(CardNumberScreen.excerpt(value))' is not one (\(shape)); nothing was sent.",
            provider: .sumUp
        )
    }

    /// SumUp's refusals: its error objects are `{"error_code", "message"}` or RFC 9457 problems
    /// (`{"type", "title", "status", "detail"}`); only a plain `error_code` is kept. A 404 means "no such
    /// transaction" only in one of SumUp's shapes: `error_code` `NOT_FOUND`, or the problem type
    /// `https://developer.sumup.com/problem/not-found` (SumUp's "Not Found" problem page); any other 404 is an answer
    /// that is not SumUp's, so that a mistyped base URL is never taken for SumUp saying it has nothing.
    private static func refusal(_ status: Int, _ body: JSONObject?) -> ProviderAPIError {
        let code = body?["error_code"]?.stringValue.flatMap { SquareConnectJSON.isIdentifier($0) ? $0 : nil }
        let named = code.map { " (\($0))" } ?? " (HTTP \(status))"
        func error(_ kind: ProviderAPIError.Code, _ message: String) -> ProviderAPIError {
            ProviderAPIError(
                kind,
                message,
                provider: .sumUp,
                httpStatusCode: status,
                providerErrorCode: code,
                requiredScope: kind == .insufficientScopes ? "transactions.history" : nil
            )
        }
        switch status {
        case 401:
            return error(
                .invalidAccessToken,
                "SumUp does not accept the access token\(named): unknown, expired or revoked. Use a valid OAuth "
                    + "token or API key of the merchant."
            )
        case 403:
            return error(
                .insufficientScopes,
                "SumUp refused the transaction lookup\(named): the token needs the transactions.history scope and "
                    + "access to this merchant."
            )
        case 404
        where code == "NOT_FOUND" || body?["type"]?.stringValue == "https://developer.sumup.com/problem/not-found":
            return error(.notFound, "SumUp has no such transaction\(named).")
        case 404:
            return error(
                .unexpectedResponse,
                "The server answered SumUp's transaction lookup with HTTP 404 but without SumUp's NOT_FOUND error: it "
                    + "is not SumUp's API. Check the base URL."
            )
        case 400:
            return error(.badRequest, "SumUp refused the transaction lookup as malformed\(named).")
        default:
            return ProviderAPIError(status: status, providerErrorCode: code, provider: .sumUp, name: "SumUp")
        }
    }
}
