import Foundation
public import Tender

/// The answer of a ``PaymentVerifier``: the ``verdict``, a machine-readable ``reason``, a ``message`` for
/// people, the outcome the server proves and the ``evidence`` (which endpoints were asked, when, and what they
/// said).
///
/// None of it holds a token or a secret (SEC-8): it is meant to be kept in the journal and printed.
public struct PaymentVerification: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Confirmed, contradicted or unverifiable.
    public var verdict: PaymentVerdict
    /// Why, as a stable code such as `amount_mismatch` or `not_found_yet`.
    public var reason: Reason
    /// Why, in words: what the server has and what that means.
    public var message: String
    /// The outcome the server proves for this payment: `approved` for a `COMPLETED` or `APPROVED` Square payment or
    /// a `SUCCESSFUL` or `PAID_OUT` SumUp transaction, `failed` or `cancelled` where the server says so. `nil` when it proves nothing about this
    /// payment: not found, ambiguous, pending, or a record that is not this payment (another amount, location or
    /// tender type).
    public var provenOutcome: PaymentOutcome.Status?
    /// What was asked and what the server said.
    public var evidence: PaymentVerificationEvidence

    /// Creates a verification.
    public init(
        verdict: PaymentVerdict,
        reason: Reason,
        message: String,
        provenOutcome: PaymentOutcome.Status? = nil,
        evidence: PaymentVerificationEvidence
    ) {
        self.verdict = verdict
        self.reason = reason
        self.message = message
        self.provenOutcome = provenOutcome
        self.evidence = evidence
    }

    /// `confirmed (matches): …`.
    public var description: String { "\(verdict) (\(reason)): \(message)" }

    private enum CodingKeys: String, CodingKey {
        case verdict, reason, message
        case provenOutcome = "proven_outcome"
        case evidence
    }

    /// Why a verifier gave its verdict. An open set: new reasons may come in minor releases.
    public struct Reason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The reason's stable string in snake case, such as `"amount_mismatch"`.
        public let rawValue: String
        /// Creates a reason from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The string.
        public var description: String { rawValue }

        // Confirmed.

        /// Confirmed: the server's record agrees with the POS app's report.
        public static let matches = Reason(rawValue: "matches")
        /// Confirmed: no report came, and the server's record proves the outcome.
        public static let found = Reason(rawValue: "found")
        /// Confirmed: the POS app reported that no money moved (cancelled, declined, failed), and the server still
        /// has no record of the payment once its ``PaymentVerificationRequest/recordWindow`` has passed, by when even
        /// a payment taken offline has reached it. Nothing was charged.
        public static let noRecord = Reason(rawValue: "no_record")

        // Contradicted.

        /// The server's payment is for another amount or currency (tip not counted).
        public static let amountMismatch = Reason(rawValue: "amount_mismatch")
        /// The server's payment was taken at another Square location.
        public static let locationMismatch = Reason(rawValue: "location_mismatch")
        /// Square has no order with the `transaction_id` the POS app reported.
        public static let noSuchOrder = Reason(rawValue: "no_such_order")
        /// Square's order names a payment Square does not have.
        public static let noSuchPayment = Reason(rawValue: "no_such_payment")
        /// Square's order has no tender: nothing was paid on it.
        public static let noPayment = Reason(rawValue: "no_payment")
        /// SumUp has no transaction with the `smp-tx-code` the POS app reported.
        public static let noSuchTransaction = Reason(rawValue: "no_such_transaction")
        /// The server's transaction has another transaction code than the one the POS app reported.
        public static let transactionCodeMismatch = Reason(rawValue: "transaction_code_mismatch")
        /// The payment was paid with a tender type the request did not allow (cash for a card-only request).
        public static let tenderTypeMismatch = Reason(rawValue: "tender_type_mismatch")
        /// The server's status disagrees with the POS app's report (approved against failed or cancelled).
        public static let statusMismatch = Reason(rawValue: "status_mismatch")
        /// SumUp's transaction, found by the `smp-tx-code` the POS app reported, carries another
        /// `foreign_transaction_id` than this payment's, or none: it answered another request.
        public static let foreignIDMismatch = Reason(rawValue: "foreign_id_mismatch")
        /// The server's record was made outside the payment's time (``PaymentVerificationRequest/recordWindow``): an
        /// order, payment or transaction of another, older or later, sale.
        public static let outsideWindow = Reason(rawValue: "outside_window")
        /// Square's payment was taken by another application of the seller (its `application_details.application_id`
        /// is not the request's ``PaymentVerificationRequest/squareApplicationID``): it is not this payment.
        public static let otherApplication = Reason(rawValue: "other_application")

        // Unverifiable.

        /// Nothing found, which proves nothing: Square's offline payments reach its server hours or days later,
        /// and a search is eventually consistent.
        public static let notFoundYet = Reason(rawValue: "not_found_yet")
        /// Several payments match the search; Tender does not pick one.
        public static let ambiguous = Reason(rawValue: "ambiguous")
        /// The server's payment is still pending.
        public static let pending = Reason(rawValue: "pending")
        /// The server's payment has a status Tender does not know.
        public static let unknownStatus = Reason(rawValue: "unknown_status")
        /// The provider publishes no API to look a payment up (Swipe, SoftPOS).
        public static let noLookupAPI = Reason(rawValue: "no_lookup_api")
        /// Tender has no identifier the provider's API can look the payment up by.
        public static let noLookupKey = Reason(rawValue: "no_lookup_key")
        /// The search found more payments than the verifier reads; narrow the window or give the location.
        public static let searchTooBroad = Reason(rawValue: "search_too_broad")
        /// No longer given (``contested`` replaced it): journals and ledgers of earlier releases hold it where the
        /// record a verdict rested on was already another payment's.
        public static let claimedByAnotherPayment = Reason(rawValue: "claimed_by_another_payment")
        /// A Square search for a payment whose request named no location, where no location is known (neither the
        /// journal's seller authorization nor the device's registration names one) and the seller does not have
        /// exactly one location: Square lists the seller's main location only, so whatever it finds there, or does not,
        /// proves nothing about a payment taken elsewhere. Give the location (`squareLocationID`).
        public static let locationUnknown = Reason(rawValue: "location_unknown")
        /// Given by the journal or the fleet server, not a verifier: the provider's record this verdict rests on is
        /// named by another payment too (its callback reported the record's ID, or it was confirmed by it), and the
        /// provider's own evidence cannot tell which of them it is (both payments' times contain the record's, their
        /// amounts are the same). One record confirms one payment, so it confirms neither: both are flagged, and a
        /// person decides which payment the record is (``RecordContest``).
        public static let contested = Reason(rawValue: "contested")
        /// Given by the reconciler, not a verifier: the verifier failed for this payment for a reason asking
        /// again soon will not fix (a refused token, a missing scope, an answer Tender cannot read); the failure is
        /// reported with the payment, nothing is recorded, and the run goes on.
        public static let verificationFailed = Reason(rawValue: "verification_failed")
    }
}

extension PaymentVerification {
    /// The verification with every occurrence of `secret` in its text replaced by `[redacted]`: a server that echoes
    /// the token it was sent (in an ID, a status) cannot put it into a message or the evidence (SEC-8).
    package func removing(_ secret: String) -> PaymentVerification {
        guard !secret.isEmpty else { return self }
        func scrub(_ text: String) -> String { text.replacingOccurrences(of: secret, with: "[redacted]") }
        func scrub(_ text: String?) -> String? { text.map(scrub) }
        var result = self
        result.message = scrub(message)
        var evidence = self.evidence
        evidence.server = scrub(evidence.server)
        evidence.endpoints = evidence.endpoints.map(scrub)
        evidence.orderID = scrub(evidence.orderID)
        evidence.orderLocationID = scrub(evidence.orderLocationID)
        evidence.orderState = scrub(evidence.orderState)
        evidence.records = evidence.records.map { record in
            var record = record
            record.kind = scrub(record.kind)
            record.id = scrub(record.id)
            record.status = scrub(record.status)
            record.simpleStatus = scrub(record.simpleStatus)
            record.serverAmount = scrub(record.serverAmount)
            record.serverCurrency = scrub(record.serverCurrency)
            record.locationID = scrub(record.locationID)
            record.sourceType = scrub(record.sourceType)
            record.transactionCode = scrub(record.transactionCode)
            record.foreignTransactionID = scrub(record.foreignTransactionID)
            record.orderID = scrub(record.orderID)
            record.applicationID = scrub(record.applicationID)
            return record
        }
        evidence.recordIDs = evidence.recordIDs.map(scrub)
        result.evidence = evidence
        return result
    }
}

extension PaymentVerification {
    /// The verdict on the server's record of this payment, which proves `proven`, against what the POS app
    /// reported: confirmed (`found`) when nothing was reported; confirmed (`matches`) when both say approved, or
    /// both say it was not (failed, declined and cancelled alike: no money moved); contradicted
    /// (`status_mismatch`) otherwise. `record` names the record in the message, such as
    /// `SumUp's transaction TEENSK4W2K (SUCCESSFUL, 10.10 EUR)`.
    package static func judging(
        reported: PaymentOutcome.Status?,
        proven: PaymentOutcome.Status,
        record: String,
        evidence: PaymentVerificationEvidence
    ) -> PaymentVerification {
        guard let reported else {
            return PaymentVerification(
                verdict: .confirmed,
                reason: .found,
                message: "No answer came from the POS app; \(record) proves it \(proven).",
                provenOutcome: proven,
                evidence: evidence
            )
        }
        guard (reported == .approved) == (proven == .approved) else {
            return PaymentVerification(
                verdict: .contradicted,
                reason: .statusMismatch,
                message: "The POS app reported \(reported), but \(record) says \(proven).",
                provenOutcome: proven,
                evidence: evidence
            )
        }
        return PaymentVerification(
            verdict: .confirmed,
            reason: .matches,
            message: "\(record) agrees: \(proven).",
            provenOutcome: proven,
            evidence: evidence
        )
    }
}

extension PaymentVerification {
    /// Confirmed (``Reason/noRecord``) for a payment the POS app reported as not taken, which the server (`server`,
    /// such as `Square`) still does not have once the request's ``PaymentVerificationRequest/recordWindow`` has
    /// passed; `nil` before then, or for a report of approval.
    static func absent(
        reported: PaymentOutcome.Status,
        request: PaymentVerificationRequest,
        server: String,
        evidence: PaymentVerificationEvidence
    ) -> PaymentVerification? {
        guard reported != .approved, evidence.askedAt >= request.recordWindow.end else { return nil }
        let hours = Int(request.providerDelay.timeInterval / 3600)
        return PaymentVerification(
            verdict: .confirmed,
            reason: .noRecord,
            message:
                "The POS app reported \(reported), and \(server) still has no record of this payment \(hours) hours "
                + "after it expired (\(InternetDate.rfc3339(request.expiresAt))), by when even a payment taken offline "
                + "has reached it: no money moved.",
            evidence: evidence
        )
    }
}
