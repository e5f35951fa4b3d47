extension SquareResponse {
    /// An `error_code` Square Point of Sale reported in its callback (`"status": "error"`; spec §2.4).
    ///
    /// A value the POS app sent, not a Swift `Error`: a reply with an error code parses, and its ``outcome`` says
    /// cancelled or failed. The code keeps the wire string whether Tender knows it or not, so a code Square adds next
    /// year still reaches the app. Known codes are static members; ``sdkErrorCode`` gives the number the official
    /// SDK's `SCCAPIErrorDomain` uses (0 for codes it does not recognise).
    ///
    /// ```swift
    /// switch response.errorCode {
    /// case nil: print("approved")
    /// case .paymentCanceled?: print("cancelled")
    /// case let code?: print(code.message)
    /// }
    /// ```
    public struct ErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The wire string, such as `"payment_canceled"`.
        public let rawValue: String
        /// Creates a code from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The merchant cancelled the payment (1).
        public static let paymentCanceled = ErrorCode(rawValue: "payment_canceled")
        /// The request JSON or its `amount_money` is invalid (2).
        public static let payloadMissingOrInvalid = ErrorCode(rawValue: "data_invalid")
        /// Nobody is logged in to Point of Sale (3).
        public static let appNotLoggedIn = ErrorCode(rawValue: "not_logged_in")
        /// Register-era login code error, removed in August 2016 (its number, 4, is unused: current SDKs give 0).
        public static let loginCodeInvalid = ErrorCode(rawValue: "login_code_invalid")
        /// `location_id` differs from the logged-in location (5; API 1.3).
        public static let locationIDMismatch = ErrorCode(rawValue: "location_id_mismatch")
        /// The Register-era (API before 1.3) name of ``locationIDMismatch`` (current SDKs give 0: their constant for
        /// it now holds `location_id_mismatch`; ``canonical`` is ``locationIDMismatch``).
        public static let userIDMismatch = ErrorCode(rawValue: "user_id_mismatch")
        /// The account cannot take card payments yet (6).
        public static let userNotActivated = ErrorCode(rawValue: "user_not_active")
        /// The currency is missing or invalid (7).
        public static let currencyMissingOrInvalid = ErrorCode(rawValue: "currency_code_missing")
        /// The currency is not supported (8).
        public static let currencyUnsupported = ErrorCode(rawValue: "unsupported_currency_code")
        /// The currency differs from the account's (9).
        public static let currencyMismatch = ErrorCode(rawValue: "currency_code_mismatch")
        /// The amount is not an integer of minor units (10).
        public static let amountMissingOrInvalid = ErrorCode(rawValue: "amount_invalid_format")
        /// The amount is below the card minimum (11).
        public static let amountTooSmall = ErrorCode(rawValue: "amount_too_small")
        /// The amount is above the card maximum (12).
        public static let amountTooLarge = ErrorCode(rawValue: "amount_too_large")
        /// An unknown string in `supported_tender_types` (13).
        public static let invalidTenderType = ErrorCode(rawValue: "invalid_tender_type")
        /// A tender type this Point of Sale version does not support (14).
        public static let unsupportedTenderType = ErrorCode(rawValue: "unsupported_tender_type")
        /// Point of Sale could not perform the request, usually an unfinished earlier one (15).
        public static let couldNotPerform = ErrorCode(rawValue: "could_not_perform")
        /// Point of Sale must be online to validate the caller (16).
        public static let noNetworkConnection = ErrorCode(rawValue: "no_network_connection")
        /// Register-era OAuth requirement, dropped with API 1.2 (17; current SDKs map it to 0).
        public static let clientNotAuthorizedForUser = ErrorCode(rawValue: "client_not_authorized_for_user")
        /// Point of Sale is too old for the request's `version` (18).
        public static let unsupportedAPIVersion = ErrorCode(rawValue: "unsupported_api_version")
        /// `version` is not a decimal version such as `1.3` (19).
        public static let invalidVersionNumber = ErrorCode(rawValue: "invalid_version_number")
        /// The account has no customer management (20).
        public static let customerManagementNotSupported = ErrorCode(rawValue: "customer_management_not_supported")
        /// `customer_id` is unknown to the merchant (21).
        public static let invalidCustomerID = ErrorCode(rawValue: "invalid_customer_id")

        /// Every code Tender knows, in `SCCAPIErrorCode` order.
        public static let known: [ErrorCode] = [
            .paymentCanceled, .payloadMissingOrInvalid, .appNotLoggedIn, .loginCodeInvalid, .locationIDMismatch,
            .userIDMismatch, .userNotActivated, .currencyMissingOrInvalid, .currencyUnsupported, .currencyMismatch,
            .amountMissingOrInvalid, .amountTooSmall, .amountTooLarge, .invalidTenderType, .unsupportedTenderType,
            .couldNotPerform, .noNetworkConnection, .clientNotAuthorizedForUser, .unsupportedAPIVersion,
            .invalidVersionNumber, .customerManagementNotSupported, .invalidCustomerID,
        ]

        /// Whether Tender knows this code.
        public var isKnown: Bool { ErrorCode.table[self] != nil }

        /// The code with Register-era names replaced by their current ones: `user_id_mismatch` is
        /// ``locationIDMismatch``; every other code is itself.
        public var canonical: ErrorCode {
            self == .userIDMismatch ? .locationIDMismatch : self
        }

        /// The number the official SDK (3.5.x) gives the code in `SCCAPIErrorDomain`; 0 (`SCCAPIErrorCodeUnknown`) for
        /// unknown codes and for the three Register-era strings it no longer maps (`login_code_invalid`,
        /// `user_id_mismatch`, `client_not_authorized_for_user`: square §2.4), which Tender still explains.
        public var sdkErrorCode: Int { ErrorCode.table[self]?.number ?? 0 }

        /// The official `SCCAPIErrorCode` constant name the SDK gives the code, such as `SCCAPIErrorCodePaymentCanceled`
        /// (`SCCAPIErrorCodeUnknown` where ``sdkErrorCode`` is 0).
        public var sdkName: String { ErrorCode.table[self]?.name ?? "SCCAPIErrorCodeUnknown" }

        /// What the code means and what to do, for known codes.
        public var explanation: String? { ErrorCode.table[self]?.explanation }

        private static let table: [ErrorCode: (number: Int, name: String, explanation: String)] = [
            .paymentCanceled: (1, "SCCAPIErrorCodePaymentCanceled", "The payment was cancelled in Point of Sale."),
            .payloadMissingOrInvalid: (
                2, "SCCAPIErrorCodePayloadMissingOrInvalid",
                "Point of Sale found the request data or its amount invalid."
            ),
            .appNotLoggedIn: (
                3, "SCCAPIErrorCodeAppNotLoggedIn", "Nobody is logged in to Point of Sale: log in and try again."
            ),
            // The three Register-era strings the SDK no longer maps: 0, as it gives them (square §2.4).
            .loginCodeInvalid: (0, "SCCAPIErrorCodeUnknown", "Register-era login code error (no longer sent)."),
            .locationIDMismatch: (
                5, "SCCAPIErrorCodeLocationIDMismatch",
                "The request's location differs from the location logged in to Point of Sale."
            ),
            .userIDMismatch: (
                0, "SCCAPIErrorCodeUnknown",
                "The request's location differs from the location logged in to Square Register (API before 1.3)."
            ),
            .userNotActivated: (
                6, "SCCAPIErrorCodeUserNotActivated",
                "The Square account cannot take card payments yet: activate it at squareup.com/activate."
            ),
            .currencyMissingOrInvalid: (
                7, "SCCAPIErrorCodeCurrencyMissingOrInvalid", "The request's currency is missing or invalid."
            ),
            .currencyUnsupported: (
                8, "SCCAPIErrorCodeCurrencyUnsupported", "Point of Sale does not support the request's currency."
            ),
            .currencyMismatch: (
                9, "SCCAPIErrorCodeCurrencyMismatch", "The request's currency differs from the Square account's."
            ),
            .amountMissingOrInvalid: (
                10, "SCCAPIErrorCodeAmountMissingOrInvalid", "The amount is not a whole number of minor units."
            ),
            .amountTooSmall: (
                11, "SCCAPIErrorCodeAmountTooSmall",
                "The amount is below the minimum card amount (such as $1.00): allow a non-card tender."
            ),
            .amountTooLarge: (
                12, "SCCAPIErrorCodeAmountTooLarge",
                "The amount is above the maximum card amount: allow a non-card tender."
            ),
            .invalidTenderType: (
                13, "SCCAPIErrorCodeInvalidTenderType", "The request lists a tender type Point of Sale does not know."
            ),
            .unsupportedTenderType: (
                14, "SCCAPIErrorCodeUnsupportedTenderType",
                "This version of Point of Sale does not support a requested tender type."
            ),
            .couldNotPerform: (
                15, "SCCAPIErrorCodeCouldNotPerform",
                "Point of Sale could not take the request, usually because an earlier one is unfinished: finish it."
            ),
            .noNetworkConnection: (
                16, "SCCAPIErrorCodeNoNetworkConnection",
                "Point of Sale must be online to check the calling app: connect and try again."
            ),
            .clientNotAuthorizedForUser: (
                0, "SCCAPIErrorCodeUnknown",
                "Register-era error: the merchant had not authorised the app through OAuth."
            ),
            .unsupportedAPIVersion: (
                18, "SCCAPIErrorCodeUnsupportedAPIVersion",
                "Point of Sale is too old for the request's API version: update it."
            ),
            .invalidVersionNumber: (
                19, "SCCAPIErrorCodeInvalidVersionNumber", "The request's API version is not a version such as 1.3."
            ),
            .customerManagementNotSupported: (
                20, "SCCAPIErrorCodeCustomerManagementNotSupported",
                "The Square account does not support customer management."
            ),
            .invalidCustomerID: (
                21, "SCCAPIErrorCodeInvalidCustomerID", "The request's customer ID is unknown to the merchant."
            ),
        ]

        /// What the code means and what to do, for people; for an unknown code, says so and names it (masked and cut
        /// short: it came from outside).
        public var message: String {
            explanation
                ?? "Square Point of Sale reported an error Tender does not know: '\(UntrustedText.safe(rawValue))'."
        }

        /// The wire string.
        public var description: String { rawValue }

        /// The form of an `error_code` Tender accepts, for messages.
        package static let shape = "1 to 192 letters, digits, '_', '-', '.' or ':'"

        /// Whether a wire string can be an error code: ``shape``, and no card number (SEC-9: a code is kept, logged
        /// and written to the journal as it is).
        package static func isValid(_ text: String) -> Bool {
            UntrustedText.isIdentifier(text, maximumLength: 192, punctuation: "_-.:")
                && !CardNumberScreen.containsCardNumber(text)
        }
    }
}
