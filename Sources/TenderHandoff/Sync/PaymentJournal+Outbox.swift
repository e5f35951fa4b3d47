import Foundation
import GRDB
import Tender
import TenderSync

/// One row of the journal's outbox: a change of a payment's history, numbered, with the payment after it, as the
/// journal stores it; ``syncChange()`` is the change as the sync contract sends it.
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

    /// The change as the sync contract has it (`SyncChange`), the stored payment read with the contract's own rules
    /// (`PaymentSnapshot`): a device never sends what a server of its version refuses.
    /// - Throws: ``HandoffError/Code/journalCorrupt`` when the stored row is not a change the contract holds (a file
    ///   changed outside Tender).
    package func syncChange() throws -> SyncChange {
        guard let id = PaymentID(rawValue: paymentID) else { throw JournalEntry.damaged("outbox.payment_id") }
        var snapshot: PaymentSnapshot?
        if let payment {
            guard let read = try? JSONDecoder().decode(PaymentSnapshot.self, from: Data(payment.utf8)) else {
                throw JournalEntry.damaged("outbox.payment")
            }
            snapshot = read
        }
        func state(_ text: String?, _ column: String) throws -> PaymentState? {
            guard let text else { return nil }
            guard let state = PaymentState(rawValue: text) else { throw JournalEntry.damaged(column) }
            return state
        }
        return SyncChange(
            sequence: sequence,
            paymentID: id,
            kind: PaymentEventKind(rawValue: kind),
            at: at,
            fromState: try state(fromState, "outbox.from_state"),
            toState: try state(toState, "outbox.to_state"),
            note: note,
            payment: snapshot
        )
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

    /// How many changes the outbox holds from sequence `first` on: what a batch starting there leaves unsent, itself
    /// included.
    package func unsentCount(from first: Int64) throws -> Int64 {
        try read { db in
            try Int64.fetchOne(db.cachedStatement(sql: JournalSQL.unsentCount), arguments: ["from": first]) ?? 0
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
