/// An error from building a SumUp request, decoding one, or parsing SumUp's callback.
///
/// Match a code with `catch SumUpError.Code.invalidForeignTransactionID`. Messages say what was wrong and
/// what to do; they never contain the affiliate key, a card number, a token or a whole URL.
public struct SumUpError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SumUpError
        /// The code's stable string, such as `"missing_affiliate_key"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request's fields make its URL longer than 64 KiB, the most Tender reads back.
        public static let requestTooLong = Code(rawValue: "request_too_long")
        /// The amount is not positive, or cannot be written with exactly two decimals (sumup §1).
        public static let invalidAmount = Code(rawValue: "invalid_amount")
        /// The affiliate key is empty or not a key (sumup §1).
        public static let missingAffiliateKey = Code(rawValue: "missing_affiliate_key")
        /// `callbacksuccess` or `callbackfail` has no scheme or uses a POS app's scheme (SEC-12).
        public static let invalidCallbackURL = Code(rawValue: "invalid_callback_url")
        /// `foreign-tx-id` is longer than 128 characters, not printable ASCII, or holds a card number (sumup §1).
        public static let invalidForeignTransactionID = Code(rawValue: "invalid_foreign_transaction_id")
        /// A tag's key is empty or contains `smpprtag-` (``SumUpRequest/tags``).
        public static let invalidTag = Code(rawValue: "invalid_tag")
        /// A request URL being decoded is not a valid SumUp payment request.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// The callback URL cannot be read: no scheme, invalid percent-escapes or UTF-8, or too large.
        public static let unreadableCallback = Code(rawValue: "unreadable_callback")
        /// A callback parameter appears more than once (SEC-6).
        public static let duplicateParameter = Code(rawValue: "duplicate_parameter")
        /// `smp-status` is missing or not `success`, `failed` or `invalidstate` (sumup §2).
        public static let invalidStatus = Code(rawValue: "invalid_status")
        /// A callback parameter does not have its documented form (sumup §2).
        public static let invalidField = Code(rawValue: "invalid_field")
        /// An identifier in the callback contains what could be a card number (SEC-9). The value is discarded.
        public static let cardNumberRefused = Code(rawValue: "card_number_refused")
        /// The callback's correlation parameter (``Correlation/parameterName``) is repeated or not a token.
        public static let invalidCorrelationToken = Code(rawValue: "invalid_correlation_token")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains keys, card numbers, tokens or URLs.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
