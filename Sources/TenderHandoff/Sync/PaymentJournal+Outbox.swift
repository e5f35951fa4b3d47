import Foundation
import GRDB
import Tender
public import TenderSync

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
        let kind = PaymentEventKind(rawValue: kind)
        if kind == .setAside {
            // A change the server refused for good: sent in its place as a marker, without its payment.
            return SyncChange(
                sequence: sequence,
                paymentID: id,
                kind: kind,
                at: at,
                fromState: nil,
                toState: nil,
                note: note,
                payment: nil
            )
        }
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
            kind: kind,
            at: at,
            fromState: try state(fromState, "outbox.from_state"),
            toState: try state(toState, "outbox.to_state"),
            note: note,
            payment: snapshot
        )
    }
}

/// A change of the outbox that the fleet server refused for good and the journal set aside
/// (``PaymentJournal/sync(to:deviceKey:timeout:)``): it stays in the journal (the payment, and a `set_aside` row of its
/// history), and the journal's other changes still sync.
public struct SetAsideChange: Sendable, Hashable {
    /// The change's sequence number in the outbox.
    public var sequence: Int64
    /// The payment the change was about.
    public var paymentID: String
    /// The change's history kind, such as `recorded`.
    public var kind: PaymentEventKind
    /// Why the server refused it: its code and message, as it answered.
    public var reason: String

    /// Creates a description of a change set aside.
    public init(sequence: Int64, paymentID: String, kind: PaymentEventKind, reason: String) {
        self.sequence = sequence
        self.paymentID = paymentID
        self.kind = kind
        self.reason = reason
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

    /// Sets aside the outbox's change `sequence`, which the fleet server refused for good (`refused_sequence`): in
    /// the outbox it becomes a `set_aside` marker, sent in its place without its payment, its note `reason`; the
    /// payment (if the journal still holds it) gains a history row of kind `set_aside` naming the change and the
    /// reason, which is not sent. One transaction.
    /// - Returns: the change as it was, or `nil` when the outbox holds no such change to set aside (gone, already a
    ///   marker, or a `pruned` change, which carries nothing to refuse).
    package func setAside(sequence: Int64, reason: String) throws -> SetAsideChange? {
        try write("sync") { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: JournalSQL.setAsideCandidate),
                    arguments: ["sequence": sequence]
                )
            else { return nil }
            try db.run(JournalSQL.setAside, ["sequence": sequence, "note": reason])
            let change = SetAsideChange(
                sequence: sequence,
                paymentID: try JournalEntry.required(row, "payment_id"),
                kind: PaymentEventKind(rawValue: try JournalEntry.required(row, "kind")),
                reason: reason
            )
            try db.run(
                JournalSQL.insertSetAsideEvent,
                [
                    "id": change.paymentID, "at": Date().journalTime, "kind": PaymentEventKind.setAside.rawValue,
                    "note":
                        "The fleet server refused change \(sequence) (\(change.kind.rawValue)) for good: \(reason) It was set aside; the payment's other changes still sync.",
                ]
            )
            return change
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
