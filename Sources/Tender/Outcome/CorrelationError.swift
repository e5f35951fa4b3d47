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
