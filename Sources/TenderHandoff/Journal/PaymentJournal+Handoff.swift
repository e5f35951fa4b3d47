import Foundation
import GRDB
import Tender
import TenderProviderAPI

/// What the journal writes ahead for one hand-off.
struct HandoffDraft: Sendable {
    var id: PaymentID
    var provider: PaymentProvider
    var amount: Money
    /// Callback endpoints (scheme, host, path): never full URLs.
    var endpoints: [String]
    var tokenDigest: [UInt8]
    /// How long after it is written the hand-off expires: measured from the same instant as the payment's
    /// `created_at` (or, reopened, its `updated_at`), so that `expires_at` is exactly that much later.
    var lifetime: Duration
    /// The SumUp `foreign-tx-id` the request carries (``ForeignTransactionID``): the payment's own, read before the
    /// hand-off was prepared, or a new one for a payment not written yet. `nil` for the other providers.
    var foreignTransactionID: String? = nil
    /// The tender types a Square request allows (``SquareRequest/supportedTenderTypes``), kept with the payment for
    /// its verification. `nil` for the other providers.
    var squareTenderTypes: SquareTenderTypes? = nil
    /// The Square location the request names (its own `location_id`, or the authorized seller's), kept with the
    /// payment for its verification. `nil` for the other providers.
    var squareLocationID: String? = nil
    /// The Square application the request names (its `client_id`), kept with the payment for its verification: that
    /// of its first hand-off. `nil` for the other providers.
    var squareApplicationID: String? = nil
}

/// What the journal needs to know about a callback: never the token itself.
struct CallbackFacts: Sendable {
    var provider: PaymentProvider
    var endpoint: String
    var tokenDigest: [UInt8]?
    /// The outcome as the callback reports it.
    var reported: RecordedOutcome
    /// The outcome with amounts read in the payment's currency: Swipe echoes an amount without one (SEC-5).
    var reportedInCurrency: @Sendable (Currency) -> RecordedOutcome
    /// When the callback reached the app, if earlier than now (a callback recorded again after a storage error):
    /// lateness is judged by it (SEC-4), not by when the journal could be written.
    var receivedAt: Date?
    /// The SumUp `foreign-tx-id` the callback echoes, if it echoes one: it must be the payment's (SEC-5).
    var echoedForeignTransactionID: String?

    init(
        provider: PaymentProvider,
        endpoint: String,
        tokenDigest: [UInt8]?,
        reported: RecordedOutcome,
        reportedInCurrency: (@Sendable (Currency) -> RecordedOutcome)? = nil,
        receivedAt: Date? = nil,
        echoedForeignTransactionID: String? = nil
    ) {
        self.provider = provider
        self.endpoint = endpoint
        self.tokenDigest = tokenDigest
        self.reported = reported
        self.reportedInCurrency = reportedInCurrency ?? { _ in reported }
        self.receivedAt = receivedAt
        self.echoedForeignTransactionID = echoedForeignTransactionID
    }
}

extension CallbackFacts {
    /// What tells one answer from another: the SHA-256 of the token's digest, the endpoint it came on, its redacted
    /// report (`report`, as the journal keeps it) and the `foreign-tx-id` it echoes. The same callback again, in
    /// whatever bytes, has the same key.
    func answerKey(tokenDigest: [UInt8], report: String) -> [UInt8] {
        let parts: [JSONValue] = [
            .string(Data(tokenDigest).base64EncodedString()), .string(endpoint),
            .string(report), echoedForeignTransactionID.map(JSONValue.string) ?? .null,
        ]
        return SHA256.hash(JSONValue.array(parts).serialized(escapingSlashes: false))
    }
}

extension RecordedOutcome {
    /// Whether `other` reports what this does (status, amount, IDs, error code, message); `nil` reports nothing.
    func sameReport(as other: RecordedOutcome?) -> Bool {
        guard let other else { return false }
        return status == other.status && amount == other.amount && transactionID == other.transactionID
            && clientTransactionID == other.clientTransactionID && errorCode == other.errorCode
            && message == other.message
    }
}

extension PaymentJournal {
    /// Writes the payment ahead of opening the POS app (REL-1): a new payment, or a new hand-off of an
    /// existing one when the rules allow it. One transaction; nothing is written if it fails.
    func begin(_ draft: HandoffDraft, reopening: Bool) throws -> (entry: JournalEntry, reopened: Bool) {
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(draft.lifetime.timeInterval)
        return try write("begin") { db in
            // A new payment is written at once; the insert does nothing when the ID exists (`ON CONFLICT DO NOTHING`).
            let created = try PaymentJournal.returning(
                db,
                JournalSQL.insertPayment,
                [
                    "id": draft.id.rawValue, "idempotencyKey": UUID().journalText,
                    "provider": draft.provider.rawValue, "amount": draft.amount.minorUnits,
                    "currency": draft.amount.currency.code,
                    "endpoints": PaymentJournal.encodeEndpoints(draft.endpoints.sorted()),
                    "now": now.journalTime, "expiresAt": expiresAt.journalTime,
                    "foreignTransactionID": draft.foreignTransactionID,
                    "squareTenderTypes": JournalEntry.journalText(draft.squareTenderTypes),
                    "squareLocationID": draft.squareLocationID,
                    "squareApplicationID": draft.squareApplicationID,
                ]
            )
            if let created {
                try PaymentJournal.insertToken(db, draft, at: now, expiresAt: expiresAt)
                try PaymentJournal.recordEvent(db, created, at: now, kind: .begun, from: nil, to: .pending)
                return (created, false)
            }
            if let existing = try PaymentJournal.fetchEntry(db, draft.id) {
                guard existing.provider == draft.provider, existing.amount == draft.amount,
                    existing.squareLocationID == draft.squareLocationID
                else {
                    throw HandoffError(
                        .paymentMismatch,
                        "Payment \(draft.id) exists for another provider, amount or Square location; use a new payment ID for a different payment."
                    )
                }
                switch existing.state {
                case .pending where !reopening:
                    throw HandoffError(
                        .paymentPending,
                        "Payment \(draft.id) is still waiting for the POS app's answer; opening it again could charge twice. Wait for the answer, or pass reopening: true (--reopen) if you are sure the POS app never took it."
                    )
                case .unknown where !reopening:
                    throw HandoffError(
                        .outcomeUnknown,
                        "Payment \(draft.id) timed out and may have been charged; check the POS app or the provider first, then resolve it or pass reopening: true (--reopen)."
                    )
                case .tampered where !reopening:
                    throw HandoffError(
                        .outcomeUnknown,
                        "Payment \(draft.id) had an answer that does not match its request (tampered) and may have been charged; check with the provider first (tender journal reconcile), then resolve it or pass reopening: true (--reopen)."
                    )
                case .completed, .late, .resolved:
                    throw HandoffError(
                        .paymentFinished,
                        "Payment \(draft.id) already ended (\(existing.state)); start a new payment with a new ID."
                    )
                default:
                    break
                }
                if existing.foreignTransactionID != draft.foreignTransactionID {
                    // The hand-off read the payment's own foreign-tx-id before it wrote; another process wrote the
                    // payment with another one meanwhile. SumUp must see one ID per payment (it refuses a second charge
                    // with the same one), so nothing is sent with this one.
                    throw HandoffError(
                        .storageFailed,
                        "Payment \(draft.id) changed while it was being written; nothing was changed. Try again."
                    )
                }
                let endpoints = Array(Set(try PaymentJournal.endpoints(db, draft.id) + draft.endpoints)).sorted()
                // Either hand-off may be the one the POS app took: the types any of them allowed.
                let tenderTypes = existing.squareTenderTypes.map { $0.union(draft.squareTenderTypes ?? []) }
                try PaymentJournal.insertToken(db, draft, at: now, expiresAt: expiresAt)
                let reopened = try PaymentJournal.transition(
                    db,
                    existing,
                    to: .pending,
                    outcome: nil,
                    at: now,
                    kind: .reopened,
                    change: .reopening(
                        expiresAt: expiresAt,
                        endpoints: PaymentJournal.encodeEndpoints(endpoints),
                        squareTenderTypes: JournalEntry.journalText(tenderTypes)
                    )
                )
                return (reopened, true)
            }
            // Not reached: inside one transaction, the insert did nothing only because the ID exists.
            throw HandoffError(
                .storageFailed,
                "Payment \(draft.id) changed while it was being written; nothing was changed. Try again."
            )
        }
    }

    /// Notes that the opener reported the POS app open: a fact about the hand-off, not a change of state
    /// (the callback may already have been recorded when the opener returns).
    /// - Returns: the entry as it stands after the note, or `nil` if it is gone.
    @discardableResult
    func markOpened(_ id: PaymentID) throws -> JournalEntry? {
        let now = clock.now()
        return try write("opened") { db in
            let opened = try PaymentJournal.returning(
                db,
                JournalSQL.markOpened,
                ["now": now.journalTime, "id": id.rawValue]
            )
            guard let opened else { return nil }
            try PaymentJournal.recordEvent(db, opened, at: now, kind: .opened, from: opened.state, to: opened.state)
            return opened
        }
    }

    /// Marks a pending payment whose POS app could not be opened (REL-1): `PaymentState.notOpened` if no
    /// earlier hand-off of it ever opened, `PaymentState.unknown` if one did (it may have charged).
    /// - Parameter handoff: the hand-off whose opening failed (``JournalEntry/handoffCount`` when it was written):
    ///   if the payment was handed off again since, it is left as it is.
    func markOpenFailed(_ id: PaymentID, handoff: Int) throws -> JournalEntry? {
        let now = clock.now()
        return try write("open_failed") { db in
            guard let entry = try PaymentJournal.fetchEntry(db, id) else { return nil }
            guard entry.state == .pending, entry.handoffCount == handoff else { return entry }
            let state: PaymentState = entry.openedAt == nil ? .notOpened : .unknown
            return try PaymentJournal.transition(db, entry, to: state, outcome: nil, at: now, kind: .openFailed)
        }
    }

    /// Moves a still-pending payment to `PaymentState.unknown` after the hand-off time-out (REL-5).
    /// Returns the entry as it stands (already recorded, if the callback won the race).
    /// - Parameter handoff: the hand-off that timed out (``JournalEntry/handoffCount`` when it was written): if the
    ///   payment was handed off again since, the newer hand-off has a time-out of its own, and nothing changes.
    func markTimedOut(_ id: PaymentID, handoff: Int) throws -> (entry: JournalEntry, changed: Bool) {
        let now = clock.now()
        return try write("timed_out") { db in
            let entry = try PaymentJournal.requireEntry(db, id)
            guard entry.state == .pending, entry.handoffCount == handoff else { return (entry, false) }
            return (
                try PaymentJournal.transition(db, entry, to: .unknown, outcome: nil, at: now, kind: .timedOut),
                true
            )
        }
    }

    /// Records a callback whose token was issued: every such answer is kept, in one transaction (SEC-2).
    ///
    /// * An answer the journal has already (``CallbackFacts/answerKey(tokenDigest:report:)``: the same token, endpoint, report
    ///   and echo) is a duplicate: nothing changes, and the transaction ends without a commit (a replay writes nothing).
    /// * A payment still waiting for its answer (`PaymentState.acceptsCallback`) takes it: `PaymentState.completed`,
    ///   `PaymentState.late`, or `PaymentState.tampered` for an answer that does not match the request (SEC-5),
    ///   which flags it (``JournalEntry/disputedAt``) and leaves it waiting for its genuine answer.
    /// * A payment that ended keeps its state and outcome (REL-2); the answer goes into its history. A tampered answer,
    ///   or a second, different answer to the hand-off whose answer the payment took, flags it and delivers it again
    ///   (its answers disagree); another hand-off's answer (a reopened payment's, a possible second charge) does not,
    ///   but is compared with an outcome the provider's server proved (``compareLateAnswer(_:_:with:at:)``). An answer
    ///   that repeats the payment's own answer in other bytes is a duplicate.
    ///
    /// Every answer kept has its redacted report as the note of its history row.
    func recordCallback(_ facts: CallbackFacts) throws -> (disposition: CallbackDisposition, entry: JournalEntry?) {
        guard let digest = facts.tokenDigest else { return (.unsolicited, nil) }
        let now = clock.now()
        return try transaction("callback") { db in
            guard let found = try PaymentJournal.tokenMatch(db, digest) else {
                return ((.unsolicited, nil), commit: false)
            }
            let entry = found.entry
            let issued = try PaymentJournal.issued(facts.endpoint, stored: found.endpoints, of: entry.id)
            let decided = PaymentJournal.decide(
                facts,
                for: entry,
                endpointIssued: issued,
                expiresAt: Date(journalTime: found.tokenExpiresAt),
                at: facts.receivedAt.map { min($0, now) } ?? now
            )
            // Redacted; its transaction ID kept, for a refund.
            let report = try decided.outcome.journalJSON()
            let kept = try db.run(
                JournalSQL.insertAnswer,
                [
                    "answer": Data(facts.answerKey(tokenDigest: digest, report: report)), "id": entry.id.rawValue,
                    "now": now.journalTime,
                ],
                blob: "answer"
            )
            guard kept == 1 else { return ((.duplicate, entry), commit: false) }
            let tampered = decided.disposition == .tampered
            if entry.state.acceptsCallback {
                let updated = try PaymentJournal.transition(
                    db,
                    entry,
                    to: decided.state,
                    outcome: decided.outcome,
                    at: now,
                    kind: HandoffEvent.Kind(decided.disposition),
                    note: report,
                    change: .answer(tokenDigest: digest, disputes: tampered)
                )
                return ((decided.disposition, updated), commit: true)
            }
            // The payment has ended. Another answer with the token its answer came with: the same answer in other
            // bytes is a duplicate; a different one disagrees with it.
            let sameHandoff = found.answeredToken.map(Array.init) == digest
            if sameHandoff, !tampered, decided.outcome.sameReport(as: entry.reportedOutcome) {
                return ((.duplicate, entry), commit: false)
            }
            var updated = entry
            if entry.state != .resolved, tampered || sameHandoff {
                let arguments: StatementArguments = [
                    "now": now.journalTime, "id": entry.id.rawValue, "revision": entry.revision,
                ]
                guard let disputed = try PaymentJournal.returning(db, JournalSQL.dispute, arguments) else {
                    throw HandoffError(
                        .storageFailed,
                        "Payment \(entry.id) changed while it was being updated; nothing was changed. Try again."
                    )
                }
                updated = disputed
            }
            let disposition: CallbackDisposition = tampered ? .tampered : .extraAnswer
            try PaymentJournal.recordEvent(
                db,
                updated,
                at: now,
                kind: HandoffEvent.Kind(disposition),
                from: entry.state,
                to: entry.state,
                note: report
            )
            if !tampered, !sameHandoff,
                let checked = try PaymentJournal.compareLateAnswer(db, facts, with: updated, at: now)
            {
                updated = checked
            }
            return ((disposition, updated), commit: true)
        }
    }

    /// What a callback does to a payment that accepts one: tampered (SEC-5), late (SEC-4), or recorded.
    /// - Parameter expiresAt: when the hand-off the callback's token was issued for expired or expires: a payment
    ///   handed off again has a later expiry, but an earlier hand-off's answer is late after its own.
    static func decide(
        _ facts: CallbackFacts,
        for entry: JournalEntry,
        endpointIssued: Bool,
        expiresAt: Date,
        at now: Date
    ) -> (disposition: CallbackDisposition, state: PaymentState, outcome: RecordedOutcome) {
        let reported = facts.reportedInCurrency(entry.amount.currency)
        if facts.provider != entry.provider || !endpointIssued || !PaymentJournal.echoesMatch(reported, entry)
            || !PaymentJournal.foreignTransactionIDMatches(facts, entry)
        {
            return (.tampered, .tampered, reported)
        }
        if now >= expiresAt { return (.late, .late, reported) }
        return (.recorded, .completed, reported)
    }

    /// Whether a callback arrived on one of the endpoints issued for its payment (SEC-5), given as the journal stores
    /// them (``encodeEndpoints(_:)``).
    /// - Throws: ``HandoffError/Code/journalCorrupt`` when the stored endpoints cannot be read.
    static func issued(_ endpoint: String, stored text: String?, of id: PaymentID) throws -> Bool {
        CallbackEndpoint.matches(endpoint, anyOf: try decodeEndpoints(text, of: id))
    }

    /// SEC-5: every field the POS app echoes must equal what was sent. Of the provider-independent fields,
    /// only the amount (with its currency) is echoed, and only by some providers; the token is matched already.
    static func echoesMatch(_ reported: RecordedOutcome, _ entry: JournalEntry) -> Bool {
        guard let amount = reported.amount else { return true }
        return amount == entry.amount
    }

    /// SEC-5 for SumUp: the `foreign-tx-id` a callback echoes must be the one the payment's hand-offs send (an app
    /// before 1.53.2 echoes none).
    static func foreignTransactionIDMatches(_ facts: CallbackFacts, _ entry: JournalEntry) -> Bool {
        guard let echoed = facts.echoedForeignTransactionID else { return true }
        return echoed == entry.foreignTransactionID
    }

    /// For a payment the provider's server completed (outcome source `provider`) whose own callback came since: when
    /// the callback says approved and the server did not, or the other way round, the payment's verification becomes
    /// `contradicted` (`status_mismatch`; the server's evidence kept), and it is delivered again. Its state and
    /// outcome do not change (REL-2). Returns the entry as changed, or `nil` when nothing changed (another payment,
    /// or the two agree: approved both, or neither).
    static func compareLateAnswer(
        _ db: Database,
        _ facts: CallbackFacts,
        with entry: JournalEntry,
        at now: Date
    ) throws -> JournalEntry? {
        guard entry.state == .completed, let proven = entry.outcome, proven.source == .provider else { return nil }
        let reported = facts.reportedInCurrency(entry.amount.currency).status
        guard (reported == .approved) != (proven.status == .approved) else { return nil }
        let evidence = entry.verification?.evidence ?? PaymentVerificationEvidence(server: nil, askedAt: now)
        let verification = PaymentVerification(
            verdict: .contradicted,
            reason: .statusMismatch,
            message: "The POS app's own answer came after the provider's server had proved the payment "
                + "\(proven.status), and it says \(reported): one of them is not what happened, or another attempt "
                + "charged the customer. Check the payment with the provider, then resolve it.",
            provenOutcome: proven.status,
            evidence: evidence
        )
        let verdict = try ServerVerdict(verification)
        let changed = try returning(
            db,
            JournalSQL.contradictLateAnswer,
            [
                "now": now.journalTime, "id": entry.id.rawValue, "revision": entry.revision,
                "verificationNote": verdict.note, "verificationReason": verdict.reason,
            ]
        )
        guard let changed else { return nil }
        try recordEvent(
            db,
            changed,
            at: now,
            kind: .contradicted,
            from: entry.state,
            to: entry.state,
            note: try verification.journalJSON()
        )
        return changed
    }

    /// Writes a hand-off's token digest, with the hand-off's own expiry (SEC-4).
    static func insertToken(_ db: Database, _ draft: HandoffDraft, at now: Date, expiresAt: Date) throws {
        try db.run(
            JournalSQL.insertToken,
            [
                "tokenHash": Data(draft.tokenDigest), "id": draft.id.rawValue, "now": now.journalTime,
                "expiresAt": expiresAt.journalTime,
            ],
            blob: "tokenHash"
        )
    }

    /// The payment a token digest was issued for, with what the token's row says; `nil` for a token never issued.
    static func tokenMatch(_ db: Database, _ digest: [UInt8]) throws -> TokenMatch? {
        let statement = try db.cachedStatement(sql: JournalSQL.entryByToken)
        let match = try TokenMatch.fetchOne(statement, arguments: ["tokenHash": Data(digest)])
        // Not kept by the cached statement for the connection's life (see `Database.run`).
        try statement.setArguments(["tokenHash": DatabaseValue.null])
        return match
    }

    static func endpoints(_ db: Database, _ id: PaymentID) throws -> [String] {
        let text = try String.fetchOne(
            db.cachedStatement(sql: JournalSQL.endpointsByID),
            arguments: ["id": id.rawValue]
        )
        return try decodeEndpoints(text, of: id)
    }

    /// The callback endpoints as the journal stores them: a JSON array of strings.
    static func decodeEndpoints(_ text: String?, of id: PaymentID) throws -> [String] {
        guard let text, let values = (try? JSONValue.parse(text))?.arrayValue else {
            throw HandoffError(
                .journalCorrupt,
                "Payment \(id) has unreadable callback endpoints; the file was changed outside Tender. Keep it for recovery."
            )
        }
        return values.compactMap(\.stringValue)
    }

    static func encodeEndpoints(_ endpoints: [String]) -> String {
        JSONValue.array(endpoints.map(JSONValue.string)).serialized(escapingSlashes: false)
    }
}

/// Compares the endpoint a callback arrived on with the ones issued (SEC-5).
enum CallbackEndpoint {
    /// Scheme and host compare case-insensitively (RFC 3986 §6.2.2.1), the path exactly.
    static func matches(_ received: String, anyOf issued: [String]) -> Bool {
        guard let received = try? URLParts(received) else { return false }
        return issued.contains { candidate in
            guard let candidate = try? URLParts(candidate) else { return false }
            return candidate.scheme.lowercased() == received.scheme.lowercased()
                && candidate.authority?.lowercased() == received.authority?.lowercased()
                && candidate.path == received.path
        }
    }
}
