import Foundation
import GRDB
package import Tender

/// One change of the journal's outbox, as the fleet sync sends it (`/work/shared` sync contract): a row of a payment's
/// history, numbered, with the payment after it.
package struct JournalChange: Sendable, Hashable {
    /// The journal's sequence number of the change: 1, 2, 3, … with no gap.
    package var sequence: Int64
    /// The payment the change is about.
    package var paymentID: String
    /// The history kind (``HandoffEvent/Kind``'s raw value), or `pruned`.
    package var kind: String
    /// When, in the journal's milliseconds since 1970.
    package var at: Int64
    /// The state before; `nil` for `begun`.
    package var fromState: String?
    /// The state after; `nil` for `pruned`.
    package var toState: String?
    /// The history row's note (redacted when it was written).
    package var note: String?
    /// The payment after the change in its JSON form (``JournalEntry/encodeJSON(history:)``); `nil` for `pruned`.
    package var payment: String?

    /// The change as the sync sends it: `{"sequence", "payment_id", "kind", "at", "from_state", "to_state", "note",
    /// "payment"}`, `payment` the object the journal wrote.
    /// - Throws: ``HandoffError/Code/journalCorrupt`` when the stored payment is not a JSON object.
    package func jsonValue() throws -> JSONValue {
        var payment = JSONValue.null
        if let text = self.payment {
            guard let value = try? JSONValue.parse(text, limits: JSONLimits(maximumBytes: 1 << 20, maximumDepth: 32)),
                value.objectValue != nil
            else { throw JournalEntry.damaged("outbox.payment") }
            payment = value
        }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let object: JSONObject = [
            "sequence": .integer(Int(sequence)),
            "payment_id": .string(paymentID),
            "kind": .string(kind),
            "at": .string(JournalEntry.timestamp(Date(journalTime: at))),
            "from_state": text(fromState),
            "to_state": text(toState),
            "note": text(note),
            "payment": payment,
        ]
        return .object(object)
    }
}

extension PaymentJournal {
    /// The highest sequence number the fleet server acknowledged (0 before the first sync): every change up to it is
    /// on the server, and gone from the outbox.
    public func acknowledgedThrough() throws -> Int64 {
        try read { db in try PaymentJournal.acknowledgedThrough(db) }
    }

    /// The changes of the outbox from sequence `first` on, oldest first, at most `limit`.
    package func changes(from first: Int64, limit: Int) throws -> [JournalChange] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: JournalSQL.changes), arguments: ["from": first, "limit": limit])
                .map { row in
                    JournalChange(
                        sequence: try JournalEntry.required(row, "sequence"),
                        paymentID: try JournalEntry.required(row, "payment_id"),
                        kind: try JournalEntry.required(row, "kind"),
                        at: try JournalEntry.required(row, "at"),
                        fromState: try JournalEntry.column(row, "from_state"),
                        toState: try JournalEntry.column(row, "to_state"),
                        note: try JournalEntry.column(row, "note"),
                        payment: try JournalEntry.column(row, "payment")
                    )
                }
        }
    }

    /// Records that the fleet server holds every change up to `sequence`: the journal's ``acknowledgedThrough()``
    /// becomes it (never lower), and those changes leave the outbox, in one transaction.
    /// - Returns: the journal's acknowledged sequence afterwards.
    @discardableResult
    package func recordAcknowledged(through sequence: Int64) throws -> Int64 {
        try write("sync") { db in
            try db.run(JournalSQL.acknowledgeThrough, ["through": sequence])
            let through = try PaymentJournal.acknowledgedThrough(db)
            try db.run(JournalSQL.deleteAcknowledged, ["through": through])
            return through
        }
    }

    /// The highest sequence number the journal has given a change (0 before the first): the outbox's
    /// `AUTOINCREMENT` counter, which acknowledged and pruned changes leave as it is.
    package func lastSequence() throws -> Int64 {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'") ?? 0
        }
    }

    static func acknowledgedThrough(_ db: Database) throws -> Int64 {
        guard let through = try Int64.fetchOne(db, sql: "SELECT acknowledged_through FROM journal") else {
            throw JournalEntry.damaged("journal.acknowledged_through")
        }
        return through
    }
}
