/// An error from percent-decoding, splitting a URL, or reading its query.
public struct QueryError: TenderError {
    /// What went wrong, as a stable, machine-readable code.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = QueryError
        /// The code's stable string.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A `%` is not followed by two hex digits.
        public static let invalidPercentEscape = Code(rawValue: "invalid_percent_escape")
        /// Percent-decoded bytes are not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalid_utf8")
        /// A parameter that must appear once appears more than once.
        public static let duplicateParameter = Code(rawValue: "duplicate_parameter")
        /// The text is not an absolute URL with a scheme.
        public static let invalidURL = Code(rawValue: "invalid_url")
        /// The input is larger than Tender accepts from outside.
        public static let tooLarge = Code(rawValue: "too_large")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains the input itself.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
