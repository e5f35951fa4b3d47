/// An error from creating or converting ``Money`` or a ``Currency``.
///
/// The ``code`` is an open set: match it with `catch let error as MoneyError where error.code == .overflow`,
/// or with the `~=` pattern: `catch MoneyError.Code.unknownCurrency`.
public struct MoneyError: TenderError {
    /// What went wrong, as a stable, machine-readable code.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = MoneyError
        /// The code's stable string, such as `"unknown_currency"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The currency code is empty (Square SDK: `SCCErrorCodeMissingCurrencyCode`).
        public static let missingCurrency = Code(rawValue: "missing_currency")
        /// The currency code is not an active ISO 4217 code.
        public static let unknownCurrency = Code(rawValue: "unknown_currency")
        /// The decimal text is not a plain number such as `12.50`.
        public static let invalidFormat = Code(rawValue: "invalid_format")
        /// The decimal text has more fraction digits than the currency's minor unit.
        public static let tooManyFractionDigits = Code(rawValue: "too_many_fraction_digits")
        /// The amount does not fit in a 64-bit count of minor units.
        public static let overflow = Code(rawValue: "overflow")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
