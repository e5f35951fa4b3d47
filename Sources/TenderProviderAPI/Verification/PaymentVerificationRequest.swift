public import Foundation
public import Tender

/// What Tender knows of one payment, for a ``PaymentVerifier`` to check with the provider's server: what was
/// asked for, where, when, what the POS app reported, and the identifiers it gave.
///
/// Build one from your own records (the hand-off journal builds it from a `JournalEntry`). Fill in every
/// field you have: each one the server can check makes the verdict stronger.
///
/// | field | Square | SumUp |
/// |---|---|---|
/// | ``transactionID`` | `transaction_id`: an Orders API order ID, looked up (RetrieveOrder) | `smp-tx-code`: compared, and looked up when there is no ``foreignTransactionID`` |
/// | ``clientTransactionID`` | `client_transaction_id` (offline and cash payments): kept as evidence; Square cannot look it up | — |
/// | ``foreignTransactionID`` | — | `foreign-tx-id`: looked up (preferred) |
/// | ``squareLocationID`` | compared with the order's and the payments' location; filters a search | — |
/// | ``squareTenderTypes`` | a payment of a type the request did not allow contradicts | — |
/// | ``window`` | the search range of ListPayments when there is no `transaction_id` | — |
public struct PaymentVerificationRequest: Sendable, Hashable {
    /// The POS app the payment was handed to.
    public var provider: PaymentProvider
    /// The amount requested (tip not included).
    public var amount: Money
    /// When the payment can have happened: from a little before the hand-off to a little after it expired
    /// (``window(from:to:slack:)``).
    public var window: DateInterval
    /// What the POS app reported; `nil` when no answer came.
    public var reportedStatus: PaymentOutcome.Status?
    /// The transaction ID the POS app reported: Square's `transaction_id` (an order ID), SumUp's `smp-tx-code`.
    public var transactionID: String?
    /// Square's `client_transaction_id`, reported instead of a `transaction_id` for offline and cash payments.
    public var clientTransactionID: String?
    /// SumUp's `foreign-tx-id`: the unique ID the request carried, SumUp's lookup key.
    public var foreignTransactionID: String?
    /// The Square location the payment was requested at, if known.
    public var squareLocationID: String?
    /// The tender types the Square request allowed (card only, or card and cash, …), if known.
    public var squareTenderTypes: SquareTenderTypes?
    /// The payment's idempotency key (REL-4). The reads a verifier makes (Square's RetrieveOrder, GetPayment,
    /// ListPayments, BatchRetrieveOrders; SumUp's transaction lookup) take none and change nothing, so asking
    /// twice is safe; the key is for the calls about the payment that do take one, such as refunds.
    public var idempotencyKey: UUID

    /// Creates a request.
    public init(
        provider: PaymentProvider,
        amount: Money,
        window: DateInterval,
        reportedStatus: PaymentOutcome.Status? = nil,
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        foreignTransactionID: String? = nil,
        squareLocationID: String? = nil,
        squareTenderTypes: SquareTenderTypes? = nil,
        idempotencyKey: UUID
    ) {
        self.provider = provider
        self.amount = amount
        self.window = window
        self.reportedStatus = reportedStatus
        self.transactionID = transactionID
        self.clientTransactionID = clientTransactionID
        self.foreignTransactionID = foreignTransactionID
        self.squareLocationID = squareLocationID
        self.squareTenderTypes = squareTenderTypes
        self.idempotencyKey = idempotencyKey
    }

    /// The slack added on both sides of a window by default: five minutes, for clocks that differ a little.
    public static let defaultSlack: Duration = .seconds(300)

    /// How long after a payment's window its record may still reach the provider's server: 72 hours. Square
    /// processes payments taken offline "when you reconnect your device to the internet within 24 hours (no later
    /// than 72 hours)" (Square's "Process offline payments" help page); SumUp's readers store and forward offline
    /// payments too, and Tender waits as long for them.
    ///
    /// The verifiers use it twice: a Square order or payment looked up by its ID may have been created at Square
    /// up to this long after the window (an offline payment keeps the device's time only in
    /// `offline_payment_details`); and a payment the POS app reported as not taken (cancelled, declined, failed)
    /// that the server still does not have this long after its window is confirmed
    /// (``PaymentVerification/Reason/noRecord``) instead of "not found yet" for ever.
    public static let offlineSyncAllowance: Duration = .seconds(72 * 3600)

    /// The window of a payment handed off at `start` that expired at `end`, widened by `slack` on both sides.
    /// An `end` before `start` is read as `start`.
    public static func window(from start: Date, to end: Date, slack: Duration = defaultSlack) -> DateInterval {
        let seconds = Double(slack.components.seconds) + Double(slack.components.attoseconds) / 1e18
        let margin = max(0, seconds)
        return DateInterval(start: start.addingTimeInterval(-margin), end: max(start, end).addingTimeInterval(margin))
    }
}
