import Foundation
import GRDB
public import Tender
import TenderProviderAPI

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
    /// The statements of ``transaction(_:_:)``, prepared once on the writing connection.
    let writerStatements = WriterStatements()

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
        return try write("acknowledge") { writer in
            try writer.execute(
                .acknowledge,
                [.integer(now.journalTime), .text(entry.id.rawValue), .integer(entry.revision)]
            ) == 1
        }
    }

    /// Records what the provider's server said of a completed payment's outcome (SEC-7), if the entry has not
    /// changed since it was read. A confirmation marks the outcome `PaymentOutcome.Assurance.verifiedWithProvider`;
    /// a contradiction leaves the state as it is (terminal states change only by ``resolve(_:as:transactionID:note:)``)
    /// but flags the payment for reconciliation and delivers it to the app again.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/notVerifiable`` when the entry changed meanwhile or is not
    ///   a completed payment with a callback's outcome.
    func recordVerification(of entry: JournalEntry, _ verification: PaymentVerification) throws -> JournalEntry {
        let verdict = verification.verdict
        precondition(verdict != .unverifiable, "an unverifiable answer is not recorded")
        let now = clock.now()
        let note = Redaction.redact(verification.message, limit: 1024)
        return try write("verify") { writer in
            let changed = try writer.execute(
                .verification(verdict),
                [
                    .text(verdict.rawValue), .integer(now.journalTime), .text(note), .integer(now.journalTime),
                    .text(entry.id.rawValue), .integer(entry.revision),
                ]
            )
            guard changed == 1 else {
                throw HandoffError(
                    .notVerifiable,
                    "Payment \(entry.id) changed while it was being verified; nothing was recorded. Verify it again."
                )
            }
            try PaymentJournal.recordEvent(
                writer,
                entry.id,
                at: now,
                kind: verdict == .confirmed ? "verified" : "contradicted",
                from: entry.state,
                to: entry.state,
                note: note
            )
            return try PaymentJournal.requireEntry(writer, entry.id)
        }
    }

    /// Decides a payment's outcome by hand, recording who-knows-what in `note`: the only way a terminal
    /// payment changes (REL-2). The payment becomes ``PaymentState/resolved``; its ``JournalEntry/outcome`` is the
    /// one decided here, and its ``JournalEntry/Resolution`` keeps the state it was in and what the POS app
    /// reported. Resolving a resolved payment again corrects the decision and keeps both from before the first.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound``, or
    ///   ``HandoffError/Code/invalidResolution`` for a `transactionID` that holds a card number.
    public func resolve(
        _ id: PaymentID,
        as status: PaymentOutcome.Status,
        transactionID: String? = nil,
        note: String? = nil
    ) throws -> JournalEntry {
        if let transactionID, CardNumberScreen.containsCardNumber(transactionID) {
            // Masked, it would be a reference nobody can use; refused, as the parsers refuse such identifiers (SEC-9).
            throw HandoffError(
                .invalidResolution,
                "The transaction ID holds what could be a card number (13–19 digits that pass the Luhn check); give the provider's transaction ID, and put anything else in the note."
            )
        }
        let now = clock.now()
        let outcome = RecordedOutcome(status: status, transactionID: transactionID, source: .manual)
        let note = Redaction.redact(note, limit: 1024)
        return try write("resolve") { writer in
            guard let entry = try writer.entry(id) else {
                throw HandoffError(
                    .paymentNotFound,
                    "No payment has the ID \(id); run 'tender journal list' to see them."
                )
            }
            return try PaymentJournal.transition(
                writer,
                entry,
                to: .resolved,
                outcome: outcome,
                at: now,
                kind: "resolved",
                note: note,
                change: .resolution
            )
        }
    }

    /// Deletes payments that ended and were acknowledged more than `retention` ago (REL-9), with their token
    /// hashes and history. Pending, unknown and unacknowledged payments are never pruned.
    /// - Returns: how many payments were deleted.
    @discardableResult
    public func prune(retention: Duration = .seconds(90 * 86_400)) throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-retention.timeInterval)
        return try write("prune") { writer in
            try writer.execute(.prune, [.integer(cutoff.journalTime)])
        }
    }

    /// Moves every pending payment whose expiry has passed to ``PaymentState/unknown`` (needs
    /// reconciliation). A genuine callback that comes later is still matched, as ``PaymentState/late``.
    /// - Returns: the payments moved.
    @discardableResult
    public func expireOverduePayments() throws -> [JournalEntry] {
        let now = clock.now()
        return try write("expire") { writer in
            let ids = try writer.rows(.overdueIDs, [.integer(now.journalTime)]) { row in
                String.fromStatement(row, atUncheckedIndex: 0)
            }
            var expired: [JournalEntry] = []
            for raw in ids {
                let entry = try PaymentJournal.requireEntry(writer, PaymentID(validating: raw ?? ""))
                expired.append(
                    try PaymentJournal.transition(writer, entry, to: .unknown, outcome: nil, at: now, kind: "expired")
                )
            }
            return expired
        }
    }

    // MARK: Plumbing

    /// Runs one write transaction (BEGIN IMMEDIATE), with the fault injector's say just before commit; rolls it
    /// back whole when anything in it fails.
    ///
    /// Every statement in it, `BEGIN` and `COMMIT` included, is one of ``WriterSQL``'s, prepared once per journal.
    func write<T>(_ operation: String, _ body: (JournalWriter) throws -> T) throws -> T {
        try transaction(operation) { writer in (try body(writer), commit: true) }
    }

    /// ``write(_:_:)`` whose body also says whether to commit: one that wrote nothing may end with a rollback instead,
    /// which is not a write (the fault injector is not asked).
    func transaction<T>(_ operation: String, _ body: (JournalWriter) throws -> (T, commit: Bool)) throws -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                let writer = JournalWriter(db: db, statements: writerStatements)
                try writer.execute(.begin)
                do {
                    let (result, commit) = try body(writer)
                    if commit {
                        try faults?.willCommit(operation)
                        try writer.execute(.commit)
                    } else {
                        try writer.execute(.rollback)
                    }
                    return result
                } catch {
                    // The first error is the one to report; a failed rollback leaves nothing more to do here. SQLite
                    // may have rolled back already (a full disk does): then there is no transaction left to end.
                    if db.isInsideTransaction { _ = try? writer.execute(.rollback) }
                    throw error
                }
            }
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.storageError(error, writing: true)
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

    /// The entry with an ID: on a reading connection here, and as ``WriterSQL/entryByID`` on the writing one.
    static let entryByID = "SELECT \(JournalEntry.Column.selection) FROM payment WHERE id = ?"

    static func requireEntry(_ writer: JournalWriter, _ id: PaymentID) throws -> JournalEntry {
        guard let entry = try writer.entry(id) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return entry
    }

    /// The one way a payment's state changes: an update guarded by the state, revision and opening time just read,
    /// so a concurrent change makes it fail instead of overwriting; the history row goes in the same transaction.
    /// Returns the entry as the update left it.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/storageFailed`` when the payment changed since `entry`.
    @discardableResult
    static func transition(
        _ writer: JournalWriter,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: String,
        note: String? = nil,
        change: TransitionChange = .none
    ) throws -> JournalEntry {
        let updated = try transitionIfUnchanged(
            writer,
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
        _ writer: JournalWriter,
        _ entry: JournalEntry,
        to state: PaymentState,
        outcome: RecordedOutcome?,
        at now: Date,
        kind: String,
        note: String? = nil,
        change: TransitionChange = .none
    ) throws -> JournalEntry? {
        let time = now.inJournal
        var values: [JournalValue] = [.text(state.rawValue), .time(time)]
        if let outcome {
            values += [
                .text(outcome.status.rawValue), .integer(outcome.amount?.minorUnits),
                .text(outcome.amount?.currency.code),
                .text(outcome.transactionID), .text(outcome.errorCode), .text(outcome.message),
                .text(outcome.assurance.rawValue), .text(outcome.source.rawValue),
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
        case .reopening(let expiresAt, let endpoints):
            let expiry = expiresAt.inJournal
            values += [.time(expiry), .text(endpoints)]
            updated.handoffCount += 1
            updated.expiresAt = expiry
        case .answer(let digest):
            values += [.blob(digest)]
        case .resolution:
            // Resolved again (a correction): the state and the report from before the first resolution are kept.
            let previous = entry.resolution?.previousState ?? entry.state
            let reported =
                entry.resolution?.reportedOutcome ?? entry.outcome.flatMap { $0.source == .callback ? $0 : nil }
            values += [.time(time), .text(previous.rawValue), .text(note), .text(try reported?.journalJSON())]
            updated.resolution = JournalEntry.Resolution(
                resolvedAt: time,
                previousState: previous,
                note: note,
                reportedOutcome: reported
            )
        }
        values += [
            .text(entry.id.rawValue), .text(entry.state.rawValue), .integer(entry.revision), .time(entry.openedAt),
        ]
        guard try writer.execute(.transition(outcome: outcome != nil, extra: change.extra), values) == 1 else {
            return nil
        }
        try recordEvent(writer, entry.id, at: now, kind: kind, from: entry.state, to: state, note: note)
        return checked(updated, writer)
    }

    /// `entry`, after checking in debug builds (the tests') that it is the row the writing connection now reads.
    static func checked(_ entry: JournalEntry, _ writer: JournalWriter) -> JournalEntry {
        assert((try? writer.entry(entry.id)) == entry, "the entry built for \(entry.id) is not the row written")
        return entry
    }

    static func recordEvent(
        _ writer: JournalWriter,
        _ id: PaymentID,
        at now: Date,
        kind: String,
        from: PaymentState?,
        to: PaymentState,
        note: String? = nil
    ) throws {
        try writer.execute(
            .insertEvent,
            [
                .text(id.rawValue), .integer(now.journalTime), .text(kind), .text(from?.rawValue), .text(to.rawValue),
                .text(note),
            ]
        )
    }
}

extension Date {
    /// Milliseconds since 1970, as the journal stores times.
    var journalTime: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    init(journalTime: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(journalTime) / 1000)
    }

    /// The time as the journal stores and reads it back: to the millisecond, rounded down.
    var inJournal: Date { Date(journalTime: journalTime) }
}
