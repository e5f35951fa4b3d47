public import Tender

/// The result of handling one callback URL.
public struct CallbackReceipt: Sendable, Hashable {
    /// What became of the callback.
    public var disposition: CallbackDisposition
    /// The POS app the callback claims to come from.
    public var provider: PaymentProvider
    /// What the callback says, redacted. Only the payment's ``JournalEntry/state`` tells whether to trust it.
    public var reportedOutcome: RecordedOutcome
    /// The payment the callback's token belongs to, as it stands after the callback; `nil` when unsolicited.
    public var entry: JournalEntry?

    /// Creates a receipt.
    public init(
        disposition: CallbackDisposition,
        provider: PaymentProvider,
        reportedOutcome: RecordedOutcome,
        entry: JournalEntry?
    ) {
        self.disposition = disposition
        self.provider = provider
        self.reportedOutcome = reportedOutcome
        self.entry = entry
    }

    /// The payment's identifier, or `nil` for an unsolicited callback.
    public var paymentID: PaymentID? { entry?.id }
}
