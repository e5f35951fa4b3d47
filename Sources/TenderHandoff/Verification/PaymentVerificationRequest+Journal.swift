import Tender
public import TenderProviderAPI

extension PaymentVerificationRequest {
    /// What the journal knows of a payment, for a `PaymentVerifier`: provider, amount, idempotency key, the
    /// window from its creation to its expiry (with `slack`), what the POS app reported, and its transaction ID.
    ///
    /// The journal keeps one transaction ID per outcome, and for Square it may be the `client_transaction_id` of an
    /// offline or cash payment, which is no order ID: looked up as one it would read as "no such order". So a
    /// Square payment's ID is not passed, and `SquarePaymentVerifier` searches ListPayments by amount and time
    /// (give `squareLocationID` to narrow the search to the location). Other providers' IDs are passed as
    /// `transactionID` (SumUp's `smp-tx-code`).
    public init(
        entry: JournalEntry,
        squareLocationID: String? = nil,
        slack: Duration = PaymentVerificationRequest.defaultSlack
    ) {
        let reported = entry.outcome?.source == .callback ? entry.outcome : nil
        self.init(
            provider: entry.provider,
            amount: entry.amount,
            window: PaymentVerificationRequest.window(from: entry.createdAt, to: entry.expiresAt, slack: slack),
            reportedStatus: reported?.status,
            transactionID: entry.provider == .square ? nil : reported?.transactionID,
            squareLocationID: squareLocationID,
            idempotencyKey: entry.idempotencyKey
        )
    }
}
