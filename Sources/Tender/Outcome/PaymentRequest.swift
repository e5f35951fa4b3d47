public import Foundation

/// A payment request for one POS app: something that becomes the URL which opens the app.
///
/// Every provider's request type conforms, so code that hands payments off (Tender's coordinator, your
/// own) can be written once. The correlation hook, ``correlated(with:)``, attaches a caller token that the
/// provider's callback carries back (read it with ``PaymentCallback/correlationToken``).
public protocol PaymentRequest: Sendable, Hashable {
    /// The parsed form of this provider's callback.
    associatedtype Callback: PaymentCallback

    /// The provider this request is for.
    static var provider: PaymentProvider { get }

    /// The amount to charge (or, for a refund, to refund).
    var amount: Money { get }

    /// Builds the URL that opens the POS app, validating the request first.
    /// - Throws: the provider's error type, with a message that says what to fix.
    func url() throws -> URL

    /// The endpoints (scheme, host and path, no query) on which the POS app may answer, as they go on the
    /// wire. Empty when the request asks for no callback.
    func callbackEndpoints() throws -> [String]

    /// A copy of this request that carries `token` through the round trip and back in the callback.
    ///
    /// Square carries it in `state`, SumUp in `foreign-tx-id`, Swipe and SoftPOS as the query parameter
    /// ``Correlation/parameterName`` on the callback URL (both apps keep the callback URL's own query).
    /// - Throws: ``CorrelationError`` when the request has no callback URL or its carrier is already in use.
    func correlated(with token: String) throws -> Self
}

/// A POS app's answer, parsed strictly from the callback URL it opened.
public protocol PaymentCallback: Sendable, Hashable {
    /// The provider this callback comes from.
    static var provider: PaymentProvider { get }

    /// Parses a callback URL read once (``CallbackURL``): what detection and the hand-off pass on, so that the URL is
    /// split and its query decoded once.
    /// - Throws: the provider's error type; never crashes on any input.
    init(callbackURL: CallbackURL) throws

    /// Parses a callback URL given as text, exactly as received.
    /// - Throws: the provider's error type; never crashes on any input.
    init(callbackURLString: String) throws

    /// The token attached with ``PaymentRequest/correlated(with:)``, if the callback carries one.
    var correlationToken: String? { get }

    /// The callback mapped to Tender's outcome model.
    var outcome: PaymentOutcome { get }

    /// The outcome, reading an amount that the callback reports without a currency in `currency`.
    ///
    /// Swipe reports the amount it charged but not its currency, which is the merchant account's: pass the
    /// currency of the request so that ``PaymentOutcome/amount`` can be compared with what was asked (SEC-5).
    /// Callbacks whose amounts carry their currency, or that report none, return ``outcome``.
    func outcome(assumingCurrency currency: Currency) -> PaymentOutcome
}

extension PaymentCallback {
    /// ``outcome``: this callback reports no amount without its currency.
    public func outcome(assumingCurrency currency: Currency) -> PaymentOutcome {
        outcome
    }

    /// Parses a callback URL.
    /// - Throws: the provider's error type; never crashes on any input.
    public init(callbackURL: URL) throws {
        try self.init(callbackURLString: callbackURL.absoluteString)
    }
}

/// Where Tender puts a correlation token when the provider has no field that echoes it.
public enum Correlation: Sendable {
    /// The query parameter added to Swipe's and SoftPOS's callback URLs: `tender_token`.
    public static let parameterName = "tender_token"
}

/// A request could not carry a correlation token, or a callback's token cannot be one Tender sent.
///
/// Match a code with `catch CorrelationError.Code.carrierInUse`.
public struct CorrelationError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = CorrelationError
        /// The code's stable string, such as `"carrier_in_use"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The token is not 1–128 printable ASCII characters without spaces, or holds a card number.
        public static let invalidToken = Code(rawValue: "invalid_token")
        /// The request has no callback URL, so the POS app would not come back with the token.
        public static let missingCallbackURL = Code(rawValue: "missing_callback_url")
        /// The request's callback URL cannot be read, or cannot carry the token.
        public static let invalidCallbackURL = Code(rawValue: "invalid_callback_url")
        /// The field that would carry the token (Square's `state`, SumUp's `foreign-tx-id`, the
        /// ``Correlation/parameterName`` parameter) is already in use: Tender will not overwrite it.
        public static let carrierInUse = Code(rawValue: "carrier_in_use")
        /// A callback carries ``Correlation/parameterName`` more than once.
        public static let duplicateToken = Code(rawValue: "duplicate_token")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains the token.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
