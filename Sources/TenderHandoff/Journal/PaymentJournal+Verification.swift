import Foundation
import GRDB
import Tender
import TenderProviderAPI

extension PaymentJournal {
    /// The next payments to reconcile with their providers' servers after `cursor` (creation time and ID), oldest
    /// first, at most `limit`: unknown ones, pending ones past their expiry, and completed ones whose callback no
    /// server checked yet, of providers with a lookup API; none with a verdict recorded. Read through
    /// `payment_unreconciled`, an index of those payments only.
    func unreconciledEntries(after cursor: (createdAt: Date, id: PaymentID)?, limit: Int) throws -> [JournalEntry] {
        let now = clock.now()
        return try read { db in
            try PaymentRecord.fetchAll(
                db.cachedStatement(sql: JournalSQL.unreconciled),
                arguments: [
                    "now": now.journalTime, "afterCreated": cursor?.createdAt.journalTime ?? Int64.min,
                    "afterID": cursor?.id.rawValue ?? "", "limit": limit,
                ]
            ).map(\.entry)
        }
    }

    /// Records what the provider's server proved of a payment (SEC-7), in one guarded transaction, if the payment has
    /// not changed since `entry` was read and has no verdict recorded yet. What is recorded (REL-2: a terminal state
    /// never changes here):
    ///
    /// | payment | confirmed | contradicted |
    /// |---|---|---|
    /// | completed, by a callback | assurance `verified_with_provider` | flagged; delivered again |
    /// | unknown, tampered, or pending past its expiry | `completed` with the outcome the server proves (source `provider`) | `unknown` (or `tampered`), flagged; delivered again |
    /// | anything else | nothing | nothing |
    ///
    /// The verdict, its reason and the evidence go on the payment's row (``JournalEntry/verification``), and the
    /// whole verification, as JSON, into its history. An `unverifiable` answer (not found yet, ambiguous, pending, no
    /// lookup API) records nothing, and neither does a confirmation that proves no outcome.
    ///
    /// **One record confirms one payment.** In the same transaction, the record IDs the verdict rests on (the order,
    /// payment and transaction IDs of its evidence) are looked up in `provider_record`, the journal's table of the
    /// records each confirmed payment holds (one row per record, its key the provider and the record's ID). A record
    /// another payment holds proves nothing about this one: the verdict becomes `claimed_by_another_payment`,
    /// `contradicted` when the payment's callback named the record (its reported transaction ID is one of the
    /// record's IDs: the answer is not the payment the provider took), `unverifiable` when the verifier found it some
    /// other way (a search: nothing is recorded). A record a search found that is another payment's reported
    /// transaction ID is no proof either (`unverifiable`). A confirmation that is recorded claims its records for the
    /// payment.
    /// - Returns: the payment as it stands afterwards, whether anything was recorded, and the answer that was
    ///   (`verification`, or the `claimed_by_another_payment` answer that replaced it).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound`` when the payment is gone, or a storage
    ///   error.
    func record(
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> (entry: JournalEntry, recorded: Bool, verification: PaymentVerification) {
        guard verification.verdict != .unverifiable else { return (entry, false, verification) }
        let now = clock.now()
        return try transaction("verify") { db in
            let current = try PaymentJournal.requireEntry(db, entry.id)
            // Changed since the server was asked (a callback came, a person resolved it, another process recorded a
            // verdict): what the server said was about the payment as it was.
            guard current.revision == entry.revision, current.state == entry.state, current.verification == nil else {
                return ((current, false, verification), commit: false)
            }
            let answer = try PaymentJournal.heldByAnother(db, verification, of: current) ?? verification
            guard answer.verdict != .unverifiable else { return ((current, false, answer), commit: false) }
            let ((after, recorded), commit) = try PaymentJournal.record(db, answer, of: current, at: now)
            if recorded, answer.verdict == .confirmed {
                for recordID in PaymentJournal.recordIDs(answer.evidence) {
                    try db.run(
                        JournalSQL.claimRecord,
                        ["provider": current.provider.rawValue, "recordID": recordID, "id": current.id.rawValue]
                    )
                }
            }
            return ((after, recorded, answer), commit: commit)
        }
    }

    /// The IDs of the provider's records a verdict rests on: the order looked up, and each record's ID, order and
    /// transaction code.
    static func recordIDs(_ evidence: PaymentVerificationEvidence) -> [String] {
        let ids = [evidence.orderID] + evidence.records.flatMap { [$0.id, $0.orderID, $0.transactionCode] }
        return Array(Set(ids.compactMap { $0 }.filter { !$0.isEmpty })).sorted()
    }

    /// `claimed_by_another_payment` in place of `verification` when a record it rests on is another payment's: one
    /// that payment's confirmation claimed, or, for a record the verifier found by searching, that payment's reported
    /// transaction ID. `nil` when no other payment holds any.
    static func heldByAnother(
        _ db: Database,
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> PaymentVerification? {
        let ids = recordIDs(verification.evidence)
        // The callback named the record (its transaction ID is one of the record's), or the record carries the
        // payment's own SumUp foreign-tx-id: either way it was looked up as this payment's.
        let reported = entry.outcome?.source == .callback ? entry.outcome?.transactionID : nil
        let named =
            reported.map(ids.contains) == true
            || (entry.foreignTransactionID != nil
                && verification.evidence.records.contains { $0.foreignTransactionID == entry.foreignTransactionID })
        for recordID in ids {
            let arguments: StatementArguments = [
                "provider": entry.provider.rawValue, "recordID": recordID, "id": entry.id.rawValue,
            ]
            var holder = try String.fetchOne(db.cachedStatement(sql: JournalSQL.recordHolder), arguments: arguments)
            if holder == nil, !named {
                holder = try String.fetchOne(
                    db.cachedStatement(sql: JournalSQL.claimedTransaction),
                    arguments: [
                        "transactionID": recordID, "provider": entry.provider.rawValue, "id": entry.id.rawValue,
                    ]
                )
            }
            guard let holder else { continue }
            let said = "(The verifier said: \(verification.verdict), \(verification.reason).)"
            if named {
                return PaymentVerification(
                    verdict: .contradicted,
                    reason: .claimedByAnotherPayment,
                    message: "The provider's record \(recordID), which the POS app's answer named for payment "
                        + "\(entry.id), is already payment \(holder)'s in this journal: one record confirms one "
                        + "payment, so this answer is not a payment the provider took for \(entry.id). \(said) Check "
                        + "both payments with the provider, then resolve this one.",
                    evidence: verification.evidence
                )
            }
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .claimedByAnotherPayment,
                message: "The provider's record \(recordID), which the verifier found by searching, is already payment "
                    + "\(holder)'s in this journal: it proves nothing about payment \(entry.id), and nothing was "
                    + "recorded. \(said) Match the payment by hand in the provider's dashboard.",
                evidence: verification.evidence
            )
        }
        return nil
    }

    /// ``record(_:of:)``'s change, inside its transaction, of `current`, the payment as it is now.
    private static func record(
        _ db: Database,
        _ verification: PaymentVerification,
        of current: JournalEntry,
        at now: Date
    ) throws -> ((JournalEntry, Bool), commit: Bool) {
        let verdict = try ServerVerdict(verification)
        let history = try verification.journalJSON()
        switch current.state {
        case .completed where current.outcome?.source == .callback:
            var arguments: StatementArguments = [
                "now": now.journalTime, "id": current.id.rawValue, "revision": current.revision,
            ]
            arguments += verdict.arguments
            guard let verified = try PaymentJournal.returning(db, JournalSQL.verification(verdict.verdict), arguments)
            else { return ((current, false), commit: false) }
            try PaymentJournal.recordEvent(
                db,
                verified,
                at: now,
                kind: verdict.verdict == .confirmed ? .verified : .contradicted,
                from: current.state,
                to: current.state,
                note: history
            )
            return ((verified, true), commit: true)
        case .unknown, .tampered, .pending:
            // A pending payment still waits for its callback until it expires.
            guard current.state != .pending || current.expiresAt <= now else {
                return ((current, false), commit: false)
            }
            let changed: JournalEntry?
            if verdict.verdict == .confirmed {
                guard let proven = verification.provenOutcome else { return ((current, false), commit: false) }
                changed = try PaymentJournal.transitionIfUnchanged(
                    db,
                    current,
                    to: .completed,
                    outcome: PaymentJournal.provenOutcome(proven, of: current, verification),
                    at: now,
                    kind: .reconciled,
                    note: history,
                    change: .verification(verdict)
                )
            } else {
                // Contradicted, an expired pending payment is unknown; an unknown or tampered one stays as it is.
                changed = try PaymentJournal.transitionIfUnchanged(
                    db,
                    current,
                    to: current.state == .pending ? .unknown : current.state,
                    outcome: nil,
                    at: now,
                    kind: .contradicted,
                    note: history,
                    change: .verification(verdict)
                )
            }
            guard let changed else { return ((current, false), commit: false) }
            return ((changed, true), commit: true)
        default:
            return ((current, false), commit: false)
        }
    }

    /// The outcome the provider's server proved for a payment no callback answered: the server's status, the amount
    /// requested (the verifier confirms only a record of that amount), the server's ID for it (Square's order, or
    /// its payment; SumUp's transaction code), verified with the provider.
    static func provenOutcome(
        _ status: PaymentOutcome.Status,
        of entry: JournalEntry,
        _ verification: PaymentVerification
    ) -> RecordedOutcome {
        let record = verification.evidence.records.count == 1 ? verification.evidence.records.first : nil
        return RecordedOutcome(
            status: status,
            amount: entry.amount,
            transactionID: verification.evidence.orderID ?? record?.transactionCode ?? record?.id,
            assurance: .verifiedWithProvider,
            source: .provider
        )
    }
}
