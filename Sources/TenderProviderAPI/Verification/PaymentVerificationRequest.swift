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
/// | ``transactionID`` | `transaction_id`: an Orders API order ID, looked up (RetrieveOrder, BatchRetrieveOrders) | `smp-tx-code`: compared, and looked up when there is no ``foreignTransactionID`` |
/// | ``clientTransactionID`` | `client_transaction_id` (offline and cash payments): kept as evidence; Square cannot look it up | — |
/// | ``foreignTransactionID`` | — | `foreign-tx-id`: looked up (preferred) |
/// | ``squareLocationID`` | every record must be at this location; a search lists it | — |
/// | ``squareTenderTypes`` | a payment of a type the request did not allow contradicts | — |
/// | ``squareApplicationID`` | a payment another application took contradicts; a search skips it | — |
/// | ``writtenAheadAt``, ``expiresAt`` | every record's times must be in ``recordWindow``; a search looks in ``window`` | the transaction's time must be in ``recordWindow`` |
///
/// ## The payment's time
///
/// A record of the provider's is this payment's only if the provider made it while the payment could be taken:
///
/// - not before ``writtenAheadAt``, when Tender wrote the payment ahead of its first hand-off, less
///   ``clockAllowance`` (the device's clock, which dates ``writtenAheadAt``, may run ahead of the provider's);
/// - not after ``expiresAt`` plus ``providerDelay``: a payment taken offline reaches the provider's server, and gets
///   its record there, when the device is online again.
///
/// That is ``recordWindow``, which every record looked up must fall in (all its times: Square's `created_at`, and
/// for a payment taken offline the time the device took it). A search, which has no identifier to go by, looks
/// only at payments taken in ``window``: from ``writtenAheadAt`` to ``expiresAt``, with ``clockAllowance`` on both
/// sides.
public struct PaymentVerificationRequest: Sendable, Hashable {
    /// The POS app the payment was handed to.
    public var provider: PaymentProvider
    /// The amount requested (tip not included).
    public var amount: Money
    /// When Tender wrote the payment ahead, before its first hand-off, by the device's clock. No record the
    /// provider made before then (less ``clockAllowance``) is this payment's.
    public var writtenAheadAt: Date
    /// When the payment's hand-off expired (its last one, after a reopen), by the device's clock.
    public var expiresAt: Date
    /// How far the device's clock may be from the provider's: records are accepted from this long before
    /// ``writtenAheadAt``, and a search looks this long beyond ``expiresAt``. Default:
    /// ``defaultClockAllowance`` (2 minutes).
    public var clockAllowance: Duration
    /// How long after ``expiresAt`` the provider may still make the payment's record: the time a payment taken
    /// offline may take to reach it. Default: ``offlineSyncAllowance`` (72 hours).
    public var providerDelay: Duration
    /// What the POS app reported; `nil` when no answer came.
    public var reportedStatus: PaymentOutcome.Status?
    /// The transaction ID the POS app reported: Square's `transaction_id` (an order ID), SumUp's `smp-tx-code`.
    public var transactionID: String?
    /// Square's `client_transaction_id`, reported instead of a `transaction_id` for offline and cash payments.
    public var clientTransactionID: String?
    /// SumUp's `foreign-tx-id`: the unique ID the request carried, SumUp's lookup key.
    public var foreignTransactionID: String?
    /// The Square location the payment was requested at, if known. When it is, no record at another location
    /// confirms the payment, however it was found.
    public var squareLocationID: String?
    /// The tender types the Square request allowed (card only, or card and cash, …), if known.
    public var squareTenderTypes: SquareTenderTypes?
    /// The Square application that made the request (its `client_id`), if known. When it is, a Square payment whose
    /// `application_details.application_id` names another application is not this payment, however it was found.
    public var squareApplicationID: String?
    /// The payment's idempotency key (REL-4). The reads a verifier makes (Square's RetrieveOrder, GetPayment,
    /// ListPayments, BatchRetrieveOrders; SumUp's transaction lookup) take none and change nothing, so asking
    /// twice is safe; the key is for the calls about the payment that do take one, such as refunds.
    public var idempotencyKey: UUID
    /// The payment's ID in its journal, for a verifier that asks by it (``FleetServerVerifier``: the merchant's server
    /// knows each device's payments by their IDs); `nil` when not known. The providers' verifiers do not read it.
    public var paymentID: String?

    /// Creates a request.
    public init(
        provider: PaymentProvider,
        amount: Money,
        writtenAheadAt: Date,
        expiresAt: Date,
        clockAllowance: Duration = PaymentVerificationRequest.defaultClockAllowance,
        providerDelay: Duration = PaymentVerificationRequest.offlineSyncAllowance,
        reportedStatus: PaymentOutcome.Status? = nil,
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        foreignTransactionID: String? = nil,
        squareLocationID: String? = nil,
        squareTenderTypes: SquareTenderTypes? = nil,
        squareApplicationID: String? = nil,
        idempotencyKey: UUID,
        paymentID: String? = nil
    ) {
        self.provider = provider
        self.amount = amount
        self.writtenAheadAt = writtenAheadAt
        self.expiresAt = expiresAt
        self.clockAllowance = clockAllowance
        self.providerDelay = providerDelay
        self.reportedStatus = reportedStatus
        self.transactionID = transactionID
        self.clientTransactionID = clientTransactionID
        self.foreignTransactionID = foreignTransactionID
        self.squareLocationID = squareLocationID
        self.squareTenderTypes = squareTenderTypes
        self.squareApplicationID = squareApplicationID
        self.idempotencyKey = idempotencyKey
        self.paymentID = paymentID
    }

    /// The device clock allowance by default: 2 minutes. A device that sets its time from the network is within
    /// seconds of the providers' servers; two minutes leave room for one that is not, and no more, so that an
    /// order made a few minutes before the payment was written (another sale's) is not taken for it.
    public static let defaultClockAllowance: Duration = .seconds(120)

    /// How long after a payment's expiry its record may still reach the provider's server: 72 hours. Square
    /// processes payments taken offline "when you reconnect your device to the internet within 24 hours (no later
    /// than 72 hours)" (Square's "Process offline payments" help page); SumUp's readers store and forward offline
    /// payments too, and Tender waits as long for them.
    ///
    /// It is the default ``providerDelay``; and a payment the POS app reported as not taken (cancelled, declined,
    /// failed) that the server still does not have once ``recordWindow`` has passed is confirmed
    /// (``PaymentVerification/Reason/noRecord``) instead of "not found yet" for ever.
    public static let offlineSyncAllowance: Duration = .seconds(72 * 3600)

    /// When the payment can have been taken, by the provider's clock: from ``writtenAheadAt`` to ``expiresAt``,
    /// widened by ``clockAllowance`` on both sides (an ``expiresAt`` before ``writtenAheadAt`` is read as
    /// ``writtenAheadAt``). A search looks for payments taken in it.
    public var window: DateInterval {
        let allowance = max(0, clockAllowance.timeInterval)
        return DateInterval(
            start: writtenAheadAt.addingTimeInterval(-allowance),
            end: max(writtenAheadAt, expiresAt).addingTimeInterval(allowance)
        )
    }

    /// When the provider can have made a record of the payment: from ``writtenAheadAt`` less ``clockAllowance`` to
    /// ``expiresAt`` plus ``providerDelay``. A record with a time outside it is another sale's.
    public var recordWindow: DateInterval {
        let window = self.window
        return DateInterval(
            start: window.start,
            end: max(window.end, max(writtenAheadAt, expiresAt).addingTimeInterval(max(0, providerDelay.timeInterval)))
        )
    }
}
