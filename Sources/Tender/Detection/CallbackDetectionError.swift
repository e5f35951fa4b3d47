/// A URL is not recognisable as a callback from any supported POS app.
///
/// Match its code with `catch CallbackDetectionError.Code.unrecognizedCallback`.
public struct CallbackDetectionError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = CallbackDetectionError
        /// The code's stable string, such as `"unrecognized_callback"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The URL carries none of the parameters that mark a POS app's callback, or it is a request to a POS app.
        public static let unrecognizedCallback = Code(rawValue: "unrecognized_callback")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong, for people; never contains the URL.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
