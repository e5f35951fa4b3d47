import Foundation
import Tender
public import TenderProviderAPI
public import TenderSync

extension PaymentSnapshot {
    /// The request the server asks the providers about this payment, built from what the device sent: the one place
    /// where the server makes a `PaymentVerificationRequest`, field for field as the device makes its own from its
    /// journal entry (`PaymentVerificationRequest(entry:)`), so that both get the same verdict from the same records
    /// and the same `PaymentVerificationRequest.basis`.
    ///
    /// | snapshot | request |
    /// |---|---|
    /// | `provider`, `amount_minor_units`, `currency` | `provider`, `amount` |
    /// | `created_at` (written ahead, before the first hand-off) | `writtenAheadAt` |
    /// | `expires_at` (its last hand-off's) | `expiresAt` |
    /// | `reported_outcome`, `transaction_id`, `client_transaction_id`, when `outcome_source` is `callback` | `reportedStatus`, `transactionID`, `clientTransactionID` |
    /// | `foreign_transaction_id` (SumUp) | `foreignTransactionID` |
    /// | `square_location_id`, `square_tender_types`, `square_application_id` (Square) | `squareLocationID`, `squareTenderTypes`, `squareApplicationID` |
    /// | `idempotency_key`, `payment_id` | `idempotencyKey`, `paymentID` |
    ///
    /// `nil` when the server has nothing to ask: a payment neither unknown, pending nor flagged, and a completed one
    /// of a provider without a lookup API (Swipe, SoftPOS: their answers cannot be checked), as the device's
    /// reconciler does; or a snapshot without an expiry.
    public func verificationRequest() -> PaymentVerificationRequest? {
        let canLookUp = provider == .square || provider == .sumUp
        let asked: Bool
        switch state {
        case .unknown, .pending: asked = true
        case .completed: asked = canLookUp
        default: asked = canLookUp && (needsReconciliation || state.needsReconciliation)
        }
        return asked ? describingRequest() : nil
    }

    /// The request that describes this payment, whatever its state: ``verificationRequest()`` without the question
    /// whether the server asks about it. What a rival is judged by (`RecordContest.couldBelong(_:confirming:to:)`).
    /// `nil` for a snapshot without an expiry.
    func describingRequest() -> PaymentVerificationRequest? {
        guard let expiresAt else { return nil }
        let isCallback = outcomeSource == "callback"
        return PaymentVerificationRequest(
            provider: provider,
            amount: amount,
            writtenAheadAt: Self.date(createdAt),
            expiresAt: Self.date(expiresAt),
            reportedStatus: isCallback ? reportedOutcome : nil,
            transactionID: isCallback ? transactionID : nil,
            clientTransactionID: isCallback ? clientTransactionID : nil,
            foreignTransactionID: provider == .sumUp ? foreignTransactionID : nil,
            squareLocationID: provider == .square ? squareLocationID : nil,
            squareTenderTypes: provider == .square
                ? squareTenderTypes.flatMap { SquareTenderTypes(wireNames: $0) } : nil,
            squareApplicationID: provider == .square ? squareApplicationID : nil,
            // A device that sends no key (an old one) gets the nil UUID: no read the verifiers make takes a key.
            idempotencyKey: idempotencyKey ?? Self.noKey,
            paymentID: paymentID.rawValue
        )
    }

    /// The basis of ``verificationRequest()``: what the ledger keeps as `verification_basis`.
    public var verificationBasis: String? { verificationRequest()?.basis }

    /// The nil UUID.
    private static let noKey = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension LedgerPayment {
    /// The device's snapshot, read; `nil` when it does not read (a row changed outside the server).
    var snapshotValue: PaymentSnapshot? {
        try? JSONDecoder().decode(PaymentSnapshot.self, from: Data(snapshot.utf8))
    }
}
