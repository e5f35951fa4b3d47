/// An error raised on the app's side of the Square Point of Sale API: building a request, parsing a
/// callback, or opening Point of Sale.
///
/// The codes mirror the official SDK's `SCCErrorDomain` (spec §2.5), numbered in ``Code/sdkErrorCode``,
/// plus a few of Tender's own (``Code/invalidAPIVersion``, ``Code/invalidRequestData``,
/// ``Code/invalidTenderType``) that have no SDK number. Match with `catch SquareError.Code.invalidRequestAmount`.
public struct SquareError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SquareError
        /// The code's stable string, such as `"invalid_request_amount"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request's fields make its URL longer than 64 KiB, the most Tender reads back.
        public static let requestTooLong = Code(rawValue: "request_too_long")
        /// `SCCErrorCodeUnknown` (0).
        public static let unknown = Code(rawValue: "unknown")
        /// The currency code is empty: `SCCErrorCodeMissingCurrencyCode` (1).
        public static let missingCurrencyCode = Code(rawValue: "missing_currency_code")
        /// The application ID is empty: `SCCErrorCodeMissingRequestClientID` (3).
        public static let missingRequestClientID = Code(rawValue: "missing_request_client_id")
        /// The callback URL has no scheme, or a form Tender cannot mark: `SCCErrorCodeInvalidRequestCallbackURL` (4).
        public static let invalidRequestCallbackURL = Code(rawValue: "invalid_request_callback_url")
        /// The amount is below 1 minor unit: `SCCErrorCodeInvalidRequestAmount` (5).
        public static let invalidRequestAmount = Code(rawValue: "invalid_request_amount")
        /// Point of Sale cannot be opened: `SCCErrorCodeCannotOpenApplication` (6).
        public static let cannotOpenApplication = Code(rawValue: "cannot_open_application")
        /// The request JSON could not be produced: `SCCErrorCodeUnableToGenerateRequestJSON` (7).
        public static let unableToGenerateRequestJSON = Code(rawValue: "unable_to_generate_request_json")
        /// The callback has no usable `data` parameter: `SCCErrorCodeMissingOrInvalidResponseData` (8).
        public static let missingOrInvalidResponseData = Code(rawValue: "missing_or_invalid_response_data")
        /// `data` is not a JSON object: `SCCErrorCodeMissingOrInvalidResponseJSONData` (9).
        public static let missingOrInvalidResponseJSONData = Code(rawValue: "missing_or_invalid_response_json_data")
        /// `status` is not `"ok"` or `"error"`: `SCCErrorCodeMissingOrInvalidResponseStatus` (10).
        public static let missingOrInvalidResponseStatus = Code(rawValue: "missing_or_invalid_response_status")
        /// An error reply has no `error_code` string: `SCCErrorCodeMissingOrInvalidResponseErrorCode` (11).
        public static let missingOrInvalidResponseErrorCode = Code(rawValue: "missing_or_invalid_response_error_code")
        /// Tender: the API version is empty or not a version.
        public static let invalidAPIVersion = Code(rawValue: "invalid_api_version")
        /// Tender: a request URL being decoded is not a valid Point of Sale request, or a request being built has a
        /// field Tender refuses (a NUL character, a card number in an identifier).
        public static let invalidRequestData = Code(rawValue: "invalid_request_data")
        /// Tender: a tender type name is not known.
        public static let invalidTenderType = Code(rawValue: "invalid_tender_type")

        /// The number of the code in the official SDK's `SCCErrorDomain`, or `nil` for Tender's own codes.
        public var sdkErrorCode: Int? {
            Code.sdkNumbers[self]
        }

        /// The name of the code's constant in the official SDK, such as `SCCErrorCodeInvalidRequestAmount`.
        public var sdkName: String? {
            Code.sdkNames[self]
        }

        private static let sdkNumbers: [Code: Int] = [
            .unknown: 0, .missingCurrencyCode: 1, .missingRequestClientID: 3, .invalidRequestCallbackURL: 4,
            .invalidRequestAmount: 5, .cannotOpenApplication: 6, .unableToGenerateRequestJSON: 7,
            .missingOrInvalidResponseData: 8, .missingOrInvalidResponseJSONData: 9,
            .missingOrInvalidResponseStatus: 10, .missingOrInvalidResponseErrorCode: 11,
        ]

        private static let sdkNames: [Code: String] = [
            .unknown: "SCCErrorCodeUnknown", .missingCurrencyCode: "SCCErrorCodeMissingCurrencyCode",
            .missingRequestClientID: "SCCErrorCodeMissingRequestClientID",
            .invalidRequestCallbackURL: "SCCErrorCodeInvalidRequestCallbackURL",
            .invalidRequestAmount: "SCCErrorCodeInvalidRequestAmount",
            .cannotOpenApplication: "SCCErrorCodeCannotOpenApplication",
            .unableToGenerateRequestJSON: "SCCErrorCodeUnableToGenerateRequestJSON",
            .missingOrInvalidResponseData: "SCCErrorCodeMissingOrInvalidResponseData",
            .missingOrInvalidResponseJSONData: "SCCErrorCodeMissingOrInvalidResponseJSONData",
            .missingOrInvalidResponseStatus: "SCCErrorCodeMissingOrInvalidResponseStatus",
            .missingOrInvalidResponseErrorCode: "SCCErrorCodeMissingOrInvalidResponseErrorCode",
        ]
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains tokens or whole URLs.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
