import Foundation
public import Tender
public import TenderProviderAPI
import TenderSync

/// A verdict the server reached on a payment, to record (``LedgerStore/recordServerVerdict(_:)``).
public struct ServerVerdictToRecord: Sendable {
    /// The device that holds the payment.
    public var deviceID: String
    /// The payment.
    public var paymentID: String
    /// The payment's provider: the namespace of its records' IDs.
    public var provider: PaymentProvider
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
        provider: PaymentProvider,
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

/// What ``LedgerStore/recordServerVerdict(_:)`` recorded: the verdict as recorded (the contest rule may have changed
/// it) and the payment afterwards.
public struct RecordedServerVerdict: Sendable {
    /// The verification recorded.
    public var verification: PaymentVerification
    /// The payment as the ledger now holds it.
    public var payment: LedgerPayment
}

/// One record confirms one payment, fleet-wide, whichever payment is asked about first: `RecordContest`'s rule
/// (TenderProviderAPI, the journal's too) where the stores record a verdict, in its transaction, written once.
///
/// Before a confirmation is recorded, the store reads the **candidates**: every other ledger payment of the provider,
/// of any device, that claimed one of the records it rests on (``recordIDs(of:)``; a confirmation of its own) or
/// whose callback reported one of their IDs. A candidate is a rival unless the provider's evidence tells the two
/// apart (`RecordContest.couldBelong(_:confirming:to:)`: another amount, a record outside its time, another location,
/// application or SumUp `foreign-tx-id`). With a rival, the record confirms neither:
///
/// | payment | verdict recorded |
/// |---|---|
/// | the one asked about | `unverifiable`, reason `contested`, naming each rival; it claims nothing |
/// | each rival (not resolved on its device, not contested already) | the same, naming the others; its claims are released, an earlier confirmation no longer stands |
///
/// Both then need a person (`attention` `contested`), and neither is asked about again until its device sends
/// something new. What either payment's callback reported is never evidence that tells them apart: whoever answered
/// it chose it. A confirmation without a rival claims its records (a primary key per provider and record decides
/// between two payments claiming one at the same time); any other verdict claims nothing and releases what the
/// payment claimed before.
enum LedgerRecordContest {
    /// What a store records for one verdict.
    struct Decision {
        /// The verification to record on the payment asked about.
        var verification: PaymentVerification
        /// The records it claims.
        var claims: [String]
        /// The rivals to flag, each with the verification to record on it and the basis it is recorded on (the
        /// rival's current request's).
        var rivals: [(payment: LedgerPayment, verification: PaymentVerification, basis: String)]
    }

    /// The record IDs the stores look for among the claims and the callbacks' transaction IDs: a confirmation's
    /// records; none for any other verdict.
    static func recordIDs(of verification: PaymentVerification) -> [String] {
        verification.verdict == .confirmed ? RecordContest.recordIDs(of: verification.evidence) : []
    }

    /// What to record for `verification` of `payment`, given the `candidates` the store read (the payment itself
    /// among them is ignored).
    static func decide(
        _ verification: PaymentVerification,
        of payment: LedgerPayment,
        candidates: [LedgerPayment]
    ) -> Decision {
        if isContested(payment), let standing = payment.server.flatMap(VerificationText.verification) {
            // Contested already: nothing re-decides it but a person.
            return Decision(verification: standing, claims: [], rivals: [])
        }
        let ids = recordIDs(of: verification)
        guard !ids.isEmpty else { return Decision(verification: verification, claims: [], rivals: []) }
        var seen: Set<String> = [key(payment)]
        let amount = payment.snapshotValue?.amount
        let rivals = candidates.filter { seen.insert(key($0)).inserted }.filter { candidate in
            guard let amount, let request = candidate.snapshotValue?.describingRequest() else { return true }
            return RecordContest.couldBelong(verification.evidence, confirming: amount, to: request)
        }.sorted { key($0) < key($1) }
        guard !rivals.isEmpty else { return Decision(verification: verification, claims: ids, rivals: []) }
        return Decision(
            verification: RecordContest.contested(verification, of: name(payment), rivals: rivals.map(name)),
            claims: [],
            // A rival is flagged unless a person resolved it, it is contested already, or it asks nothing (no basis
            // to record a verdict on).
            rivals: rivals.compactMap { rival in
                guard rival.state != .resolved, !isContested(rival),
                    let basis = rival.verificationBasis
                else { return nil }
                let others = [name(payment)] + rivals.filter { key($0) != key(rival) }.map(name)
                return (rival, RecordContest.contested(verification, of: name(rival), rivals: others), basis)
            }
        )
    }

    /// Whether the server's current verdict on `payment` is a contest.
    static func isContested(_ payment: LedgerPayment) -> Bool {
        payment.hasCurrentServerVerdict && payment.server?.reason == .contested
    }

    /// How messages name a ledger payment: `payment P of device D`.
    static func name(_ payment: LedgerPayment) -> String {
        "payment \(payment.paymentID) of device \(payment.deviceID)"
    }

    private static func key(_ payment: LedgerPayment) -> String { payment.deviceID + "/" + payment.paymentID }
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

/// A provider's record as its webhook pushed it: a Square payment (kind `payment`), an order's summary (kind
/// `order`) or a refund (kind `refund`, ledger schema version 6).
public struct ProviderRecord: Sendable, Hashable {
    /// The provider: `square`.
    public var provider: String
    /// `payment`, `order` or `refund`.
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
    /// A refund's payment (Square's `payment_id`): the record it refunds.
    public var paymentRecordID: String?
    /// A refund's amount, in minor units of ``currency``.
    public var amountMinorUnits: Int64?
    /// A refund's currency.
    public var currency: String?

    /// A stored `merchant_id` as a record's seller: `''`, stored for a record that names none, is `nil`.
    static func seller(_ stored: String?) -> String? {
        stored.flatMap { $0.isEmpty ? nil : $0 }
    }

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
        body: String,
        paymentRecordID: String? = nil,
        amountMinorUnits: Int64? = nil,
        currency: String? = nil
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
        self.paymentRecordID = paymentRecordID
        self.amountMinorUnits = amountMinorUnits
        self.currency = currency
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
    public static func verification(_ server: ServerVerification) -> PaymentVerification? {
        guard
            let evidence = try? JSONDecoder().decode(
                PaymentVerificationEvidence.self,
                from: Data(server.evidence.utf8)
            )
        else { return nil }
        return PaymentVerification(
            verdict: server.verdict,
            reason: server.reason,
            message: server.message,
            provenOutcome: server.provenOutcome,
            evidence: evidence
        )
    }
}
