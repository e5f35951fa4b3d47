import Foundation
import Tender
public import TenderProviderAPI

/// A verdict the server reached on a payment, to record (``LedgerStore/recordServerVerdict(_:)``).
public struct ServerVerdictToRecord: Sendable {
    /// The device that holds the payment.
    public var deviceID: String
    /// The payment.
    public var paymentID: String
    /// The payment's provider (`square`, `sumup`, …): the namespace of its records' IDs.
    public var provider: String
    /// What the verifier answered.
    public var verification: PaymentVerification
    /// The basis of the request it answered (`PaymentVerificationRequest.basis`): recorded only while the payment's
    /// latest snapshot still makes that request.
    public var basis: String
    /// When, in milliseconds since 1970.
    public var at: Int64

    /// Creates a verdict to record.
    public init(
        deviceID: String,
        paymentID: String,
        provider: String,
        verification: PaymentVerification,
        basis: String,
        at: Int64
    ) {
        self.deviceID = deviceID
        self.paymentID = paymentID
        self.provider = provider
        self.verification = verification
        self.basis = basis
        self.at = at
    }
}

/// What ``LedgerStore/recordServerVerdict(_:)`` recorded: the verdict as recorded (``RecordClaims`` may have changed
/// it) and the payment afterwards.
public struct RecordedServerVerdict: Sendable {
    /// The verification recorded.
    public var verification: PaymentVerification
    /// The payment as the ledger now holds it.
    public var payment: LedgerPayment
}

/// A ledger payment that holds a provider's record: the one a confirmation claimed, or one whose callback reported
/// the record's ID.
public struct ClaimHolder: Sendable, Hashable {
    /// Its device.
    public var deviceID: String
    /// The payment.
    public var paymentID: String
    /// The record's ID it holds.
    public var recordID: String

    /// Creates a holder.
    public init(deviceID: String, paymentID: String, recordID: String) {
        self.deviceID = deviceID
        self.paymentID = paymentID
        self.recordID = recordID
    }
}

/// One record confirms one payment, fleet-wide: the rule the stores apply in the transaction that records a verdict,
/// written once.
///
/// A confirmation rests on the provider's records in its evidence's `record_ids` (Square's order and its payments,
/// SumUp's transaction). If another ledger payment, of any device, already claimed one of them (a confirmation of its
/// own), or — for a record a search found — its callback reported that record's ID, this confirmation proves nothing
/// about this payment:
///
/// | how the record was found (`found_by`) | verdict recorded |
/// |---|---|
/// | `callback`, `payment_key`: this payment's own answer names a record another payment holds | contradicted, `claimed_by_another_payment` |
/// | `search`: the only match of amount, place and time is another payment's | unverifiable, `claimed_by_another_payment` |
///
/// A confirmation that stands claims its records (a primary key per provider and record decides when two payments
/// claim one at the same time); any other verdict claims nothing and releases what the payment claimed before.
public enum RecordClaims: Sendable {
    /// The record IDs a verdict looks for in the claims: a confirmation's records; none for any other verdict.
    public static func recordIDs(of verification: PaymentVerification) -> [String] {
        verification.verdict == .confirmed ? verification.evidence.recordIDs : []
    }

    /// Whether a holder is also a payment whose callback reported one of the records (not only one that claimed
    /// it): for a record a search found.
    public static func looksAtReportedTransactions(_ verification: PaymentVerification) -> Bool {
        verification.verdict == .confirmed && verification.evidence.foundBy == .search
    }

    /// The verdict to record, given the payment that holds one of its records, if any.
    public static func verdict(_ verification: PaymentVerification, heldBy holder: ClaimHolder?) -> PaymentVerification
    {
        guard let holder, verification.verdict == .confirmed else { return verification }
        let other = "payment \(holder.paymentID) of device \(holder.deviceID)"
        var evidence = verification.evidence
        evidence.recordIDs = []
        evidence.foundBy = nil
        if verification.evidence.foundBy == .search {
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .claimedByAnotherPayment,
                message: "The only match found, record \(holder.recordID), is already \(other)'s: one record "
                    + "confirms one payment, so it proves nothing about this one. Nothing is settled.",
                evidence: evidence
            )
        }
        return PaymentVerification(
            verdict: .contradicted,
            reason: .claimedByAnotherPayment,
            message: "The provider's record \(holder.recordID), which this payment's answer names, already confirms "
                + "\(other): one record confirms one payment, so this answer is another payment's.",
            evidence: evidence
        )
    }
}

/// A provider's event as received on a webhook, verified: its ID (to drop duplicates) and the record it carries, if
/// it carries one the ledger keeps.
public struct ProviderEvent: Sendable, Hashable {
    /// The provider: `square`.
    public var provider: String
    /// The event's unique ID (Square's `event_id`).
    public var eventID: String
    /// Its type, such as `payment.updated`.
    public var type: String
    /// The seller it is for (Square's `merchant_id`).
    public var merchantID: String?
    /// The record it carries, if the ledger keeps records of its type.
    public var record: ProviderRecord?

    /// Creates an event.
    public init(provider: String, eventID: String, type: String, merchantID: String?, record: ProviderRecord?) {
        self.provider = provider
        self.eventID = eventID
        self.type = type
        self.merchantID = merchantID
        self.record = record
    }
}

/// A provider's record as its webhook pushed it: a Square payment (kind `payment`) or an order's summary (kind
/// `order`).
public struct ProviderRecord: Sendable, Hashable {
    /// The provider: `square`.
    public var provider: String
    /// `payment` or `order`.
    public var kind: String
    /// The record's ID.
    public var recordID: String
    /// The seller it belongs to.
    public var merchantID: String?
    /// The location it belongs to.
    public var locationID: String?
    /// A payment's order.
    public var orderID: String?
    /// Its status (a payment's `status`, an order's `state`).
    public var status: String?
    /// When the provider created it, in milliseconds since 1970.
    public var createdAt: Int64?
    /// What orders its versions: a payment's `updated_at` (milliseconds), an order's `version`. A record replaces the
    /// one held only when its revision is higher.
    public var revision: Int64
    /// The object as the provider sent it (JSON text).
    public var body: String

    /// Creates a record.
    public init(
        provider: String,
        kind: String,
        recordID: String,
        merchantID: String?,
        locationID: String?,
        orderID: String?,
        status: String?,
        createdAt: Int64?,
        revision: Int64,
        body: String
    ) {
        self.provider = provider
        self.kind = kind
        self.recordID = recordID
        self.merchantID = merchantID
        self.locationID = locationID
        self.orderID = orderID
        self.status = status
        self.createdAt = createdAt
        self.revision = revision
        self.body = body
    }
}

/// A verification's text as the ledger keeps it.
public enum VerificationText: Sendable {
    /// The evidence as JSON text: its own `Codable` form, sorted keys.
    public static func evidence(_ evidence: PaymentVerificationEvidence) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Evidence holds strings, numbers and dates only: encoding it cannot fail.
        guard let data = try? encoder.encode(evidence) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A server's verdict from its columns, as a `PaymentVerification`; `nil` if the evidence does not read (a row
    /// changed outside the server).
    static func verification(_ server: ServerVerification) -> PaymentVerification? {
        guard
            let evidence = try? JSONDecoder().decode(
                PaymentVerificationEvidence.self,
                from: Data(server.evidence.utf8)
            ),
            let verdict = PaymentVerdict(rawValue: server.verdict)
        else { return nil }
        return PaymentVerification(
            verdict: verdict,
            reason: PaymentVerification.Reason(rawValue: server.reason),
            message: server.message,
            provenOutcome: server.provenOutcome.flatMap(PaymentOutcome.Status.init(rawValue:)),
            evidence: evidence
        )
    }
}
