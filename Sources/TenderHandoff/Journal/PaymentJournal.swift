import Foundation
import GRDB
public import Tender

/// The payment journal: one SQLite file that remembers every hand-off, written ahead of opening the POS
/// app and updated exactly once by its callback.
///
/// The file is opened in WAL mode with `synchronous=FULL` (a committed transaction survives a process
/// crash and, on storage that honours fsync, a power loss), checked with `PRAGMA integrity_check`, and
/// migrated through versioned migrations (REL-7). A damaged file is reported with
/// ``HandoffError/Code/journalCorrupt`` and is never silently replaced.
///
/// A journal is safe to use from many tasks at once, and several processes may open the same file:
/// every change is one `BEGIN IMMEDIATE` transaction whose updates are guarded by the state they expect,
/// so concurrent callbacks with the same token record one outcome and see the others as duplicates.
///
/// The journal never stores a token (only its SHA-256), a URL (only callback endpoints: scheme, host and
/// path), a secret or a card number. See <doc:JournalAndRecovery> for the schema.
public final class PaymentJournal: Sendable {
    /// The journal file's path.
    public let path: String
    /// The clock that stamps the journal's times.
    public let clock: any HandoffClock

    let pool: DatabasePool
    let faults: StorageFaults?

    /// Opens (creating if needed) the journal at `path`, with its parent directory.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/journalCorrupt`` when the file is damaged or is
    ///   not a journal, ``HandoffError/Code/journalTooNew`` when a newer Tender wrote it, or
    ///   ``HandoffError/Code/storageFailed`` when it cannot be opened.
    public convenience init(path: String, clock: any HandoffClock = SystemHandoffClock()) throws {
        try self.init(path: path, clock: clock, faults: nil)
    }

    /// Opens the journal with fault injection (tests).
    package init(path: String, clock: any HandoffClock, faults: StorageFaults?) throws {
        self.path = path
        self.clock = clock
        self.faults = faults
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw HandoffError(
                    .storageFailed,
                    "The journal's directory cannot be created (\(error.localizedDescription)); check the path and its permissions."
                )
            }
        }
        var configuration = Configuration()
        configuration.label = "TenderJournal"
        // Other processes may hold the write lock for a moment: wait rather than fail.
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets synchronous=NORMAL when it switches the writer to WAL; the journal wants FULL (REL-1).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let report = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            guard report == ["ok"] else {
                throw HandoffError(
                    .journalCorrupt,
                    "The journal failed its integrity check (\(report.count) problem(s)); new payments are refused. Keep the file for recovery, move it aside, and reconcile open payments with the provider."
                )
            }
            let migrator = PaymentJournal.migrator
            if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) {
                throw HandoffError(
                    .journalTooNew,
                    "The journal was written by a newer version of Tender; update the app or use another journal file."
                )
            }
            try migrator.migrate(pool)
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.openingError(error)
        }
    }

    // MARK: Reading

    /// The payment with this ID, or `nil`.
    public func entry(_ id: PaymentID) throws -> JournalEntry? {
        try read { db in try PaymentJournal.fetchEntry(db, id) }
    }

    /// All payments, oldest first, or those in the given states.
    public func entries(in states: Set<PaymentState>? = nil) throws -> [JournalEntry] {
        try read { db in
            guard let states else {
                let sql = "SELECT \(JournalEntry.Column.selection) FROM payment ORDER BY created_at, id"
                return try PaymentJournal.fetchEntries(db.makeStatement(sql: sql))
            }
            let names = states.map(\.rawValue).sorted()
            let marks = names.map { _ in "?" }.joined(separator: ", ")
            return try PaymentJournal.fetchEntries(
                db.makeStatement(
                    sql:
                        "SELECT \(JournalEntry.Column.selection) FROM payment WHERE state IN (\(marks)) ORDER BY created_at, id"
                ),
                StatementArguments(names)
            )
        }
    }

    /// Payments the app has not acknowledged since they left ``PaymentState/pending``: what to deliver at launch.
    public func undeliveredEntries() throws -> [JournalEntry] {
        try read { db in
            try PaymentJournal.fetchEntries(
                db.makeStatement(
                    sql:
                        "SELECT \(JournalEntry.Column.selection) FROM payment WHERE state <> 'pending' AND acknowledged_at IS NULL ORDER BY updated_at, id"
                )
            )
        }
    }

    /// The result of `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    // MARK: Changes the app makes

    /// Marks the entry as delivered to the app, if it has not changed since it was read.
    ///
    /// Pass the entry you handled: if a callback changed it in the meantime (an `unknown` payment whose
    /// genuine callback just arrived), nothing is acknowledged and the new state is delivered again.
    /// - Returns: whether the entry was acknowledged.
    @discardableResult
    public func acknowledge(_ entry: JournalEntry) throws -> Bool {
        let now = clock.now()
        return try write("acknowledge") { db in
            try db.execute(
                sql: """
                    UPDATE payment SET acknowledged_at = ?
                    WHERE id = ? AND revision = ? AND state <> 'pending' AND acknowledged_at IS NULL
                    """,
                arguments: [now.journalTime, entry.id.rawValue, entry.revision]
            )
            return db.changesCount == 1
        }
    }

    /// Records what the provider's server said of a completed payment's outcome (SEC-7), if the entry has not
    /// changed since it was read. A confirmation marks the outcome `PaymentOutcome.Assurance.verifiedWithProvider`;
    /// a contradiction leaves the state as it is (terminal states change only by ``resolve(_:as:transactionID:note:)``)
    /// but flags the payment for reconciliation and delivers it to the app again.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/notVerifiable`` when the entry changed meanwhile or is not
    ///   a completed payment with a callback's outcome.
    func recordVerification(of entry: JournalEntry, _ verdict: PaymentVerdict) throws -> JournalEntry {
        let now = clock.now()
        let note = Redaction.redact(verdict.reason, limit: 1024)
        return try write("verify") { db in
            let assurance = verdict.kind == .confirmed ? ", outcome_assurance = 'verified_with_provider'" : ""
            let delivery = verdict.kind == .contradicted ? ", acknowledged_at = NULL" : ""
            try db.execute(
                sql: """
                    UPDATE payment SET verification = ?, verified_at = ?, verification_note = ?,
                        revision = revision + 1, updated_at = ?\(assurance)\(delivery)
                    WHERE id = ? AND revision = ? AND state = 'completed' AND outcome_source = 'callback'
                    """,
                arguments: [
                    verdict.kind.rawValue, now.journalTime, note, now.journalTime, entry.id.rawValue, entry.revision,
                ]
            )
            guard db.changesCount == 1 else {
                throw HandoffError(
                    .notVerifiable,
                    "Payment \(entry.id) changed while it was being verified; nothing was recorded. Verify it again."
                )
            }
            try PaymentJournal.recordEvent(
                db,
                entry.id,
                at: now,
                kind: verdict.kind == .confirmed ? "verified" : "contradicted",
                from: entry.state,
                to: entry.state,
                note: note
            )
            return try PaymentJournal.requireEntry(db, entry.id)
        }
    }

    /// Decides a payment's outcome by hand, recording who-knows-what in `note`: the only way a terminal
    /// payment changes (REL-2). The payment becomes ``PaymentState/resolved``.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound``.
    public func resolve(
        _ id: PaymentID,
        as status: PaymentOutcome.Status,
        transactionID: String? = nil,
        note: String? = nil
    ) throws -> JournalEntry {
        let now = clock.now()
        let outcome = RecordedOutcome(status: status, transactionID: transactionID, source: .manual)
        let note = Redaction.redact(note, limit: 1024)
        return try write("resolve") { db in
            guard let entry = try PaymentJournal.fetchEntry(db, id) else {
                throw HandoffError(
                    .paymentNotFound,
                    "No payment has the ID \(id); run 'tender journal list' to see them."
                )
            }
            return try PaymentJournal.transition(
                db,
                entry,
                to: .resolved,
                outcome: outcome,
                at: now,
                kind: "resolved",
                note: note,
                extra: "resolved_at = ?, resolved_from_state = ?, resolution_note = ?",
                extraArguments: [now.journalTime, entry.state.rawValue, note]
            )
        }
    }

    /// Deletes payments that ended and were acknowledged more than `retention` ago (REL-9), with their token
    /// hashes and history. Pending, unknown and unacknowledged payments are never pruned.
    /// - Returns: how many payments were deleted.
    @discardableResult
    public func prune(retention: Duration = .seconds(90 * 86_400)) throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-retention.timeInterval)
        return try write("prune") { db in
            try db.execute(
                sql: """
                    DELETE FROM payment
                    WHERE state IN ('completed', 'tampered', 'late', 'resolved', 'not_opened')
                      AND acknowledged_at IS NOT NULL AND updated_at < ?
                    """,
                arguments: [cutoff.journalTime]
            )
            return db.changesCount
        }
    }

    /// Moves every pending payment whose expiry has passed to ``PaymentState/unknown`` (needs
    /// reconciliation). A genuine callback that comes later is still matched, as ``PaymentState/late``.
    /// - Returns: the payments moved.
    @discardableResult
    public func expireOverduePayments() throws -> [JournalEntry] {
        let now = clock.now()
        return try write("expire") { db in
            let ids = try String.fetchAll(
                db,
                sql: "SELECT id FROM payment WHERE state = 'pending' AND expires_at <= ? ORDER BY created_at, id",
                arguments: [now.journalTime]
            )
            var expired: [JournalEntry] = []
            for raw in ids {
                let entry = try PaymentJournal.requireEntry(db, PaymentID(validating: raw))
                expired.append(
                    try PaymentJournal.transition(db, entry, to: .unknown, outcome: nil, at: now, kind: "expired")
                )
            }
            return expired
        }
    }

    // MARK: Plumbing

    /// Runs one write transaction (BEGIN IMMEDIATE), with the fault injector's say just before commit; rolls it
    /// back whole when anything in it fails.
    ///
    /// The transaction's own statements are prepared once per connection and kept (GRDB's `write` prepares its
    /// `BEGIN` and `COMMIT` anew for every transaction).
    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                do {
                    let result = try body(db)
                    try faults?.willCommit(operation)
                    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                    return result
                } catch {
                    // The first error is the one to report; a failed rollback leaves nothing more to do here.
                    if db.isInsideTransaction { try? db.rollback() }
                    throw error
                }
            }
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.storageError(error, writing: true)
        }
    }

    /// Runs `body` on the writing connection outside any transaction: each of its statements is its own read
    /// (SQLite's write lock is not taken), serialised with this process's writes. For one-statement reads on
    /// the hot path: a reading connection's page cache is emptied by every write, the writer's is not.
    func readOnWriter<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.writeWithoutTransaction(body)
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.storageError(error, writing: false)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.storageError(error, writing: false)
        }
    }

    static func storageError(_ error: any Error, writing: Bool) -> HandoffError {
        let verb = writing ? "written" : "read"
        if let error = error as? DatabaseError {
            if error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
                return HandoffError(
                    .journalCorrupt,
                    "The journal is damaged (SQLite error \(error.resultCode.rawValue)); new payments are refused. Keep the file for recovery and move it aside."
                )
            }
            let message = error.message.map { ": \($0)" } ?? ""
            return HandoffError(
                .storageFailed,
                "The journal could not be \(verb) (SQLite error \(error.extendedResultCode.rawValue)\(message)); nothing was changed. Check free space and permissions, then try again."
            )
        }
        return HandoffError(
            .storageFailed,
            "The journal could not be \(verb) (\(error)); nothing was changed. Check free space and permissions, then try again."
        )
    }

    static func openingError(_ error: any Error) -> HandoffError {
        if let error = error as? DatabaseError,
            error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
        {
            return HandoffError(
                .journalCorrupt,
                "The journal file is damaged or is not a Tender journal (SQLite error \(error.resultCode.rawValue)); new payments are refused. Keep the file for recovery, move it aside, and reconcile open payments with the provider."
            )
        }
        let storage = storageError(error, writing: false)
        return HandoffError(storage.code, "The journal cannot be opened. " + storage.message)
    }

    static func fetchEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry? {
        try fetchEntry(db.cachedStatement(sql: entryByID), [id.rawValue])
    }

    private static let entryByID = "SELECT \(JournalEntry.Column.selection) FROM payment WHERE id = ?"

    static func requireEntry(_ db: Database, _ id: PaymentID) throws -> JournalEntry {
        guard let entry = try fetchEntry(db, id) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return entry
    }

    /// The one way a payment's state changes: an update guarded by the state and revision just read, so a
    /// concurrent change makes it fail instead of overwriting; the history row goes in the same transaction.
    /// Returns the entry as the update left it (`RETURNING`: no second read).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/storageFailed`` when the payment changed since `entry`.
    @discardableResult
    static func transition(
        _ db: Database,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: String,
        note: String? = nil,
        extra: String? = nil,
        extraArguments: StatementArguments = []
    ) throws -> JournalEntry {
        let updated = try transitionIfUnchanged(
            db,
            entry,
            to: state,
            outcome: outcome,
            at: now,
            kind: kind,
            note: note,
            extra: extra,
            extraArguments: extraArguments
        )
        guard let updated else {
            throw HandoffError(
                .storageFailed,
                "Payment \(entry.id) changed while it was being updated; nothing was changed. Try again."
            )
        }
        return updated
    }

    /// ``transition(_:_:to:outcome:at:kind:note:extra:extraArguments:)``, or `nil` (nothing changed, nothing
    /// recorded) when the payment changed since `entry` was read.
    static func transitionIfUnchanged(
        _ db: Database,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: String,
        note: String? = nil,
        extra: String? = nil,
        extraArguments: StatementArguments = []
    ) throws -> JournalEntry? {
        var sql = "UPDATE payment SET state = ?, revision = revision + 1, updated_at = ?, acknowledged_at = NULL"
        var arguments: StatementArguments = [state.rawValue, now.journalTime]
        if let outcome {
            sql += """
                , outcome_status = ?, outcome_amount_minor_units = ?, outcome_currency = ?, outcome_transaction_id = ?,
                outcome_error_code = ?, outcome_message = ?, outcome_assurance = ?, outcome_source = ?
                """
            arguments += [
                outcome.status.rawValue, outcome.amount?.minorUnits, outcome.amount?.currency.code,
                outcome.transactionID, outcome.errorCode, outcome.message, outcome.assurance.rawValue,
                outcome.source.rawValue,
            ]
        }
        if let extra {
            sql += ", " + extra
            arguments += extraArguments
        }
        sql += " WHERE id = ? AND state = ? AND revision = ? RETURNING \(JournalEntry.Column.selection)"
        arguments += [entry.id.rawValue, entry.state.rawValue, entry.revision]
        // Cached: the few shapes of this update are compiled once per connection, not once per payment.
        guard let updated = try fetchEntry(db.cachedStatement(sql: sql), arguments) else { return nil }
        try recordEvent(db, entry.id, at: now, kind: kind, from: entry.state, to: state, note: note)
        return updated
    }

    static func recordEvent(
        _ db: Database,
        _ id: PaymentID,
        at now: Date,
        kind: String,
        from: PaymentState?,
        to: PaymentState,
        note: String? = nil
    ) throws {
        try db.cachedStatement(
            sql:
                "INSERT INTO payment_event (payment_id, at, kind, from_state, to_state, note) VALUES (?, ?, ?, ?, ?, ?)"
        )
        .execute(
            arguments: [id.rawValue, now.journalTime, kind, from?.rawValue, to.rawValue, note]
        )
    }
}

extension Date {
    /// Milliseconds since 1970, as the journal stores times.
    var journalTime: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    init(journalTime: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(journalTime) / 1000)
    }
}
