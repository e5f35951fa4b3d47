public import Tender

/// A simulation could not be run as asked (a usage error, not the POS app's answer).
public struct SimulatorError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SimulatorError
        /// The code's stable string.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The URL is not a request to a POS app the simulator models.
        public static let notARequest = Code(rawValue: "not_a_request")
        /// The outcome text is not one of the accepted forms.
        public static let invalidOutcome = Code(rawValue: "invalid_outcome")
        /// The chosen outcome cannot happen with this POS app or this request.
        public static let impossibleOutcome = Code(rawValue: "impossible_outcome")
        /// The merchant profile is not valid.
        public static let invalidProfile = Code(rawValue: "invalid_profile")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
