import Foundation
public import Tender

/// One provider record confirms one payment, whichever payment is asked about first: the rule the journal and the
/// fleet server apply, in the transaction that records a confirmation, written once.
///
/// A confirmation rests on the provider's records named in its evidence (``recordIDs(of:)``: Square's order and its
/// payments, SumUp's transaction and its code). Whoever answered a callback chose the
/// transaction ID it reported: a forged approval can name the record of a genuine payment, and be asked about first.
/// So before a confirmation is recorded, the recorder looks for **rivals**: other payments of the same provider that
/// name one of those records, because their callback reported its ID, or because they were confirmed by it earlier.
///
/// A rival is told apart, and does not stop the confirmation, only when the provider's own evidence shows the record
/// cannot be the rival's (``couldBelong(_:confirming:to:)``): the rival's amount is another, the record's time is
/// outside the rival's time (``PaymentVerificationRequest/recordWindow``), or it was taken at another location, by
/// another application, or for another SumUp `foreign-tx-id`. Otherwise the record is **contested**: it confirms
/// neither payment. Both are flagged (``contested(_:of:rivals:)``, verdict `unverifiable`, reason
/// ``PaymentVerification/Reason/contested``), a rival confirmed earlier included, and a person decides which payment
/// the record is; nothing is re-decided without a trace.
///
/// | order of the questions | genuine payment | forgery naming its record |
/// |---|---|---|
/// | genuine first, then the forgery | confirmed, then contested when the forgery is asked about | contested |
/// | forgery first, then the genuine | contested | contested, then stays so |
/// | both at once | contested | contested |
///
/// No order confirms the forgery, and none contradicts the genuine payment.
public enum RecordContest: Sendable {
    /// The IDs of the provider's records a verdict rests on: the evidence's ``PaymentVerificationEvidence/recordIDs``,
    /// which Tender's verifiers fill; for evidence of another verifier that leaves them out, the order looked up and
    /// each record's ID, order and transaction code. Each once, sorted.
    public static func recordIDs(of evidence: PaymentVerificationEvidence) -> [String] {
        let derived: [String?] =
            [evidence.orderID] + evidence.records.flatMap { [$0.id, $0.orderID, $0.transactionCode] }
        let named = evidence.recordIDs.isEmpty ? derived.compactMap { $0 } : evidence.recordIDs
        return Array(Set(named.filter { !$0.isEmpty })).sorted()
    }

    /// Whether the records `evidence` rests on, which confirmed a payment of `amount`, could be the payment `rival`
    /// describes, by the provider's own evidence: `false` when the rival's amount or currency is another, when a
    /// record's time (created, or taken offline) is outside the rival's ``PaymentVerificationRequest/recordWindow``,
    /// when a record (or the order) is at another location than the rival's known one, was taken by another Square
    /// application than the rival's, or carries another SumUp `foreign-tx-id` than the rival's. What either payment's
    /// callback reported is never evidence here: whoever answered it chose it.
    public static func couldBelong(
        _ evidence: PaymentVerificationEvidence,
        confirming amount: Money,
        to rival: PaymentVerificationRequest
    ) -> Bool {
        guard rival.amount == amount else { return false }
        let window = rival.recordWindow
        if let location = rival.squareLocationID {
            if let orderLocation = evidence.orderLocationID, orderLocation != location { return false }
        }
        for record in evidence.records {
            for time in [record.createdAt, record.offlineCreatedAt].compactMap({ $0 }) where !window.contains(time) {
                return false
            }
            if let location = rival.squareLocationID, let other = record.locationID, other != location { return false }
            if let application = rival.squareApplicationID, let other = record.applicationID, other != application {
                return false
            }
            if let key = rival.foreignTransactionID, let other = record.foreignTransactionID, other != key {
                return false
            }
        }
        return true
    }

    /// The verdict that replaces a confirmation whose records `rivals` name too: `unverifiable`,
    /// ``PaymentVerification/Reason/contested``, the evidence kept, and a message naming this payment (`payment`, as
    /// messages name it: `payment P1`, `payment P1 of device D1`), the record and the rivals, and what a person must
    /// decide. It is also the verdict a rival is flagged with (pass the rival as `payment`, and this payment among
    /// `rivals`).
    public static func contested(
        _ verification: PaymentVerification,
        of payment: String,
        rivals: [String]
    ) -> PaymentVerification {
        let records = recordIDs(of: verification.evidence).joined(separator: ", ")
        let others = rivals.joined(separator: ", ")
        return PaymentVerification(
            verdict: .unverifiable,
            reason: .contested,
            message: "The provider's record \(records), which would confirm \(payment), is named by \(others) too, and "
                + "the provider's evidence cannot tell which it is (the same amount, and its time is in both "
                + "payments' time): one record confirms one payment, so it confirms neither. A person must decide: "
                + "find the record in the provider's dashboard, resolve the payment it is, and resolve the other as "
                + "not paid.",
            evidence: verification.evidence
        )
    }
}
