/// Square Point of Sale's answer, parsed from the callback URL it opened (`SCCAPIResponse`).
///
/// ```swift
/// let response = try SquareResponse(callbackURL: url)
/// switch response.outcome.status {
/// case .approved: print(response.transactionID ?? response.clientTransactionID ?? "")
/// case .cancelled: print("cancelled")
/// default: print(response.errorCode?.message ?? "")
/// }
/// ```
///
/// Parsing follows the SDK (spec §2.2) and is stricter where SEC-6 asks: the query must be readable with
/// strict percent-decoding, `data` must appear exactly once and be strict JSON (no duplicate keys or
/// trailing commas), `status` must be the string `"ok"` or `"error"`, identifiers must look like identifiers, and
/// a key Tender reads (`status`, `state`, `transaction_id`, `client_transaction_id`, `error_code`) that holds another
/// JSON type than a string refuses the reply, where the SDK reads it as absent. Other keys (the legacy `payment_id`)
/// and an `error_code` string on success (the SDK's tests send `"0"`) are ignored as the SDK ignores them.
public struct SquareResponse: PaymentCallback {
    /// ``PaymentProvider/square``.
    public static var provider: PaymentProvider { .square }

    /// Square's server transaction ID (`transaction_id`), the ID of the payment's order in Square's Orders API;
    /// missing for offline, cash or other tenders (spec §2.3).
    public var transactionID: String?
    /// The ID Point of Sale generated on the device (`client_transaction_id`, the `client_id` of the Connect v2
    /// transaction). It is not an order ID: no Square endpoint looks a payment up by it.
    public var clientTransactionID: String?
    /// The request's `state`, echoed back.
    public var state: String?
    /// The error code Point of Sale reported (`error_code`), or `nil` for a successful payment.
    public var errorCode: ErrorCode?
    /// Whether the callback URL carried the `square_request` marker (``SquareCallbackMarker/isMarked(_:)``).
    public var hasCallbackMarker: Bool

    /// Creates a response directly (for tests and simulators). Nothing is checked: parse what comes from outside with
    /// ``init(callbackURL:)-(CallbackURL)``.
    public init(
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        state: String? = nil,
        errorCode: ErrorCode? = nil,
        hasCallbackMarker: Bool = true
    ) {
        self.transactionID = transactionID
        self.clientTransactionID = clientTransactionID
        self.state = state
        self.errorCode = errorCode
        self.hasCallbackMarker = hasCallbackMarker
    }

    /// Whether the payment succeeded (`isSuccessResponse`): exactly when there is no ``errorCode``.
    public var isSuccess: Bool { errorCode == nil }

    /// The echoed ``state``: where Tender's hand-off carries its token.
    public var correlationToken: String? { state }

    /// The response in Tender's outcome model: success is approved, `payment_canceled` is cancelled, any
    /// other error is failed with its code kept. Point of Sale never reports a decline: declined cards are
    /// retried inside the app. ``transactionID`` and ``clientTransactionID`` stay apart, as
    /// ``PaymentOutcome/transactionID`` and ``PaymentOutcome/clientTransactionID``.
    public var outcome: PaymentOutcome {
        let status: PaymentOutcome.Status
        if let errorCode {
            status = errorCode == .paymentCanceled ? .cancelled : .failed
        } else {
            status = .approved
        }
        return PaymentOutcome(
            status: status,
            provider: .square,
            transactionID: transactionID,
            clientTransactionID: clientTransactionID,
            errorCode: errorCode?.rawValue,
            message: errorCode?.message,
            details: .square(self)
        )
    }
}
