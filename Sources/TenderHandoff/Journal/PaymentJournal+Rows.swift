import Foundation
import GRDB
import Tender

extension PaymentJournal {
    /// The entry with an ID, if any.
    static func fetchEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry? {
        try PaymentRecord.fetchOne(db.cachedStatement(sql: JournalSQL.entryByID), arguments: ["id": id.rawValue])?.entry
    }

    /// The entry with an ID.
    /// - Throws: ``HandoffError/Code/paymentNotFound``.
    static func requireEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry {
        guard let entry = try fetchEntry(db, id) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return entry
    }

    /// Calls `body` with each entry `filter` selects, oldest first (by creation time, then ID). One state, or none, is
    /// one query through its index in that order; several states are one query each, merged as they are read, so that
    /// nothing is sorted and memory stays constant.
    static func forEachEntry(_ db: Database, _ filter: JournalFilter, _ body: (JournalEntry) throws -> Void) throws {
        let since = filter.createdSince?.journalTime ?? Int64.min
        let limit = filter.limit.map { max(0, $0) } ?? -1
        guard let states = filter.states else {
            let cursor = try PaymentRecord.fetchCursor(
                db.cachedStatement(sql: JournalSQL.list),
                arguments: ["since": since, "limit": limit]
            )
            while let record = try cursor.next() { try body(record.entry) }
            return
        }
        // One cursor per state, each in (created_at, id) order: the next entry is the least of their heads. Each has
        // a statement of its own (not the cached one), since they are stepped side by side.
        let cursors = try states.sorted { $0.rawValue < $1.rawValue }.map { state in
            try PaymentRecord.fetchCursor(
                db.makeStatement(sql: JournalSQL.listState),
                arguments: ["state": state.rawValue, "since": since, "limit": limit]
            )
        }
        var heads = try cursors.indices.map { try cursors[$0].next()?.entry }
        var remaining = limit < 0 ? Int.max : limit
        while remaining > 0 {
            var least: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if let current = least, let leastHead = heads[current],
                    (leastHead.createdAt, leastHead.id) <= (head.createdAt, head.id)
                {
                    continue
                }
                least = index
            }
            guard let index = least, let entry = heads[index] else { return }
            try body(entry)
            remaining -= 1
            heads[index] = try cursors[index].next()?.entry
        }
    }

    /// The one way a payment's state changes: an update guarded by the state, revision and opening time just read,
    /// so a concurrent change makes it fail instead of overwriting; the history row goes in the same transaction.
    /// Returns the entry as the update left it.
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
    ///
    /// The entry returned is built here, not read back: every column of an entry either changes only with a new
    /// revision, or is `opened_at` (guarded too), or is `acknowledged_at` (which the update clears). So when the
    /// guarded update applies, the row holds `entry` with exactly what the update wrote.
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
        let time = now.inJournal
        var arguments: StatementArguments = [
            "state": state.rawValue, "now": time.journalTime, "id": entry.id.rawValue,
            "fromState": entry.state.rawValue,
            "revision": entry.revision, "openedAt": entry.openedAt?.journalTime,
        ]
        if let outcome {
            arguments += [
                "status": outcome.status.rawValue, "outcomeAmount": outcome.amount?.minorUnits,
                "outcomeCurrency": outcome.amount?.currency.code, "transactionID": outcome.transactionID,
                "clientTransactionID": outcome.clientTransactionID, "errorCode": outcome.errorCode,
                "message": outcome.message,
                "assurance": outcome.assurance.rawValue, "source": outcome.source.rawValue,
            ]
        }
        var updated = entry
        updated.state = state
        updated.revision += 1
        updated.updatedAt = time
        updated.acknowledgedAt = nil
        if let outcome { updated.outcome = outcome }
        switch change {
        case .none:
            break
        case .reopening(let expiresAt, let endpoints, let tenderTypes):
            let expiry = expiresAt.inJournal
            arguments += ["expiresAt": expiry.journalTime, "endpoints": endpoints, "squareTenderTypes": tenderTypes]
            updated.handoffCount += 1
            updated.expiresAt = expiry
            updated.squareTenderTypes = JournalEntry.squareTenderTypes(journalText: tenderTypes)
            updated.verification = nil
        case .answer(let digest):
            arguments += ["answeredToken": Data(digest)]
            updated.verification = nil
        case .resolution:
            // Resolved again (a correction): the state and the report from before the first resolution are kept.
            let previous = entry.resolution?.previousState ?? entry.state
            let reported =
                entry.resolution?.reportedOutcome ?? entry.outcome.flatMap { $0.source == .callback ? $0 : nil }
            arguments += ["previousState": previous.rawValue, "note": note, "reported": try reported?.journalJSON()]
            updated.resolution = JournalEntry.Resolution(
                resolvedAt: time,
                previousState: previous,
                note: note,
                reportedOutcome: reported
            )
        case .verification(let verdict):
            arguments += verdict.arguments
            updated.verification = verdict.entryVerification(at: time)
        }
        let sql = JournalSQL.transition(outcome: outcome != nil, extra: change.extra)
        guard try db.run(sql, arguments, blob: change.extra == .answer ? "answeredToken" : nil) == 1 else { return nil }
        try recordEvent(db, entry.id, at: now, kind: kind, from: entry.state, to: state, note: note)
        return checked(updated, db)
    }

    /// `entry`, after checking in debug builds (the tests') that it is the row the connection now reads.
    static func checked(_ entry: JournalEntry, _ db: Database) -> JournalEntry {
        assert((try? fetchEntry(db, entry.id)) == entry, "the entry built for \(entry.id) is not the row written")
        return entry
    }

    /// Adds a row to a payment's history.
    static func recordEvent(
        _ db: Database,
        _ id: PaymentID,
        at now: Date,
        kind: HandoffEvent.Kind,
        from: PaymentState?,
        to: PaymentState,
        note: String? = nil
    ) throws {
        try db.run(
            JournalSQL.insertEvent,
            [
                "id": id.rawValue, "at": now.journalTime, "kind": kind.rawValue, "from": from?.rawValue,
                "to": to.rawValue,
                "note": note,
            ]
        )
    }
}
