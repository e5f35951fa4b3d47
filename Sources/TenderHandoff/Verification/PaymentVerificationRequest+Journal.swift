import Tender
public import TenderProviderAPI

extension PaymentVerificationRequest {
    /// What the journal knows of a payment, for a `PaymentVerifier`: provider, amount, idempotency key, its time (when
    /// it was written ahead and when it expired), what the POS app reported, and the identifiers the provider's server
    /// looks it up by.
    ///
    /// | journal | request | verifier |
    /// |---|---|---|
    /// | `createdAt`: when the payment was written, before its first hand-off | `writtenAheadAt` | no record made before it (less `clockAllowance`) is this payment's |
    /// | `expiresAt`: when its (last) hand-off expired | `expiresAt` | a search looks up to it; records up to `providerDelay` after it |
    /// | the callback's `transaction_id` (Square) | `transactionID` | Square: the order, then its payments |
    /// | the callback's `client_transaction_id` (Square) | `clientTransactionID` | kept as evidence; ListPayments is searched |
    /// | the payment's `foreign-tx-id` (SumUp) | `foreignTransactionID` | SumUp: looked up by it first |
    /// | the callback's `smp-tx-code` (SumUp) | `transactionID` | SumUp: compared, and looked up when the first finds nothing |
    /// | the tender types the Square request allowed | `squareTenderTypes` | Square: a payment of another type is no match, or contradicts |
    /// | the Square request's application (`client_id`) | `squareApplicationID` | Square: a payment another application took is no match, or contradicts |
    /// | the payment's ID | `paymentID` | the fleet server (`FleetServerVerifier`): the payment it is asked about |
    ///
    /// Only a callback's report and identifiers are passed: an outcome resolved by hand, or proven by the server
    /// already, is not what the POS app said. A Square payment with no `transaction_id` (offline, cash, or no
    /// callback) is searched for by amount and time.
    ///
    /// - Parameters:
    ///   - squareLocationID: the Square location the payment was requested at. Give it whenever it is known: a
    ///     record at another location then never confirms the payment, whether the callback named it or a search
    ///     found it, and a search lists that location (without one, Square lists the seller's main location).
    ///   - clockAllowance: how far the device's clock may be from the provider's
    ///     (``PaymentVerificationRequest/defaultClockAllowance``, 2 minutes, by default).
    public init(
        entry: JournalEntry,
        squareLocationID: String? = nil,
        clockAllowance: Duration = PaymentVerificationRequest.defaultClockAllowance
    ) {
        let reported = entry.outcome?.source == .callback ? entry.outcome : nil
        self.init(
            provider: entry.provider,
            amount: entry.amount,
            writtenAheadAt: entry.createdAt,
            expiresAt: entry.expiresAt,
            clockAllowance: clockAllowance,
            reportedStatus: reported?.status,
            transactionID: reported?.transactionID,
            clientTransactionID: reported?.clientTransactionID,
            foreignTransactionID: entry.provider == .sumUp ? entry.foreignTransactionID : nil,
            squareLocationID: entry.provider == .square ? squareLocationID : nil,
            squareTenderTypes: entry.provider == .square ? entry.squareTenderTypes : nil,
            squareApplicationID: entry.provider == .square ? entry.squareApplicationID : nil,
            idempotencyKey: entry.idempotencyKey,
            paymentID: entry.id.rawValue
        )
    }
}
