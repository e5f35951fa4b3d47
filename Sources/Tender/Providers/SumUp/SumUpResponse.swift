/// SumUp's answer, parsed from the `callbacksuccess` or `callbackfail` URL it opened (sumup §2).
///
/// ```swift
/// let response = try SumUpResponse(callbackURL: url)
/// switch response.status {
/// case .success: print("Paid:", response.transactionCode ?? "no code (app before 1.53)")
/// case .failed, .invalidState: print(response.outcome.status, response.message ?? "")
/// }
/// ```
///
/// Parsing is strict (SEC-6): each `smp-` parameter and `foreign-tx-id` at most once, `smp-status` from its
/// three values, identifiers of their documented form, `smp-receipt-sent` `true` or `false`, the message bounded
/// with card numbers masked. Other parameters, such as the callback URL's own query, are left alone.
public struct SumUpResponse: PaymentCallback {
    /// ``PaymentProvider/sumUp``.
    public static var provider: PaymentProvider { .sumUp }

    /// How the payment ended (`smp-status`).
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// The payment was taken: `success`.
        case success
        /// The payment was not taken: `failed`. SumUp does not say whether the card was declined.
        case failed
        /// SumUp could not take the request at all, such as when nobody is logged in: `invalidstate`.
        case invalidState = "invalidstate"

        /// The wire string.
        public var description: String { rawValue }
    }

    /// How the payment ended.
    public var status: Status
    /// SumUp's transaction code (`smp-tx-code`; app 1.53 and later).
    public var transactionCode: String?
    /// The request's `foreign-tx-id`, echoed (app 1.53.2 and later).
    public var foreignTransactionID: String?
    /// SumUp's localized message (`smp-message`). Card numbers are masked.
    public var message: String?
    /// The one-time token a hand-off put on the callback URL (``Correlation/parameterName``), which SumUp brings
    /// back with the URL's own query (sumup §2); `nil` when the URL has none.
    public var callbackToken: String?
    /// Why the payment failed (`smp-failure-cause`), when SumUp says; documented with `smp-status=failed`.
    public var failureCause: FailureCause?
    /// Whether SumUp sent the customer a receipt (`smp-receipt-sent`), when it says.
    public var receiptSent: Bool?

    /// Creates a response directly, for tests and simulators. Nothing is checked: parse what comes from
    /// outside with ``init(callbackURLString:)``.
    public init(
        status: Status,
        transactionCode: String? = nil,
        foreignTransactionID: String? = nil,
        message: String? = nil,
        callbackToken: String? = nil,
        failureCause: FailureCause? = nil,
        receiptSent: Bool? = nil
    ) {
        self.status = status
        self.transactionCode = transactionCode
        self.foreignTransactionID = foreignTransactionID
        self.message = message
        self.callbackToken = callbackToken
        self.failureCause = failureCause
        self.receiptSent = receiptSent
    }

    /// The hand-off's token: ``callbackToken``, on the callback URL. An answer without one that echoes a
    /// ``foreignTransactionID`` answers a request made before Tender moved the token to the callback URL (the token
    /// was then the `foreign-tx-id`), and that echo is its token.
    public var correlationToken: String? { callbackToken ?? foreignTransactionID }

    /// The response in Tender's outcome model (sumup §2): `success` is approved; `failed` is failed, or declined
    /// when the message says "declined"; `invalidstate` is failed. ``PaymentOutcome/errorCode`` is the status of
    /// an answer that is not a success; ``failureCause`` and ``receiptSent`` are in the outcome's
    /// ``PaymentOutcome/details``. SumUp echoes no amount.
    public var outcome: PaymentOutcome {
        let outcomeStatus: PaymentOutcome.Status
        switch status {
        case .success: outcomeStatus = .approved
        case .failed: outcomeStatus = message?.lowercased().contains("declined") == true ? .declined : .failed
        case .invalidState: outcomeStatus = .failed
        }
        return PaymentOutcome(
            status: outcomeStatus,
            provider: .sumUp,
            transactionID: transactionCode,
            errorCode: status == .success ? nil : status.rawValue,
            message: message,
            details: .sumUp(self)
        )
    }
}
