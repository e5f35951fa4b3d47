/// SoftPOS's answer, parsed from the `responseUrl` it opened with a `result` parameter (softpos §2).
///
/// ```swift
/// let response = try SoftPOSResponse(callbackURL: url)
/// switch response.reply {
/// case .result(let result) where result.isApproved:
///     print("Approved:", result.transactionID)            // keep it: a refund names it
/// case .result(let result):
///     print("Refused by the host:", result.refusalCode)
/// case .error(let report):
///     print(response.outcome.status, report.message)
/// }
/// ```
///
/// The `result` parameter holds JSON with **either** `result` (the host processed the operation) or `error`.
/// Parsing is strict (SEC-6): exactly one result parameter, strict JSON, the documented types, bounded sizes.
/// Codes documented as integers are accepted as JSON numbers or strings. A lenient reading also accepts the
/// error object in a query parameter named `error`, as the vendor's prose suggests.
///
/// Outcomes: `result` with refusal code `00` is approved, any other code declined; `error` with the host's
/// `transactionResult` declined; `error` with read error `readCancelled` cancelled; any other `error` failed.
public struct SoftPOSResponse: PaymentCallback {
    /// ``PaymentProvider/softPOS``.
    public static var provider: PaymentProvider { .softPOS }

    /// What SoftPOS answered: the host's result, or an error.
    public enum Reply: Sendable, Hashable {
        /// The host processed the operation (`result`).
        case result(HostResult)
        /// The operation did not complete, or the host rejected it (`error`).
        case error(ErrorReport)
    }

    /// The host's answer to a processed operation (`result`).
    public struct HostResult: Sendable, Hashable {
        /// The host's code (`refusalCode`): `00` is approved, anything else refused.
        public var refusalCode: String
        /// The transaction identifier (`transactionId`): what a refund's original transaction id names.
        /// May be empty when the host refused.
        public var transactionID: String
        /// Host-specific keys and values (`customMessage`): `f39`, `isoStan`, `transactionTime`, … Card numbers
        /// in the values are masked (SEC-9).
        public var customMessage: [String: String]

        /// Creates a host result.
        public init(refusalCode: String, transactionID: String, customMessage: [String: String] = [:]) {
            self.refusalCode = refusalCode
            self.transactionID = transactionID
            self.customMessage = customMessage
        }

        /// Whether the host approved: ``refusalCode`` is `00`.
        public var isApproved: Bool { refusalCode == SoftPOSResponse.approvedCode }
    }

    /// Why an operation did not complete (`error`).
    public struct ErrorReport: Sendable, Hashable {
        /// The description of the error (`description`). Card numbers are masked.
        public var message: String
        /// More detail (`errorDescription`). Card numbers are masked.
        public var detail: String?
        /// The card reader's error (`softposReadError`), such as ``ReadErrorCode/readCancelled``.
        public var readError: ReadErrorCode?
        /// The app's general error (`softposError`).
        public var systemError: SystemError?
        /// The host's original answer when it rejected the transaction (`transactionResult`).
        public var transactionResult: TransactionResult?

        /// Creates an error report.
        public init(
            message: String,
            detail: String? = nil,
            readError: ReadErrorCode? = nil,
            systemError: SystemError? = nil,
            transactionResult: TransactionResult? = nil
        ) {
            self.message = message
            self.detail = detail
            self.readError = readError
            self.systemError = systemError
            self.transactionResult = transactionResult
        }
    }

    /// SoftPOS's general error (`softposError`); every field is optional.
    public struct SystemError: Sendable, Hashable {
        /// The internal system error number (`internalErrorCode`).
        public var internalErrorCode: Int?
        /// The system error code (`errorCode`).
        public var errorCode: Int?
        /// The system error subcode (`errorSubCode`).
        public var errorSubCode: Int?
        /// An additional message (`message`). Card numbers are masked.
        public var message: String?

        /// Creates a system error.
        public init(
            internalErrorCode: Int? = nil,
            errorCode: Int? = nil,
            errorSubCode: Int? = nil,
            message: String? = nil
        ) {
            self.internalErrorCode = internalErrorCode
            self.errorCode = errorCode
            self.errorSubCode = errorSubCode
            self.message = message
        }
    }

    /// The host's answer inside an error (`transactionResult`); every field is optional.
    public struct TransactionResult: Sendable, Hashable {
        /// The host's code (`refusalCode`), such as `105`.
        public var refusalCode: String?
        /// The transaction identifier (`transactionId`), when the host gave one.
        public var transactionID: String?
        /// Host-specific keys and values (`customMessage`). Card numbers in the values are masked.
        public var customMessage: [String: String]?

        /// Creates a transaction result.
        public init(refusalCode: String? = nil, transactionID: String? = nil, customMessage: [String: String]? = nil) {
            self.refusalCode = refusalCode
            self.transactionID = transactionID
            self.customMessage = customMessage
        }
    }

    /// The host's code for an approved operation: `00`.
    public static let approvedCode = "00"

    /// What SoftPOS answered.
    public var reply: Reply
    /// The value of ``Correlation/parameterName`` on the callback URL: the token the request's `responseUrl`
    /// carried, if any.
    public var correlationToken: String?

    /// Creates a response directly, for tests and simulators. Nothing is checked: parse what comes from
    /// outside with ``init(callbackURLString:)``.
    public init(reply: Reply, correlationToken: String? = nil) {
        self.reply = reply
        self.correlationToken = correlationToken
    }

    /// The host's refusal code, from `result` or from the error's `transactionResult`.
    public var refusalCode: String? {
        switch reply {
        case .result(let result): return result.refusalCode
        case .error(let report): return report.transactionResult?.refusalCode
        }
    }

    /// The transaction identifier, from `result` or from the error's `transactionResult`; `nil` when empty.
    public var transactionID: String? {
        let id: String?
        switch reply {
        case .result(let result): id = result.transactionID
        case .error(let report): id = report.transactionResult?.transactionID
        }
        return id?.isEmpty == false ? id : nil
    }

    /// The response in Tender's outcome model (softpos §2). SoftPOS echoes no amount.
    ///
    /// ``PaymentOutcome/errorCode`` is the refusal code, else the read error, else the system error code.
    /// An `error` whose `transactionResult` says `00` is reported as failed, not declined: the host approved but
    /// the app did not finish, so the payment needs reconciling.
    public var outcome: PaymentOutcome {
        let status: PaymentOutcome.Status
        var errorCode: String?
        var message: String?
        switch reply {
        case .result(let result):
            status = result.isApproved ? .approved : .declined
            errorCode = result.isApproved ? nil : result.refusalCode
        case .error(let report):
            message = report.message.isEmpty ? report.detail : report.message
            if let hostResult = report.transactionResult {
                status = hostResult.refusalCode == SoftPOSResponse.approvedCode ? .failed : .declined
                errorCode = hostResult.refusalCode
            } else if report.readError == .readCancelled {
                status = .cancelled
            } else {
                status = .failed
            }
            errorCode = errorCode ?? report.readError?.rawValue ?? report.systemError?.errorCode.map(String.init)
        }
        return PaymentOutcome(
            status: status,
            provider: .softPOS,
            transactionID: transactionID,
            errorCode: errorCode,
            message: message,
            details: .softPOS(self)
        )
    }
}
