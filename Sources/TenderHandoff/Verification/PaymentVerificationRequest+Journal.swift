import Tender
public import TenderProviderAPI

extension PaymentVerificationRequest {
    /// What the journal knows of a payment, for a `PaymentVerifier`: provider, amount, idempotency key, the
    /// window from its creation to its expiry (with `slack`), what the POS app reported, and the identifiers the
    /// provider's server looks it up by.
    ///
    /// | journal | request | verifier |
    /// |---|---|---|
    /// | the callback's `transaction_id` (Square) | `transactionID` | Square: RetrieveOrder, then GetPayment |
    /// | the callback's `client_transaction_id` (Square) | `clientTransactionID` | kept as evidence; ListPayments is searched |
    /// | the payment's `foreign-tx-id` (SumUp) | `foreignTransactionID` | SumUp: looked up by it first |
    /// | the callback's `smp-tx-code` (SumUp) | `transactionID` | SumUp: compared, and looked up when the first finds nothing |
    /// | the tender types the Square request allowed | `squareTenderTypes` | Square: a payment of another type is no match, or contradicts |
    ///
    /// Only a callback's report and identifiers are passed: an outcome resolved by hand, or proven by the server
    /// already, is not what the POS app said. A Square payment with no `transaction_id` (offline, cash, or no
    /// callback) is searched for by amount and time; give `squareLocationID` to narrow the search to the location.
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
            transactionID: reported?.transactionID,
            clientTransactionID: reported?.clientTransactionID,
            foreignTransactionID: entry.provider == .sumUp ? entry.foreignTransactionID : nil,
            squareLocationID: squareLocationID,
            squareTenderTypes: entry.provider == .square ? entry.squareTenderTypes : nil,
            idempotencyKey: entry.idempotencyKey
        )
    }
}
