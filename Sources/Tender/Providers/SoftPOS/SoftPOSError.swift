/// An error from building a SoftPOS request, decoding one, or parsing SoftPOS's callback.
///
/// Match a code with `catch SoftPOSError.Code.missingOriginalTransactionID`. Messages say what was wrong and
/// what to do; they never contain a card number, a token or a whole URL.
public struct SoftPOSError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SoftPOSError
        /// The code's stable string, such as `"unsupported_currency"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request's fields make its URL longer than 64 KiB, the most Tender reads back.
        public static let requestTooLong = Code(rawValue: "request_too_long")
        /// The amount is not a positive number of minor units, or too large (softpos §1).
        public static let invalidAmount = Code(rawValue: "invalid_amount")
        /// The currency is not EUR, the only one SoftPOS accepts (softpos §1).
        public static let unsupportedCurrency = Code(rawValue: "unsupported_currency")
        /// A refund has no original transaction id (softpos §1).
        public static let missingOriginalTransactionID = Code(rawValue: "missing_original_transaction_id")
        /// A sale carries an original transaction id, which only refunds have (softpos §1).
        public static let unexpectedOriginalTransactionID = Code(rawValue: "unexpected_original_transaction_id")
        /// The original transaction id is not an identifier SoftPOS could have issued.
        public static let invalidOriginalTransactionID = Code(rawValue: "invalid_original_transaction_id")
        /// `responseUrl` has no scheme or uses a POS app's scheme (SEC-12).
        public static let invalidResponseURL = Code(rawValue: "invalid_response_url")
        /// A request URL being decoded is not a valid SoftPOS transaction request.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// The callback URL cannot be read: no scheme, invalid percent-escapes or UTF-8, or too large.
        public static let unreadableCallback = Code(rawValue: "unreadable_callback")
        /// The callback has no `result` parameter, or more than one result parameter (SEC-6).
        public static let missingOrDuplicateResult = Code(rawValue: "missing_or_duplicate_result")
        /// The result is not strict JSON (duplicate keys, trailing commas, …; SEC-6).
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// The result JSON does not have the shape of softpos §2.
        public static let invalidResult = Code(rawValue: "invalid_result")
        /// An identifier in the callback contains what could be a card number (SEC-9). The value is discarded.
        public static let cardNumberRefused = Code(rawValue: "card_number_refused")
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
