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
    /// lookup API) records nothing, and neither does a confirmation that proves no outcome; but one with reason
    /// ``PaymentVerification/Reason/contested`` (a fleet server's: a payment of another device names the record too)
    /// flags the payment as contested, as a rival in this journal would, even over a confirmation recorded before,
    /// unless a person resolved it.
    ///
    /// **One record confirms one payment, whichever is asked about first.** In the same transaction, before a
    /// confirmation is recorded, the journal looks for the other payments that name a record it rests on
    /// (``RecordContest/recordIDs(of:)``): those confirmed by it (`provider_record`, one row per record a
    /// confirmed payment holds) and those whose outcome's transaction ID is its ID (a callback reported it, or a person
    /// entered it). Each is judged by ``RecordContest/couldBelong(_:confirming:to:)``, on the provider's evidence only;
    /// if any could be the record's payment, the record is contested: nothing is confirmed, and this payment and each
    /// such rival not resolved by a person are flagged (``JournalEntry/contestedAt``, a `contested` row in each one's
    /// history naming the others, delivered again; a rival's earlier confirmation no longer stands, and the records it
    /// claimed are released). A confirmation that is recorded claims its records for the payment.
    /// - Returns: the payment as it stands afterwards, whether anything was recorded, and the answer that was
    ///   (`verification`, or the `contested` answer that replaced it).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound`` when the payment is gone, or a storage
    ///   error.
    func record(
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> (entry: JournalEntry, recorded: Bool, verification: PaymentVerification) {
        // A fleet server's contest: a payment of another device names the record too.
        let contestedElsewhere = verification.verdict == .unverifiable && verification.reason == .contested
        guard verification.verdict != .unverifiable || contestedElsewhere else { return (entry, false, verification) }
        let now = clock.now()
        return try transaction("verify") { db in
            let current = try PaymentJournal.requireEntry(db, entry.id)
            let rivals =
                verification.verdict == .confirmed ? try PaymentJournal.rivals(db, verification, of: current) : []
            let answer =
                rivals.isEmpty
                ? verification
                : RecordContest.contested(verification, of: "payment \(current.id)", rivals: rivals.map(\.name))
            // Changed since the server was asked (a callback came, a person resolved it, another process recorded a
            // verdict or a contest): what the server said was about the payment as it was.
            guard current.revision == entry.revision, current.state == entry.state,
                current.verification == nil || contestedElsewhere, current.contestedAt == nil
            else {
                return ((current, false, answer), commit: false)
            }
            if contestedElsewhere {
                // A person who resolved the payment has decided already.
                guard current.state != .resolved else { return ((current, false, answer), commit: false) }
                let contested = try PaymentJournal.contest(db, current, answer, at: now)
                return ((contested ?? current, contested != nil, answer), commit: contested != nil)
            }
            if !rivals.isEmpty {
                let contested = try PaymentJournal.contest(db, current, answer, at: now)
                for rival in rivals where rival.entry.state != .resolved && rival.entry.contestedAt == nil {
                    let others = ["payment \(current.id)"] + rivals.filter { $0.entry.id != rival.entry.id }.map(\.name)
                    _ = try PaymentJournal.contest(
                        db,
                        rival.entry,
                        RecordContest.contested(verification, of: rival.name, rivals: others),
                        at: now
                    )
                }
                return ((contested ?? current, contested != nil, answer), commit: contested != nil)
            }
            let ((after, recorded), commit) = try PaymentJournal.record(db, verification, of: current, at: now)
            if recorded, verification.verdict == .confirmed {
                for recordID in RecordContest.recordIDs(of: verification.evidence) {
                    try db.run(
                        JournalSQL.claimRecord,
                        ["provider": current.provider.rawValue, "recordID": recordID, "id": current.id.rawValue]
                    )
                }
            }
            return ((after, recorded, verification), commit: commit)
        }
    }

    /// Another payment that names a record a confirmation rests on, and could be that record's payment.
    struct Rival {
        var entry: JournalEntry
        /// How messages name it: `payment P2`.
        var name: String { "payment \(entry.id)" }
    }

    /// The rivals of `entry` for the records `verification` rests on: the other payments of its provider that claimed
    /// one (confirmed by it) or whose outcome's transaction ID is one, and that could be that record's payment by the
    /// provider's evidence (``RecordContest/couldBelong(_:confirming:to:)``), each once.
    static func rivals(
        _ db: Database,
        _ verification: PaymentVerification,
        of entry: JournalEntry
    ) throws -> [Rival] {
        var found: [PaymentID: JournalEntry] = [:]
        for recordID in RecordContest.recordIDs(of: verification.evidence) {
            let holder = try String.fetchOne(
                db.cachedStatement(sql: JournalSQL.recordHolder),
                arguments: ["provider": entry.provider.rawValue, "recordID": recordID, "id": entry.id.rawValue]
            )
            if let holder, let id = PaymentID(rawValue: holder), found[id] == nil {
                found[id] = try fetchEntry(db, id)
            }
            let naming = try PaymentRecord.fetchAll(
                db.cachedStatement(sql: JournalSQL.namingPayments),
                arguments: ["provider": entry.provider.rawValue, "transactionID": recordID, "id": entry.id.rawValue]
            )
            for record in naming { found[record.entry.id] = record.entry }
        }
        return found.values.sorted { $0.id.rawValue < $1.id.rawValue }.filter { rival in
            RecordContest.couldBelong(
                verification.evidence,
                confirming: entry.amount,
                to: PaymentVerificationRequest(entry: rival, squareLocationID: rival.squareLocationID)
            )
        }.map(Rival.init)
    }

    /// Flags `entry` as contested with `answer` (its history row's note), releasing the records it claimed; `nil` when
    /// it changed meanwhile or is flagged already.
    static func contest(
        _ db: Database,
        _ entry: JournalEntry,
        _ answer: PaymentVerification,
        at now: Date
    ) throws -> JournalEntry? {
        let arguments: StatementArguments = [
            "now": now.journalTime, "id": entry.id.rawValue, "revision": entry.revision,
        ]
        guard let contested = try returning(db, JournalSQL.contest, arguments) else { return nil }
        for recordID in RecordContest.recordIDs(of: answer.evidence) {
            try db.run(
                JournalSQL.releaseClaim,
                ["provider": entry.provider.rawValue, "recordID": recordID, "id": entry.id.rawValue]
            )
        }
        try recordEvent(
            db,
            contested,
            at: now,
            kind: .contested,
            from: entry.state,
            to: entry.state,
            note: try answer.journalJSON()
        )
        return contested
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
