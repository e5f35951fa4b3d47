import Foundation
import GRDB
import Tender
import TenderProviderAPI

/// Every statement the journal runs, with named parameters (`:id`). Each goes through GRDB's statement cache
/// (`Database.cachedStatement(sql:)`): prepared once per connection, then only bound and stepped. The tests read each
/// one's query plan: every query reads an index whose entries are the rows it wants, never the whole table.
enum JournalSQL {
    /// A new payment, returned as written; nothing when its ID exists.
    static let insertPayment = """
        INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints, state,
            created_at, updated_at, expires_at, foreign_transaction_id, square_tender_types, square_location_id,
            square_application_id)
        VALUES (:id, :idempotencyKey, :provider, :amount, :currency, :endpoints, 'pending', :now, :now, :expiresAt,
            :foreignTransactionID, :squareTenderTypes, :squareLocationID, :squareApplicationID)
        ON CONFLICT (id) DO NOTHING
        RETURNING \(JournalEntry.columns)
        """

    /// A hand-off's token digest, with the hand-off's own expiry (SEC-4).
    static let insertToken = """
        INSERT INTO handoff_token (token_hash, payment_id, issued_at, expires_at)
        VALUES (:tokenHash, :id, :now, :expiresAt)
        """

    /// A row of a payment's history.
    static let insertEvent = """
        INSERT INTO payment_event (payment_id, at, kind, from_state, to_state, note)
        VALUES (:id, :at, :kind, :from, :to, :note)
        """

    /// A change for the fleet sync (the outbox): the history row's fields and the payment after the change (its JSON
    /// form, ``JournalEntry/encodeJSON(history:)``; `NULL` for `pruned`), numbered by the table's `AUTOINCREMENT`: the
    /// next sequence number, never one used before, in the transaction of the change.
    static let insertChange = """
        INSERT INTO outbox (payment_id, kind, at, from_state, to_state, note, payment)
        VALUES (:id, :kind, :at, :from, :to, :note, :payment)
        """

    /// At most `:limit` changes from sequence `:from` on, in order: what a sync sends next.
    static let changes = """
        SELECT sequence, payment_id, kind, at, from_state, to_state, note, payment FROM outbox
        WHERE sequence >= :from ORDER BY sequence LIMIT :limit
        """

    /// A change the server refused for good, to be made a `set_aside` marker in place (the payment's JSON kept until
    /// the server acknowledges the marker): not a marker already, nor a `pruned` change.
    static let setAsideCandidate = """
        SELECT payment_id, kind FROM outbox WHERE sequence = :sequence AND kind <> 'set_aside' AND kind <> 'pruned'
        """

    /// The change of ``setAsideCandidate`` made a marker.
    static let setAside = "UPDATE outbox SET kind = 'set_aside', note = :note WHERE sequence = :sequence"

    /// The history row that says a payment's change was set aside; none when the payment is gone. Not in the outbox.
    static let insertSetAsideEvent = """
        INSERT INTO payment_event (payment_id, at, kind, from_state, to_state, note)
        SELECT id, :at, :kind, state, state, :note FROM payment WHERE id = :id
        """

    /// What the server acknowledged: recorded (never lowered), and the changes it holds deleted from the outbox.
    static let acknowledgeThrough = """
        UPDATE journal SET acknowledged_through = max(acknowledged_through, :through)
        """

    /// How many changes the outbox holds from `:from` on (its primary key's range).
    static let unsentCount = "SELECT COUNT(*) FROM outbox WHERE sequence >= :from"

    /// The changes the server holds, gone from the outbox.
    static let deleteAcknowledged = "DELETE FROM outbox WHERE sequence <= :through"

    /// Where the outbox's changes from before the cutoff end, when a journal is pruned: the first change made at or
    /// after it (or the next sequence when there is none). The changes before it are a prefix of the outbox, so
    /// deleting them makes no gap; a journal that never syncs keeps no more than the retention window of changes.
    static let outboxBoundary = """
        SELECT coalesce(
            (SELECT sequence FROM outbox WHERE at >= :cutoff ORDER BY sequence LIMIT 1),
            (SELECT max(sequence) + 1 FROM outbox), 0)
        """

    /// The payments still in the journal that changes before the boundary the fleet server has not acknowledged
    /// were about (once per change: the caller keeps each once): each gets a `snapshot` change when those go, so
    /// that the ledger still learns of it.
    static let unsentBeforeBoundary = """
        SELECT payment_id FROM outbox
        WHERE sequence > :acknowledged AND sequence < :boundary
          AND EXISTS (SELECT 1 FROM payment WHERE id = outbox.payment_id)
        """

    /// The outbox's changes before the boundary, deleted.
    static let pruneOutbox = "DELETE FROM outbox WHERE sequence < :boundary"

    /// A payment's history rows, oldest first, through `payment_event_by_payment`.
    static let history = """
        SELECT kind, at, from_state, to_state, note FROM payment_event WHERE payment_id = :id ORDER BY id
        """

    /// The entry with an ID.
    static let entryByID = "SELECT \(JournalEntry.columns) FROM payment WHERE id = :id"

    /// The entry a token digest was issued for, with its callback endpoints, the token's own expiry, and the digest
    /// of the token whose answer the payment took (``TokenMatch``).
    static let entryByToken = """
        SELECT \(JournalEntry.columns(of: "payment")), payment.callback_endpoints, payment.answered_token,
            handoff_token.expires_at AS token_expires_at
        FROM handoff_token JOIN payment ON payment.id = handoff_token.payment_id
        WHERE handoff_token.token_hash = :tokenHash
        """

    /// An answer the journal keeps (``CallbackFacts/answerKey(tokenDigest:report:)``); nothing when it has it already.
    static let insertAnswer = """
        INSERT INTO callback_answer (answer_hash, payment_id, at) VALUES (:answer, :id, :now)
        ON CONFLICT (answer_hash) DO NOTHING
        """

    /// An ended payment whose answers disagree: flagged (from the first disagreement on) and delivered again; its
    /// state and outcome stay (REL-2).
    static let dispute = """
        UPDATE payment SET disputed_at = coalesce(disputed_at, :now), revision = revision + 1, updated_at = :now,
            acknowledged_at = NULL
        WHERE id = :id AND revision = :revision
        RETURNING \(JournalEntry.columns)
        """

    /// A payment's callback endpoints.
    static let endpointsByID = "SELECT callback_endpoints FROM payment WHERE id = :id"

    /// The opening noted: not a change of state, so no revision (the payment's answer may be recorded already).
    static let markOpened = """
        UPDATE payment SET opened_at = :now WHERE id = :id RETURNING \(JournalEntry.columns)
        """

    /// The one way a payment's state changes (see `PaymentJournal.transitionIfUnchanged`): guarded by the state and
    /// revision read, returning the row it leaves. `outcome` adds the outcome's columns; `change` what else it writes.
    static func transition(outcome: Bool, change: TransitionChange) -> String {
        var sql =
            "UPDATE payment SET state = :state, revision = revision + 1, updated_at = :now, acknowledged_at = NULL"
        if outcome {
            sql += """
                , outcome_status = :status, outcome_amount_minor_units = :outcomeAmount,
                outcome_currency = :outcomeCurrency, outcome_transaction_id = :transactionID,
                outcome_client_transaction_id = :clientTransactionID, outcome_error_code = :errorCode,
                outcome_message = :message, outcome_assurance = :assurance, outcome_source = :source
                """
        }
        if let assignments = change.assignments { sql += ", " + assignments }
        return sql + """

            WHERE id = :id AND state = :fromState AND revision = :revision RETURNING \(JournalEntry.columns)
            """
    }

    /// The app's acknowledgement.
    static let acknowledge = """
        UPDATE payment SET acknowledged_at = :now
        WHERE id = :id AND revision = :revision AND state <> 'pending' AND acknowledged_at IS NULL
        RETURNING \(JournalEntry.columns)
        """

    /// A verdict of the provider's server on a completed payment's callback, which changes no state: confirmed, the
    /// outcome's assurance rises; contradicted, the payment is delivered again.
    static func verification(_ kind: PaymentVerdict) -> String {
        let assurance = kind == .confirmed ? ", outcome_assurance = 'verified_with_provider'" : ""
        let delivery = kind == .contradicted ? ", acknowledged_at = NULL" : ""
        return """
            UPDATE payment SET \(TransitionChange.verificationAssignments), revision = revision + 1,
                updated_at = :now\(assurance)\(delivery)
            WHERE id = :id AND revision = :revision AND state = 'completed' AND outcome_source = 'callback'
                AND verification IS NULL
            RETURNING \(JournalEntry.columns)
            """
    }

    /// The payment other than `:id` that holds `:provider`'s record `:recordID`, if one does.
    static let recordHolder = """
        SELECT payment_id FROM provider_record
        WHERE provider = :provider AND record_id = :recordID AND payment_id <> :id
        """

    /// `:provider`'s record `:recordID` claimed for payment `:id`, confirmed by it; nothing when the payment holds it
    /// already (``recordHolder`` was asked first, in the same transaction).
    static let claimRecord = """
        INSERT INTO provider_record (provider, record_id, payment_id) VALUES (:provider, :recordID, :id)
        ON CONFLICT (provider, record_id) DO NOTHING
        """

    /// The payments of `:provider` other than `:id` whose outcome's transaction ID is `:transactionID` (reported by
    /// their callback, or entered by hand), through `payment_by_transaction`: rivals for that record.
    static let namingPayments = """
        SELECT \(JournalEntry.columns) FROM payment
        WHERE outcome_transaction_id = :transactionID AND provider = :provider AND id <> :id
        """

    /// A payment flagged as contested (``PaymentJournal/record(_:of:)``): its state and outcome stay, a callback's
    /// outcome is back to reported by the POS app, and it is delivered again.
    static let contest = """
        UPDATE payment SET contested_at = :now, revision = revision + 1, updated_at = :now, acknowledged_at = NULL,
            outcome_assurance = CASE WHEN outcome_source = 'callback' THEN 'reported_by_pos_app'
                ELSE outcome_assurance END
        WHERE id = :id AND revision = :revision AND contested_at IS NULL
        RETURNING \(JournalEntry.columns)
        """

    /// `:provider`'s record `:recordID`, released if payment `:id` claimed it: a contested record confirms nobody.
    static let releaseClaim = """
        DELETE FROM provider_record WHERE provider = :provider AND record_id = :recordID AND payment_id = :id
        """

    /// A genuine callback, come after the provider's server completed the payment, that reports another status than
    /// the server proved: the payment keeps its state and outcome (REL-2), its verification becomes a contradiction
    /// (the server's evidence kept), and it is delivered again.
    static let contradictLateAnswer = """
        UPDATE payment SET verification = 'contradicted', verified_at = :now, verification_note = :verificationNote,
            verification_reason = :verificationReason, revision = revision + 1, updated_at = :now,
            acknowledged_at = NULL
        WHERE id = :id AND revision = :revision AND state = 'completed' AND outcome_source = 'provider'
        RETURNING \(JournalEntry.columns)
        """

    /// The payments ``HandoffCoordinator/reconcile(using:squareLocationID:)`` asks the provider's server about, as
    /// the partial index `payment_unreconciled` selects them: not verified yet, and unknown, pending, tampered,
    /// completed by a callback of a provider that has a lookup API, or disputed (answers that disagree) and not
    /// resolved. SQLite uses a partial index only for a query
    /// whose `WHERE` holds the index's condition term for term (the query-plan test checks that it does).
    static let unreconciledCondition = """
        verification IS NULL AND contested_at IS NULL AND (state = 'unknown' OR state = 'pending' \
        OR state = 'tampered' OR (state = 'completed' AND outcome_source = 'callback' \
        AND (provider = 'square' OR provider = 'sumup')) OR (disputed_at IS NOT NULL AND state <> 'resolved'))
        """

    /// The next payments to reconcile after `(:afterCreated, :afterID)` in creation order, at most `:limit`, through
    /// `payment_unreconciled`: unknown and tampered ones, pending ones whose expiry has passed by `:now`, completed ones
    /// whose callback no server has checked, and disputed ones. Read page by page, since each one's server is asked between pages.
    static let unreconciled = """
        SELECT \(JournalEntry.columns) FROM payment INDEXED BY payment_unreconciled
        WHERE \(unreconciledCondition)
          AND (state <> 'pending' OR expires_at <= :now)
          AND (created_at > :afterCreated OR (created_at = :afterCreated AND id > :afterID))
        ORDER BY created_at, id LIMIT :limit
        """

    /// At most `:limit` ended (terminal), acknowledged payments last changed before a time (REL-9), oldest first,
    /// returned (their IDs and states, for the outbox's `pruned` changes),
    /// found through `payment_prunable` (whose entries are exactly the payments prune may delete): named, since
    /// SQLite's planner, without statistics, would rather read `payment_by_state` for the four states, which is most
    /// of the history. The states are compared one by one, as the index's condition writes them: SQLite uses a
    /// partial index only for a query that holds its condition term for term.
    static let prune = """
        DELETE FROM payment WHERE id IN (
            SELECT id FROM payment INDEXED BY payment_prunable
            WHERE acknowledged_at IS NOT NULL
              AND (state = 'completed' OR state = 'late' OR state = 'resolved')
              AND updated_at < :cutoff
            ORDER BY updated_at, id LIMIT :limit)
        RETURNING id, state
        """

    /// Pending payments whose expiry has passed, oldest first, found through `payment_pending` (named: the planner
    /// would take `payment_by_state` as readily, which is as quick but not bounded by its size).
    static let overdue = """
        SELECT \(JournalEntry.columns) FROM payment INDEXED BY payment_pending
        WHERE state = 'pending' AND expires_at <= :now ORDER BY created_at, id
        """

    /// Pending payments, oldest first, through `payment_pending` (recover()'s, on a journal opened for writing).
    static let pending = """
        SELECT \(JournalEntry.columns) FROM payment INDEXED BY payment_pending
        WHERE state = 'pending' ORDER BY created_at, id
        """

    /// Payments that left pending and were not acknowledged since, in the order they changed, through
    /// `payment_undelivered`.
    static let undelivered = """
        SELECT \(JournalEntry.columns) FROM payment
        WHERE acknowledged_at IS NULL AND state <> 'pending' ORDER BY updated_at, id
        """

    /// The payments created at or after `:since`, and after `(:afterCreated, :afterID)` in creation order, oldest
    /// first, at most `:limit`, through `payment_by_creation`: a page of a listing.
    static let list = """
        SELECT \(JournalEntry.columns) FROM payment
        WHERE created_at >= :since AND (created_at > :afterCreated OR (created_at = :afterCreated AND id > :afterID))
        ORDER BY created_at, id LIMIT :limit
        """

    /// ``list`` for the payments of one state, through `payment_by_state`.
    static let listState = """
        SELECT \(JournalEntry.columns) FROM payment
        WHERE state = :state AND created_at >= :since
          AND (created_at > :afterCreated OR (created_at = :afterCreated AND id > :afterID))
        ORDER BY created_at, id LIMIT :limit
        """

    /// ``list`` for the contested payments (``JournalEntry/contestedAt``), through `payment_contested`.
    static let listContested = """
        SELECT \(JournalEntry.columns) FROM payment INDEXED BY payment_contested
        WHERE contested_at IS NOT NULL AND created_at >= :since
          AND (created_at > :afterCreated OR (created_at = :afterCreated AND id > :afterID))
        ORDER BY created_at, id LIMIT :limit
        """

    /// Every query and change above, named, with each shape of the transition: what the tests read the plans of.
    static var all: [(name: String, sql: String)] {
        var all: [(name: String, sql: String)] = [
            ("insertPayment", insertPayment), ("insertToken", insertToken), ("insertEvent", insertEvent),
            ("insertChange", insertChange), ("changes", changes), ("acknowledgeThrough", acknowledgeThrough),
            ("deleteAcknowledged", deleteAcknowledged), ("unsentCount", unsentCount),
            ("setAsideCandidate", setAsideCandidate), ("setAside", setAside),
            ("insertSetAsideEvent", insertSetAsideEvent),
            ("outboxBoundary", outboxBoundary),
            ("unsentBeforeBoundary", unsentBeforeBoundary), ("pruneOutbox", pruneOutbox),
            ("entryByID", entryByID), ("history", history), ("entryByToken", entryByToken),
            ("insertAnswer", insertAnswer), ("dispute", dispute),
            ("endpointsByID", endpointsByID), ("markOpened", markOpened), ("acknowledge", acknowledge),
            ("verification confirmed", verification(.confirmed)),
            ("verification contradicted", verification(.contradicted)), ("prune", prune), ("overdue", overdue),
            ("unreconciled", unreconciled), ("namingPayments", namingPayments),
            ("recordHolder", recordHolder), ("claimRecord", claimRecord), ("contest", contest),
            ("releaseClaim", releaseClaim),
            ("contradictLateAnswer", contradictLateAnswer),
            ("pending", pending), ("undelivered", undelivered), ("list", list), ("listState", listState),
            ("listContested", listContested),
        ]
        for outcome in [false, true] {
            for change in TransitionChange.shapes {
                all.append(("transition \(outcome) \(change.name)", transition(outcome: outcome, change: change)))
            }
        }
        return all
    }
}

/// What a state change writes beyond state, revision and outcome, with its values.
enum TransitionChange {
    /// Nothing more.
    case none
    /// A new hand-off of the payment: one more hand-off, a new expiry, the callback endpoints (JSON, as stored), and
    /// the Square tender types every hand-off of it allowed (as stored). A server's verdict is cleared: it was about
    /// the payment before this hand-off.
    case reopening(expiresAt: Date, endpoints: String, squareTenderTypes: String?)
    /// A callback's answer: the digest of the token it carried, noted as the payment's answering token; `disputes`, an
    /// answer that disagrees with the request (tampered), which flags the payment from then on (`disputed_at`). A
    /// server's verdict is cleared: it was about the payment before its answer came, and the answer is checked anew.
    case answer(tokenDigest: [UInt8], disputes: Bool)
    /// A decision by hand: resolved at the change's time, with the change's note. The state the payment was in and
    /// what its POS app reported are kept from before the first resolution.
    case resolution
    /// A verdict of the provider's server, recorded with the change (its time is the change's).
    case verification(ServerVerdict)

    /// One change of each shape, for the tests that read every statement's plan.
    static let shapes: [TransitionChange] = [
        .none, .reopening(expiresAt: Date(), endpoints: "[]", squareTenderTypes: nil),
        .answer(tokenDigest: [], disputes: false), .answer(tokenDigest: [], disputes: true),
        .resolution,
        .verification(ServerVerdict(verdict: .confirmed, reason: "", note: nil, evidence: "{}")),
    ]

    /// The shape's name.
    var name: String {
        switch self {
        case .none: "none"
        case .reopening: "reopening"
        case .answer(_, let disputes): disputes ? "disputing answer" : "answer"
        case .resolution: "resolution"
        case .verification: "verification"
        }
    }

    /// Whether the change binds a token digest (`:answeredToken`).
    var isAnswer: Bool {
        if case .answer = self { return true }
        return false
    }

    /// The assignments the update adds, after a comma.
    var assignments: String? {
        switch self {
        case .none: nil
        case .reopening:
            "handoff_count = handoff_count + 1, expires_at = :expiresAt, callback_endpoints = :endpoints, "
                + "square_tender_types = :squareTenderTypes, " + Self.verificationCleared
        case .answer(_, let disputes):
            "answered_token = :answeredToken, " + (disputes ? "disputed_at = coalesce(disputed_at, :now), " : "")
                + Self.verificationCleared
        case .resolution:
            // Resolved again (a correction): the state and the report from before the first resolution stay.
            "resolved_at = :now, resolved_from_state = coalesce(resolved_from_state, state), "
                + "resolution_note = :note, resolution_reported_outcome = :reported"
        case .verification: Self.verificationAssignments
        }
    }

    /// The values of ``assignments``. `note` is the change's; `entry`, the payment as read (the guard of the update
    /// makes it the row the update changes).
    func arguments(note: String?, replacing entry: JournalEntry) throws -> StatementArguments {
        switch self {
        case .none:
            return [:]
        case .reopening(let expiresAt, let endpoints, let tenderTypes):
            return ["expiresAt": expiresAt.journalTime, "endpoints": endpoints, "squareTenderTypes": tenderTypes]
        case .answer(let digest, _):
            return ["answeredToken": Data(digest)]
        case .resolution:
            let reported =
                entry.resolution?.reportedOutcome ?? entry.outcome.flatMap { $0.source == .callback ? $0 : nil }
            return ["note": note, "reported": try reported?.journalJSON()]
        case .verification(let verdict):
            return verdict.arguments
        }
    }

    /// The columns of a server's verdict, emptied: a change of state after which the verdict no longer describes the
    /// payment (a new hand-off, a callback's answer). Otherwise an `unknown` payment the server contradicted, then
    /// answered, would keep the contradiction, and its answer would never be checked (the reconciler reads only
    /// payments without a verdict). The verdict stays in the payment's history.
    static let verificationCleared = """
        verification = NULL, verified_at = NULL, verification_note = NULL, verification_reason = NULL, \
        verification_evidence = NULL
        """

    /// The columns of a server's verdict, at the change's time (`:now`).
    static let verificationAssignments = """
        verification = :verdict, verified_at = :now, verification_note = :verificationNote, \
        verification_reason = :verificationReason, verification_evidence = :verificationEvidence
        """
}

/// What the journal writes of a verifier's answer that proved something: the verdict, its reason and message, and the
/// evidence as JSON.
struct ServerVerdict: Sendable {
    var verdict: PaymentVerdict
    var reason: String
    /// The verifier's message, redacted.
    var note: String?
    /// ``PaymentVerificationEvidence`` as the journal keeps it.
    var evidence: String

    init(verdict: PaymentVerdict, reason: String, note: String?, evidence: String) {
        self.verdict = verdict
        self.reason = reason
        self.note = note
        self.evidence = evidence
    }

    init(_ verification: PaymentVerification) throws {
        precondition(verification.verdict != .unverifiable, "an unverifiable answer is not recorded")
        verdict = verification.verdict
        reason = verification.reason.rawValue
        note = Redaction.redact(verification.message, limit: 1024)
        evidence = try verification.evidence.journalJSON()
    }

    /// The statement arguments of ``TransitionChange/verificationAssignments``.
    var arguments: StatementArguments {
        [
            "verdict": verdict.rawValue, "verificationNote": note, "verificationReason": reason,
            "verificationEvidence": evidence,
        ]
    }
}

/// A `payment` row read as an entry: GRDB's record protocol, the row decoded by column name.
struct PaymentRecord: FetchableRecord {
    var entry: JournalEntry

    init(row: Row) throws {
        entry = try JournalEntry(row: row)
    }
}

/// A row of ``JournalSQL/entryByToken``: the payment a token was issued for, and what the token's row says.
struct TokenMatch: FetchableRecord {
    var entry: JournalEntry
    /// The payment's callback endpoints, as stored.
    var endpoints: String?
    /// When the token's own hand-off expires.
    var tokenExpiresAt: Int64
    /// The digest of the token whose callback ended the payment.
    var answeredToken: Data?

    init(row: Row) throws {
        entry = try JournalEntry(row: row)
        endpoints = try JournalEntry.column(row, "callback_endpoints")
        tokenExpiresAt = try JournalEntry.required(row, "token_expires_at")
        answeredToken = try JournalEntry.column(row, "answered_token")
    }
}

extension Database {
    /// Runs a change through the statement cache with named arguments; returns how many rows it changed.
    ///
    /// A statement given a blob (`blob`: the argument that holds a token digest) is bound again with `NULL` there once
    /// it ran, so that the cached statement does not keep the bytes for the life of the connection (LeakSanitizer took
    /// such bytes for a leak).
    @discardableResult
    func run(_ sql: String, _ arguments: StatementArguments, blob: String? = nil) throws -> Int {
        let statement = try cachedStatement(sql: sql)
        try statement.execute(arguments: arguments)
        let changes = changesCount
        if let blob { try statement.setArguments(arguments &+ [blob: DatabaseValue.null]) }
        return changes
    }
}
