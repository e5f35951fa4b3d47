public import Tender

/// An error from a provider's REST API (Square's, SumUp's) while reading what it knows of a payment, or
/// from a verifier that could not ask.
///
/// A verifier throws these instead of giving a verdict: nothing was learned, so nothing may be recorded, and
/// asking again later may work. ``isTransient`` tells the failures worth retrying (the client already retried
/// them ``attempts`` times) from those that need a person: a refused token, a missing scope, bad input.
///
/// The ``message`` says what was wrong and what to do. It never contains a token or a secret (SEC-8): from the
/// provider's answer it keeps only the error code (``providerErrorCode``, such as `INSUFFICIENT_SCOPES`) when
/// it is a plain identifier. Match with `catch ProviderAPIError.Code.insufficientScopes`.
public struct ProviderAPIError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = ProviderAPIError
        /// The code's stable string in snake case, such as `"insufficient_scopes"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The provider could not be reached: no connection, host unknown or refused, or no answer in time.
        /// Transient: retried, then thrown.
        public static let noNetwork = Code(rawValue: "no_network")
        /// The provider answered HTTP 5xx. Transient: retried, then thrown.
        public static let serviceUnavailable = Code(rawValue: "service_unavailable")
        /// The provider is limiting requests (HTTP 429). Transient: retried, then thrown.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// The provider refused the access token (HTTP 401): unknown, expired or revoked.
        public static let invalidAccessToken = Code(rawValue: "invalid_access_token")
        /// The access token lacks a permission the call needs (Square's 403 `INSUFFICIENT_SCOPES`);
        /// ``ProviderAPIError/requiredScope`` names it.
        public static let insufficientScopes = Code(rawValue: "insufficient_scopes")
        /// The provider refused the call for another reason (HTTP 403).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The provider has no such resource (HTTP 404). Verifiers turn this into a verdict where it means one.
        public static let notFound = Code(rawValue: "not_found")
        /// The provider refused the request as malformed (HTTP 400).
        public static let badRequest = Code(rawValue: "bad_request")
        /// The input cannot be sent: an ID that is not the provider's ID shape, a request for another provider.
        /// Nothing was sent.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The answer is not what the provider's API documents: not its JSON, a redirect, a missing field.
        public static let unexpectedResponse = Code(rawValue: "unexpected_response")
        /// A list has more pages than the caller allowed (ListPayments with a broad query): narrow the query.
        public static let tooManyResults = Code(rawValue: "too_many_results")
        /// No verifier is set up for the payment's provider (no credentials were given for it).
        public static let notConfigured = Code(rawValue: "not_configured")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains a token or a secret.
    public let message: String
    /// The provider whose API was asked.
    public let provider: PaymentProvider
    /// The HTTP status of the provider's answer, when there was one.
    public let httpStatusCode: Int?
    /// The provider's own error code, such as Square's `INSUFFICIENT_SCOPES` or SumUp's `NOT_FOUND`, when it
    /// sent a plain one.
    public let providerErrorCode: String?
    /// For ``Code/insufficientScopes``: the OAuth scope the call needs, such as `ORDERS_READ`.
    public let requiredScope: String?
    /// How many times the request was sent before this error was thrown (more than 1 after retries).
    public let attempts: Int
    /// How long the provider asked to wait before asking again (`Retry-After`), when it said.
    package var retryAfter: Duration?

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        provider: PaymentProvider,
        httpStatusCode: Int? = nil,
        providerErrorCode: String? = nil,
        requiredScope: String? = nil,
        attempts: Int = 1
    ) {
        self.code = code
        self.message = message
        self.provider = provider
        self.httpStatusCode = httpStatusCode
        self.providerErrorCode = providerErrorCode
        self.requiredScope = requiredScope
        self.attempts = attempts
    }

    /// Whether asking again later may succeed: ``Code/noNetwork``, ``Code/serviceUnavailable``,
    /// ``Code/rateLimited``.
    public var isTransient: Bool {
        code == .noNetwork || code == .serviceUnavailable || code == .rateLimited
    }

    /// The same error after `attempts` tries, its message saying so.
    package func after(attempts: Int) -> ProviderAPIError {
        guard attempts > 1 else { return self }
        var text = message
        if text.hasSuffix(".") { text.removeLast() }
        return ProviderAPIError(
            code,
            text + " (after \(attempts) attempts).",
            provider: provider,
            httpStatusCode: httpStatusCode,
            providerErrorCode: providerErrorCode,
            requiredScope: requiredScope,
            attempts: attempts
        )
    }
}

extension ProviderAPIError {
    /// The error of a request that got no HTTP answer from `host` of `provider`.
    package init(_ failure: ProviderHTTPClient.TransportFailure, provider: PaymentProvider, name: String, host: String)
    {
        switch failure {
        case .timedOut, .unreachable:
            self.init(
                .noNetwork,
                "Could not reach \(name) at \(host): \(failure.reason). Check the connection and try again.",
                provider: provider
            )
        case .redirected:
            self.init(
                .unexpectedResponse,
                "\(name) at \(host) answered with a redirect, which Tender does not follow; check the base URL.",
                provider: provider
            )
        case .tooLarge:
            self.init(
                .unexpectedResponse,
                "\(name) at \(host) failed: \(failure.reason); check the base URL.",
                provider: provider
            )
        case .failed, .notHTTP:
            self.init(
                .unexpectedResponse,
                "The request to \(name) at \(host) failed: \(failure.reason); check the base URL and TLS settings.",
                provider: provider
            )
        }
    }

    /// The error of an HTTP status every provider means the same way: 429, 5xx, a redirect, anything else
    /// unexpected. The provider's own error code, if any, is named.
    package init(status: Int, providerErrorCode code: String?, provider: PaymentProvider, name: String) {
        let named = code.map { " (\($0))" } ?? ""
        switch status {
        case 429:
            self.init(
                .rateLimited,
                "\(name) is limiting requests (HTTP 429\(named)). Wait a little and try again.",
                provider: provider,
                httpStatusCode: status,
                providerErrorCode: code
            )
        case 500...599:
            self.init(
                .serviceUnavailable,
                "\(name) answered HTTP \(status)\(named): its service is having trouble. Try again later.",
                provider: provider,
                httpStatusCode: status,
                providerErrorCode: code
            )
        case 300...399:
            self.init(
                .unexpectedResponse,
                "\(name) answered with a redirect (HTTP \(status)), which Tender does not follow; check the base URL.",
                provider: provider,
                httpStatusCode: status,
                providerErrorCode: code
            )
        default:
            self.init(
                .unexpectedResponse,
                "\(name) answered HTTP \(status)\(named), which Tender does not expect here.",
                provider: provider,
                httpStatusCode: status,
                providerErrorCode: code
            )
        }
    }

    /// The error of a request given to the verifier of another provider. Nothing is sent.
    package init(otherProvider: PaymentProvider, _ verifier: PaymentProvider) {
        let name = verifier == .square ? "Square" : verifier == .sumUp ? "SumUp" : verifier.rawValue
        self.init(
            .invalidInput,
            "A \(CardNumberScreen.excerpt(otherProvider.rawValue)) payment cannot be verified with \(name); use its "
                + "provider's verifier (ProviderPaymentVerifier picks it).",
            provider: verifier
        )
    }
}
