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
    /// | unknown, or pending past its expiry | `completed` with the outcome the server proves (source `provider`) | `unknown`, flagged; delivered again |
    /// | anything else | nothing | nothing |
    ///
    /// The verdict, its reason and the evidence go on the payment's row (``JournalEntry/verification``), and the
    /// whole verification, as JSON, into its history. An `unverifiable` answer (not found yet, ambiguous, pending, no
    /// lookup API) records nothing, and neither does a confirmation that proves no outcome.
    ///
    /// A verdict on a record a search found (``claimableIDs(_:of:)``) is recorded only if none of the record's IDs is
    /// already another payment's transaction ID (looked up through `payment_by_transaction`, in the same transaction
    /// as the write, so two payments cannot both take one record): otherwise nothing is recorded and the answer
    /// becomes `unverifiable` (``PaymentVerification/Reason/claimedByAnotherPayment``).
    /// - Returns: the payment as it stands afterwards, whether anything was recorded, and the answer that was
    ///   (`verification`, or the `claimed_by_another_payment` answer that replaced it).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound`` when the payment is gone, or a storage
    ///   error.
    func record(
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> (entry: JournalEntry, recorded: Bool, verification: PaymentVerification) {
        guard verification.verdict != .unverifiable else { return (entry, false, verification) }
        let verdict = try ServerVerdict(verification)
        let history = try verification.journalJSON()
        let now = clock.now()
        return try transaction("verify") { db in
            let current = try PaymentJournal.requireEntry(db, entry.id)
            // Changed since the server was asked (a callback came, a person resolved it, another process recorded a
            // verdict): what the server said was about the payment as it was.
            guard current.revision == entry.revision, current.state == entry.state, current.verification == nil else {
                return ((current, false, verification), commit: false)
            }
            if let claimed = try PaymentJournal.claimed(db, verification, of: current) {
                return ((current, false, claimed), commit: false)
            }
            let ((after, recorded), commit) = try PaymentJournal.record(
                db,
                verification,
                verdict,
                history: history,
                of: current,
                at: now
            )
            return ((after, recorded, verification), commit: commit)
        }
    }

    /// The IDs of the records a verdict attributes to `entry` without having looked them up by the payment's own keys:
    /// the payments a Square search found (their IDs and orders), or the SumUp transaction found by the callback's code
    /// for a payment without a `foreign-tx-id` of its own (its code and ID). Empty for a verdict that proves no
    /// outcome of the payment (a rejection: another amount, no such order, …), and for records looked up by the
    /// payment's own keys (Square's order of the callback's `transaction_id`, SumUp's transaction of the payment's
    /// `foreign-tx-id`).
    static func claimableIDs(_ verification: PaymentVerification, of entry: JournalEntry) -> [String] {
        guard verification.provenOutcome != nil else { return [] }
        let evidence = verification.evidence
        switch entry.provider {
        case .square where evidence.searchWindow != nil:
            return evidence.records.flatMap { [$0.id, $0.orderID].compactMap { $0 } }
        case .sumUp:
            return evidence.records.filter {
                $0.kind == PaymentVerificationEvidence.Record.sumUpTransaction
                    && (entry.foreignTransactionID == nil || $0.foreignTransactionID != entry.foreignTransactionID)
            }.flatMap { [$0.transactionCode, $0.id].compactMap { $0 } }
        default:
            return []
        }
    }

    /// `claimed_by_another_payment` in place of `verification` when one of its ``claimableIDs(_:of:)`` is another
    /// payment's transaction ID; `nil` when none is.
    static func claimed(
        _ db: Database,
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> PaymentVerification? {
        for id in Set(PaymentJournal.claimableIDs(verification, of: entry)).sorted() where !id.isEmpty {
            guard
                let holder = try String.fetchOne(
                    db.cachedStatement(sql: JournalSQL.claimedTransaction),
                    arguments: ["transactionID": id, "provider": entry.provider.rawValue, "id": entry.id.rawValue]
                )
            else { continue }
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .claimedByAnotherPayment,
                message: "The server's record \(id), which the verifier found by searching, is already the transaction "
                    + "of payment \(holder) in this journal: it proves nothing about payment \(entry.id), and nothing "
                    + "was recorded. (The verifier said: \(verification.verdict), \(verification.reason).) Match the "
                    + "payment by hand in the provider's dashboard.",
                evidence: verification.evidence
            )
        }
        return nil
    }

    /// ``record(_:of:)``'s change, inside its transaction, of `current`, the payment as it is now.
    private static func record(
        _ db: Database,
        _ verification: PaymentVerification,
        _ verdict: ServerVerdict,
        history: String,
        of current: JournalEntry,
        at now: Date
    ) throws -> ((JournalEntry, Bool), commit: Bool) {
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
                current.id,
                at: now,
                kind: verdict.verdict == .confirmed ? .verified : .contradicted,
                from: current.state,
                to: current.state,
                note: history
            )
            return ((verified, true), commit: true)
        case .unknown, .pending:
            // A pending payment still waits for its callback until it expires.
            guard current.state == .unknown || current.expiresAt <= now else {
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
                changed = try PaymentJournal.transitionIfUnchanged(
                    db,
                    current,
                    to: .unknown,
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
