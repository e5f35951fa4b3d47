import Foundation
import GRDB
import GRDBSQLite
import TenderProviderAPI

/// A value bound to a parameter of a journal statement.
enum JournalValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    /// An integer, or SQL `NULL` for `nil`.
    static func integer(_ value: Int?) -> JournalValue { value.map { .integer(Int64($0)) } ?? .null }
    /// A time as the journal stores it (milliseconds since 1970), or SQL `NULL` for `nil`.
    static func time(_ value: Date?) -> JournalValue { value.map { .integer($0.journalTime) } ?? .null }
    /// Text, or SQL `NULL` for `nil`.
    static func text(_ value: String?) -> JournalValue { value.map { .text($0) } ?? .null }
}

/// What a state change writes beyond state, revision and outcome, with its values.
enum TransitionChange {
    /// Nothing more.
    case none
    /// A new hand-off of the payment: one more hand-off, a new expiry, the callback endpoints (JSON, as stored).
    case reopening(expiresAt: Date, endpoints: String)
    /// A callback's answer: the digest of the token it carried, noted as the payment's answering token.
    case answer(tokenDigest: [UInt8])
    /// A decision by hand: resolved at the change's time, from the state the payment was in, with the change's note.
    case resolution

    /// The shape of the update that writes it.
    var extra: TransitionExtra {
        switch self {
        case .none: .none
        case .reopening: .reopening
        case .answer: .answer
        case .resolution: .resolution
        }
    }
}

/// How a state change's update is widened beyond state, revision and outcome: the shapes of
/// ``WriterSQL/transition(outcome:extra:)``.
enum TransitionExtra: Hashable {
    /// Nothing more.
    case none
    /// A new hand-off of the payment: `handoff_count`, `expires_at`, `callback_endpoints` (two values).
    case reopening
    /// A callback's answer: `answered_token` (one value).
    case answer
    /// A decision by hand: `resolved_at`, `resolved_from_state`, `resolution_note`, `resolution_reported_outcome`
    /// (four values).
    case resolution

    /// The assignments the update adds, after a comma.
    var assignments: String? {
        switch self {
        case .none: nil
        case .reopening: "handoff_count = handoff_count + 1, expires_at = ?, callback_endpoints = ?"
        case .answer: "answered_token = ?"
        case .resolution:
            "resolved_at = ?, resolved_from_state = ?, resolution_note = ?, resolution_reported_outcome = ?"
        }
    }
}

/// Every statement the journal runs on its writing connection. Each is prepared once per journal and then only
/// bound and stepped (``JournalWriter``): no lookup by SQL text, no per-statement bookkeeping of GRDB's.
///
/// A new payment's entry and a state change's are built in Swift from what was read and written (see
/// `PaymentJournal.transitionIfUnchanged`); other changes are followed by ``entryByID`` in the same transaction when
/// their caller needs the entry. Never by a `RETURNING` clause: SQLite gathers `RETURNING` rows in a temporary table,
/// which costs more than the read (about 40,000 instructions a statement against 17,000, counted with callgrind).
enum WriterSQL: Hashable {
    case begin, commit, rollback
    /// A new payment; nothing when its ID exists. Nine values.
    case insertPayment
    /// A token digest, its payment, the time and the token's expiry: four values.
    case insertToken
    /// A history row: payment, time, kind, from, to, note.
    case insertEvent
    /// The entry with an ID.
    case entryByID
    /// The entry a token digest was issued for, with its callback endpoints, the token's expiry, when the token was
    /// answered as an extra answer, and the digest of the token that answered the payment after the entry's columns.
    case entryByToken
    /// A token's extra answer noted (its payment had ended): time, token digest.
    case markTokenAnswered
    /// A payment's callback endpoints.
    case endpointsByID
    /// The opening noted: time, ID.
    case markOpened
    /// The opening noted on an entry known to be as read: time, ID, revision, opening time, acknowledgement time.
    case markOpenedIfUnchanged
    /// The one way a payment's state changes (see `PaymentJournal.transitionIfUnchanged`): guarded by the state,
    /// revision and opening time read.
    case transition(outcome: Bool, extra: TransitionExtra)
    /// The app's acknowledgement: time, ID, revision.
    case acknowledge
    /// A verdict of the provider's server: verification, time, note, time, ID, revision.
    case verification(PaymentVerdict)
    /// Ended, acknowledged payments older than a time.
    case prune
    /// The IDs of pending payments whose expiry has passed, oldest first.
    case overdueIDs

    var text: String {
        switch self {
        case .begin: return "BEGIN IMMEDIATE TRANSACTION"
        case .commit: return "COMMIT TRANSACTION"
        case .rollback: return "ROLLBACK TRANSACTION"
        case .insertPayment:
            return """
                INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                    state, created_at, updated_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """
        case .insertToken:
            return "INSERT INTO handoff_token (token_hash, payment_id, issued_at, expires_at) VALUES (?, ?, ?, ?)"
        case .insertEvent:
            return
                "INSERT INTO payment_event (payment_id, at, kind, from_state, to_state, note) VALUES (?, ?, ?, ?, ?, ?)"
        case .entryByID: return PaymentJournal.entryByID
        case .entryByToken:
            let columns = JournalEntry.Column.allCases.map { "payment." + $0.name }.joined(separator: ", ")
            return """
                SELECT \(columns), payment.callback_endpoints, handoff_token.expires_at, handoff_token.answered_at,
                    payment.answered_token
                FROM handoff_token JOIN payment ON payment.id = handoff_token.payment_id
                WHERE handoff_token.token_hash = ?
                """
        case .markTokenAnswered: return "UPDATE handoff_token SET answered_at = ? WHERE token_hash = ?"
        case .endpointsByID: return "SELECT callback_endpoints FROM payment WHERE id = ?"
        case .markOpened: return "UPDATE payment SET opened_at = ? WHERE id = ?"
        case .markOpenedIfUnchanged:
            // Every column of an entry changes with its revision but these two (see `transitionIfUnchanged`).
            return """
                UPDATE payment SET opened_at = ?
                WHERE id = ? AND revision = ? AND opened_at IS ? AND acknowledged_at IS ?
                """
        case .transition(let outcome, let extra):
            var sql = "UPDATE payment SET state = ?, revision = revision + 1, updated_at = ?, acknowledged_at = NULL"
            if outcome {
                sql += """
                    , outcome_status = ?, outcome_amount_minor_units = ?, outcome_currency = ?,
                    outcome_transaction_id = ?, outcome_error_code = ?, outcome_message = ?, outcome_assurance = ?,
                    outcome_source = ?
                    """
            }
            if let assignments = extra.assignments { sql += ", " + assignments }
            // `opened_at` is the one column of an entry that changes without a new revision (besides
            // `acknowledged_at`, which this update clears): guarding it too makes the entry the update leaves exactly
            // the one read plus what the update writes.
            return sql + " WHERE id = ? AND state = ? AND revision = ? AND opened_at IS ?"
        case .acknowledge:
            return """
                UPDATE payment SET acknowledged_at = ?
                WHERE id = ? AND revision = ? AND state <> 'pending' AND acknowledged_at IS NULL
                """
        case .verification(let kind):
            let assurance = kind == .confirmed ? ", outcome_assurance = 'verified_with_provider'" : ""
            let delivery = kind == .contradicted ? ", acknowledged_at = NULL" : ""
            return """
                UPDATE payment SET verification = ?, verified_at = ?, verification_note = ?,
                    revision = revision + 1, updated_at = ?\(assurance)\(delivery)
                WHERE id = ? AND revision = ? AND state = 'completed' AND outcome_source = 'callback'
                """
        case .prune:
            return """
                DELETE FROM payment
                WHERE state IN ('completed', 'tampered', 'late', 'resolved', 'not_opened')
                  AND acknowledged_at IS NOT NULL AND updated_at < ?
                """
        case .overdueIDs:
            return "SELECT id FROM payment WHERE state = 'pending' AND expires_at <= ? ORDER BY created_at, id"
        }
    }
}

/// The journal's statements on its writing connection, prepared on first use and kept for the journal's life.
final class WriterStatements: @unchecked Sendable {
    // @unchecked: used only inside the writing connection's closures, which GRDB runs one at a time.
    private var prepared: [WriterSQL: Statement] = [:]

    func statement(_ sql: WriterSQL, in db: Database) throws -> Statement {
        if let statement = prepared[sql] { return statement }
        let statement = try db.makeStatement(sql: sql.text)
        prepared[sql] = statement
        return statement
    }
}

/// The writing connection as the journal's transactions use it: statements bound and stepped through SQLite's C
/// API, failures reported as GRDB's `DatabaseError` (so ``PaymentJournal/storageError(_:writing:)`` reads them as
/// before).
struct JournalWriter {
    let db: Database
    let statements: WriterStatements

    /// Runs a statement whose rows are not wanted to its end. Returns how many rows it changed, if it is a change
    /// (`INSERT`, `UPDATE` or `DELETE`; for any other statement, the count of the last change before it).
    @discardableResult
    func execute(_ sql: WriterSQL, _ values: [JournalValue] = []) throws -> Int {
        try step(sql, values) { _ in }
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// The rows of a query, each read by `read`; the statement runs to its end.
    func rows<Row>(
        _ sql: WriterSQL,
        _ values: [JournalValue],
        _ read: (SQLiteStatement) throws -> Row
    ) throws -> [Row] {
        var rows: [Row] = []
        try step(sql, values) { rows.append(try read($0)) }
        return rows
    }

    /// The entry with this ID, if any.
    func entry(_ id: PaymentID) throws -> JournalEntry? {
        try rows(.entryByID, [.text(id.rawValue)]) { try JournalEntry(statement: $0) }.first
    }

    private func step(_ sql: WriterSQL, _ values: [JournalValue], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try statements.statement(sql, in: db).sqliteStatement
        // Reset after use too: a query left mid-way would keep its read transaction (and its WAL snapshot) open.
        defer { sqlite3_reset(statement) }
        guard sqlite3_bind_parameter_count(statement) == CInt(values.count) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(values.count)",
                sql: sql.text
            )
        }
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            let code: CInt =
                switch value {
                case .integer(let number): sqlite3_bind_int64(statement, index, number)
                case .text(let text): sqlite3_bind_text(statement, index, text, -1, JournalWriter.transient)
                case .blob(let bytes):
                    bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_blob(
                            statement,
                            index,
                            buffer.baseAddress,
                            CInt(buffer.count),
                            JournalWriter.transient
                        )
                    }
                case .null: sqlite3_bind_null(statement, index)
                }
            guard code == SQLITE_OK else { throw failure(code, sql) }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_DONE: return
            case SQLITE_ROW: try row(statement)
            case let code: throw failure(code, sql)
            }
        }
    }

    private func failure(_ code: CInt, _ sql: WriterSQL) -> DatabaseError {
        let connection = db.sqliteConnection
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        // The extended code when it refines the step's own: SQLITE_FULL stays SQLITE_FULL, SQLITE_IOERR gains its kind.
        let resultCode = extended & 0xFF == code & 0xFF ? extended : code
        return DatabaseError(resultCode: ResultCode(rawValue: resultCode), message: message, sql: sql.text)
    }

    /// SQLite copies the bytes bound: the Swift values need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
