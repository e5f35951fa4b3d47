import Foundation
import GRDB
import Tender

extension PaymentJournal {
    /// The entry with an ID, if any.
    static func fetchEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry? {
        try PaymentRecord.fetchOne(db.cachedStatement(sql: JournalSQL.entryByID), arguments: ["id": id.rawValue])?.entry
    }

    /// A payment's history rows, oldest first.
    static func fetchHistory(_ db: Database, _ id: PaymentID) throws -> [PaymentEvent] {
        try Row.fetchAll(db.cachedStatement(sql: JournalSQL.history), arguments: ["id": id.rawValue]).map { row in
            func state(_ column: String) throws -> PaymentState? {
                guard let text: String = try JournalEntry.column(row, column) else { return nil }
                guard let state = PaymentState(rawValue: text) else { throw JournalEntry.damaged(column) }
                return state
            }
            return PaymentEvent(
                kind: HandoffEvent.Kind(rawValue: try JournalEntry.required(row, "kind")),
                at: Date(journalTime: try JournalEntry.required(row, "at")),
                fromState: try state("from_state"),
                toState: try state("to_state"),
                note: try JournalEntry.column(row, "note")
            )
        }
    }

    /// The entry with an ID.
    /// - Throws: ``HandoffError/Code/paymentNotFound``.
    static func requireEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry {
        guard let entry = try fetchEntry(db, id) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return entry
    }

    /// At most `limit` entries `filter` selects after `cursor` (creation time and ID), oldest first (by creation time,
    /// then ID). One state, or none, is one query through its index in that order; several states are one query each,
    /// merged, so that nothing is sorted by SQLite and nothing more than a page is read of each.
    static func entries(
        _ db: Database,
        _ filter: JournalFilter,
        after cursor: (createdAt: Date, id: PaymentID)?,
        limit: Int
    ) throws -> [JournalEntry] {
        let arguments: StatementArguments = [
            "since": filter.createdSince?.journalTime ?? Int64.min, "limit": limit,
            "afterCreated": cursor?.createdAt.journalTime ?? Int64.min, "afterID": cursor?.id.rawValue ?? "",
        ]
        if filter.contestedOnly {
            // Few, through their own index: the states are compared as they are read, page after page.
            var found: [JournalEntry] = []
            var cursor = arguments
            while found.count < limit {
                let page = try PaymentRecord.fetchAll(
                    db.cachedStatement(sql: JournalSQL.listContested),
                    arguments: cursor
                ).map(\.entry)
                found += page.filter { filter.states?.contains($0.state) ?? true }
                guard page.count == limit, let last = page.last else { break }
                cursor = arguments &+ ["afterCreated": last.createdAt.journalTime, "afterID": last.id.rawValue]
            }
            return Array(found.prefix(limit))
        }
        guard let states = filter.states else {
            return try PaymentRecord.fetchAll(db.cachedStatement(sql: JournalSQL.list), arguments: arguments).map(
                \.entry
            )
        }
        var merged: [JournalEntry] = []
        for state in states {
            merged += try PaymentRecord.fetchAll(
                db.cachedStatement(sql: JournalSQL.listState),
                arguments: arguments &+ ["state": state.rawValue]
            ).map(\.entry)
        }
        merged.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return Array(merged.prefix(limit))
    }

    /// The one way a payment's state changes: one `UPDATE … RETURNING` guarded by the state and revision just read, so
    /// a concurrent change makes it fail instead of overwriting; the history row goes in the same transaction.
    /// Returns the entry as the database now holds it.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/storageFailed`` when the payment changed since `entry`.
    @discardableResult
    static func transition(
        _ db: Database,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: HandoffEvent.Kind,
        note: String? = nil,
        change: TransitionChange = .none
    ) throws -> JournalEntry {
        let updated = try transitionIfUnchanged(
            db,
            entry,
            to: state,
            outcome: outcome,
            at: now,
            kind: kind,
            note: note,
            change: change
        )
        guard let updated else {
            throw HandoffError(
                .storageFailed,
                "Payment \(entry.id) changed while it was being updated; nothing was changed. Try again."
            )
        }
        return updated
    }

    /// ``transition(_:_:to:outcome:at:kind:note:change:)``, or `nil` (nothing changed, nothing recorded) when the
    /// payment changed since `entry` was read.
    static func transitionIfUnchanged(
        _ db: Database,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: HandoffEvent.Kind,
        note: String? = nil,
        change: TransitionChange = .none
    ) throws -> JournalEntry? {
        var arguments: StatementArguments = [
            "state": state.rawValue, "now": now.journalTime, "id": entry.id.rawValue,
            "fromState": entry.state.rawValue, "revision": entry.revision,
        ]
        if let outcome {
            arguments += [
                "status": outcome.status.rawValue, "outcomeAmount": outcome.amount?.minorUnits,
                "outcomeCurrency": outcome.amount?.currency.code, "transactionID": outcome.transactionID,
                "clientTransactionID": outcome.clientTransactionID, "errorCode": outcome.errorCode,
                "message": outcome.message, "assurance": outcome.assurance.rawValue, "source": outcome.source.rawValue,
            ]
        }
        arguments += try change.arguments(note: note, replacing: entry)
        let sql = JournalSQL.transition(outcome: outcome != nil, change: change)
        let blob = change.isAnswer ? "answeredToken" : nil
        guard let updated = try returning(db, sql, arguments, blob: blob) else { return nil }
        try recordEvent(db, updated, at: now, kind: kind, from: entry.state, to: state, note: note)
        return updated
    }

    /// Runs a change that ends in `RETURNING` ``JournalEntry/columns``: the entry as the database holds it after the
    /// change, or `nil` when it changed no row.
    static func returning(
        _ db: Database,
        _ sql: String,
        _ arguments: StatementArguments,
        blob: String? = nil
    ) throws -> JournalEntry? {
        let statement = try db.cachedStatement(sql: sql)
        // Stepped to its end (`fetchAll`), so that the statement is done before its transaction commits.
        let rows = try PaymentRecord.fetchAll(statement, arguments: arguments)
        // Not kept by the cached statement for the connection's life (see `Database.run`).
        if let blob { try statement.setArguments(arguments &+ [blob: DatabaseValue.null]) }
        return rows.first?.entry
    }

    /// Records a change of a payment: a row of its history and, numbered next, the same change in the outbox with the
    /// payment as it is after it (`entry`, as the database returned it), both in the transaction of the change.
    static func recordEvent(
        _ db: Database,
        _ entry: JournalEntry,
        at now: Date,
        kind: HandoffEvent.Kind,
        from: PaymentState?,
        to: PaymentState,
        note: String? = nil
    ) throws {
        let arguments: StatementArguments = [
            "id": entry.id.rawValue, "at": now.journalTime, "kind": kind.rawValue, "from": from?.rawValue,
            "to": to.rawValue, "note": note,
        ]
        try db.run(JournalSQL.insertEvent, arguments)
        try db.run(JournalSQL.insertChange, arguments &+ ["payment": entry.encodeJSON()])
    }

    /// Deletes the outbox's changes made before `cutoff` (a prefix: no gap), sent or not, so that a journal that
    /// never syncs stays bounded. Each payment still in the journal that an unsent one of them was about gets a
    /// `snapshot` change (`HandoffEvent.Kind.snapshot`), numbered next in the same transaction, with the payment as
    /// it is: whenever the journal syncs, the ledger learns of every payment it holds, and the sync tells the server
    /// which changes it will never get (`pruned_through`, <doc:SyncingToAFleetServer>).
    static func pruneOutbox(_ db: Database, before cutoff: Date, at now: Date) throws {
        let boundary =
            try Int64.fetchOne(
                db.cachedStatement(sql: JournalSQL.outboxBoundary),
                arguments: ["cutoff": cutoff.journalTime]
            )
            ?? 0
        var seen = Set<String>()
        let unsent = try String.fetchAll(
            db.cachedStatement(sql: JournalSQL.unsentBeforeBoundary),
            arguments: ["acknowledged": try acknowledgedThrough(db), "boundary": boundary]
        )
        try db.run(JournalSQL.pruneOutbox, ["boundary": boundary])
        for id in unsent where seen.insert(id).inserted {
            guard let paymentID = PaymentID(rawValue: id), let entry = try fetchEntry(db, paymentID) else {
                throw JournalEntry.damaged("outbox.payment_id")
            }
            try db.run(
                JournalSQL.insertChange,
                [
                    "id": id, "at": now.journalTime, "kind": HandoffEvent.Kind.snapshot.rawValue,
                    "from": entry.state.rawValue, "to": entry.state.rawValue,
                    "note": "Its earlier changes were pruned before a sync sent them.", "payment": entry.encodeJSON(),
                ]
            )
        }
    }

    /// Records in the outbox that a payment was deleted by ``PaymentJournal/prune(retention:limit:)``: its history is
    /// gone with it, and the change carries no payment.
    static func recordPruned(_ db: Database, _ id: String, state: String?, at now: Date) throws {
        try db.run(
            JournalSQL.insertChange,
            [
                "id": id, "at": now.journalTime, "kind": HandoffEvent.Kind.pruned.rawValue, "from": state,
                "to": DatabaseValue.null, "note": DatabaseValue.null, "payment": DatabaseValue.null,
            ]
        )
    }
}
