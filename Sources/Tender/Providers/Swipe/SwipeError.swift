/// An error from building a Swipe request, decoding one, or parsing Swipe's callback.
///
/// Match a code with `catch SwipeError.Code.unmaskedCardNumber`. Messages say what was wrong and what to do;
/// they never contain a card number, a token or a whole URL (SEC-8, SEC-9).
public struct SwipeError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SwipeError
        /// The code's stable string, such as `"invalid_amount"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request's fields make its URL longer than 64 KiB, the most Tender reads back.
        public static let requestTooLong = Code(rawValue: "request_too_long")
        /// The amount is not positive or does not fit the two-decimal format (swipe §1).
        public static let invalidAmount = Code(rawValue: "invalid_amount")
        /// The amount's currency does not have two decimal places, so Swipe's format cannot carry it (swipe §1).
        public static let unsupportedCurrency = Code(rawValue: "unsupported_currency")
        /// `returnURL` has no scheme or uses a POS app's scheme (SEC-12).
        public static let invalidReturnURL = Code(rawValue: "invalid_return_url")
        /// `returnURL` is set without a non-empty `returnAppName` (swipe §1).
        public static let missingReturnAppName = Code(rawValue: "missing_return_app_name")
        /// A request URL being decoded is not a valid Swipe charge request.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// The callback URL cannot be read: no scheme, invalid percent-escapes or UTF-8, or too large.
        public static let unreadableCallback = Code(rawValue: "unreadable_callback")
        /// A result parameter appears more than once (SEC-6).
        public static let duplicateParameter = Code(rawValue: "duplicate_parameter")
        /// `ifcc_responseType` is missing or not `approved`, `cancelled`, `declined` or `error` (swipe §2).
        public static let invalidResponseType = Code(rawValue: "invalid_response_type")
        /// An approved callback lacks `ifcc_amount` or `ifcc_redactedCardNumber` (swipe §2).
        public static let missingApprovalField = Code(rawValue: "missing_approval_field")
        /// A callback that is not approved carries an amount, currency or card data (swipe §2).
        public static let unexpectedField = Code(rawValue: "unexpected_field")
        /// A result parameter does not have its documented form (swipe §2).
        public static let invalidField = Code(rawValue: "invalid_field")
        /// The callback carries a card number that is not masked, or one hides in another field (SEC-9).
        /// The value is discarded, never echoed.
        public static let unmaskedCardNumber = Code(rawValue: "unmasked_card_number")
        /// The callback's correlation parameter (``Correlation/parameterName``) is repeated or not a token.
        public static let invalidCorrelationToken = Code(rawValue: "invalid_correlation_token")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains card numbers, tokens or whole URLs.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
