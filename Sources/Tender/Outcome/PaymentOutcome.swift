/// What became of a payment, the same shape for every POS app.
///
/// Each provider's callback maps onto one ``Status``: ``Status/approved``, ``Status/declined``,
/// ``Status/cancelled`` or ``Status/failed``. The provider's own reply stays reachable in ``details``,
/// its error code (as the wire string) in ``errorCode``.
///
/// An outcome parsed from a callback URL is only what the POS app *reported* (``assurance`` is
/// ``Assurance/reportedByPOSApp``): anyone who can open the app's URL scheme can send one. It becomes
/// ``Assurance/verifiedWithProvider`` only when a verifier has checked it with the provider's server (SEC-7).
public struct PaymentOutcome: Sendable, Hashable {
    /// The result of a payment.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// The payment was taken.
        case approved
        /// The card issuer or the payment host refused the payment.
        case declined
        /// The merchant or the customer cancelled before the payment was taken.
        case cancelled
        /// The POS app could not take the payment (not logged in, invalid request, network, …).
        case failed

        /// The raw value: `"approved"`, `"declined"`, `"cancelled"` or `"failed"`.
        public var description: String { rawValue }
    }

    /// How far an outcome can be trusted (SEC-7).
    public enum Assurance: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Parsed from a callback URL: the POS app (or someone pretending to be it) said so.
        case reportedByPOSApp = "reported_by_pos_app"
        /// Checked with the provider's server by a verifier.
        case verifiedWithProvider = "verified_with_provider"

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The provider's own reply, parsed.
    public enum Details: Sendable, Hashable {
        /// Square Point of Sale's reply.
        case square(SquareResponse)
        /// Swipe's reply.
        case swipe(SwipeResponse)
        /// Comercia SoftPOS's reply.
        case softPOS(SoftPOSResponse)
        /// SumUp's reply.
        case sumUp(SumUpResponse)
    }

    /// The result.
    public var status: Status
    /// Which POS app answered.
    public var provider: PaymentProvider
    /// The amount the POS app reports it charged, when it reports one.
    public var amount: Money?
    /// The provider's transaction identifier, when it reports one: the one to look the payment up by on the
    /// provider's server (Square's `transaction_id`, an order ID; Swipe's `ifcc_transactionId`; SoftPOS's
    /// `transactionId`; SumUp's `smp-tx-code`).
    public var transactionID: String?
    /// The identifier the POS app gave the payment on the device, when it reports one apart from
    /// ``transactionID``: Square's `client_transaction_id`, the only ID of an offline or cash payment, which no
    /// Square endpoint looks up. `nil` for the other providers.
    public var clientTransactionID: String?
    /// The provider's error or refusal code exactly as it came on the wire, when there is one.
    public var errorCode: String?
    /// A human-readable explanation, when there is one.
    public var message: String?
    /// Whether the outcome was only reported by the POS app or verified with the provider.
    public var assurance: Assurance
    /// The provider's reply.
    public var details: Details

    /// Creates an outcome.
    public init(
        status: Status,
        provider: PaymentProvider,
        amount: Money? = nil,
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        errorCode: String? = nil,
        message: String? = nil,
        assurance: Assurance = .reportedByPOSApp,
        details: Details
    ) {
        self.status = status
        self.provider = provider
        self.amount = amount
        self.transactionID = transactionID
        self.clientTransactionID = clientTransactionID
        self.errorCode = errorCode
        self.message = message
        self.assurance = assurance
        self.details = details
    }
}
