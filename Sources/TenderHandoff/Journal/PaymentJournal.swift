public import Foundation
import GRDB
public import Tender
import TenderProviderAPI

/// The payment journal: one SQLite file that remembers every hand-off, written ahead of opening the POS
/// app and updated exactly once by its callback.
///
/// The file is opened in WAL mode with `synchronous=FULL` (a committed transaction survives a process
/// crash and, on storage that honours fsync, a power loss); its header holds its application ID and schema version
/// (REL-7). Opening does only constant-time work (the file's header and the names of its tables), so an app's
/// launch does not pay for the journal's history; ``check(full:)`` checks the whole file on demand. A damaged file is reported with ``HandoffError/Code/journalCorrupt`` and is never silently replaced;
/// only a path where nothing exists becomes a new journal (``OpenMode/create``).
///
/// A journal is safe to use from many tasks at once, and several processes may open the same file:
/// every change is one `BEGIN IMMEDIATE` transaction whose updates are guarded by the state they expect,
/// so concurrent callbacks with the same token record one outcome and see the others as duplicates.
///
/// While the journal is open, and after a process ends without ``close()``, committed payments can be in the
/// `-wal` file beside it: the journal is the three files together. ``close()`` copies everything into the journal
/// file; ``backup(to:)`` makes a consistent one-file copy at any time.
///
/// The journal never stores a token (only its SHA-256), a URL (only callback endpoints: scheme, host and
/// path), a secret or a card number. See <doc:JournalAndRecovery> for the schema.
public final class PaymentJournal: Sendable {
    /// How ``PaymentJournal/init(path:clock:mode:)`` opens the file.
    public enum OpenMode: Sendable, Hashable {
        /// For reading and writing; where nothing exists at the path, a new journal is made there (with its folder).
        /// What an app that takes payments uses.
        case create
        /// For reading and writing a journal that exists: where nothing is at the path, it throws
        /// ``HandoffError/Code/journalNotFound`` instead of starting a new journal.
        case existing
        /// For reading only: nothing is written, and no file is made, not even SQLite's side files. Works on a
        /// journal that the process cannot write, in a folder it cannot write. Changes throw
        /// ``HandoffError/Code/storageFailed``.
        case readOnly
    }

    /// The journal file's path.
    public let path: String
    /// The clock that stamps the journal's times.
    public let clock: any HandoffClock
    /// How the journal was opened.
    public let mode: OpenMode

    let storage: Storage
    let faults: StorageFaults?
    /// Where ``offloaded(_:)`` runs the journal's blocking work: a serial queue of the journal's own.
    private let queue = DispatchQueue(label: "tender.journal")
    /// Whether ``close()`` ran: later calls say so, instead of GRDB's error about a closed connection.
    private let closed = Locked(false)

    /// The connections: a pool for a journal opened for writing; for a read-only one, the files, opened afresh for
    /// each read (``ReadOnlyJournal``).
    enum Storage: Sendable {
        case pool(DatabasePool)
        case readOnly(JournalFiles)
    }

    /// Opens the journal at `path`.
    /// - Parameters:
    ///   - path: the journal file. SQLite keeps `path-wal` and `path-shm` beside it while it is open.
    ///   - clock: what stamps the journal's times.
    ///   - mode: ``OpenMode/create`` (the default) makes a new journal where nothing exists; ``OpenMode/existing``
    ///     and ``OpenMode/readOnly`` open only a journal that exists.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/journalNotFound`` when nothing is at `path` (but with
    ///   ``OpenMode/create``), ``HandoffError/Code/notAJournal`` for a directory, an empty file or another
    ///   application's database, ``HandoffError/Code/journalCorrupt`` when the file is damaged,
    ///   ``HandoffError/Code/journalTooNew`` when a newer Tender wrote it, or ``HandoffError/Code/storageFailed``
    ///   when it cannot be opened (permissions, a full disk); each message names the file and says what to do.
    public convenience init(
        path: String,
        clock: any HandoffClock = SystemHandoffClock(),
        mode: OpenMode = .create
    )
        throws
    {
        try self.init(path: path, clock: clock, mode: mode, faults: nil)
    }

    /// Opens the journal with fault injection (tests).
    package init(path: String, clock: any HandoffClock, mode: OpenMode = .create, faults: StorageFaults?) throws {
        self.path = path
        self.clock = clock
        self.mode = mode
        self.faults = faults
        let files = JournalFiles(path: path)
        switch mode {
        case .readOnly:
            _ = try files.requireDatabase()
            try ReadOnlyJournal.checkReadable(files)
            storage = .readOnly(files)
        case .create, .existing:
            if mode == .create, try JournalFiles.status(path) == nil {
                try PaymentJournal.createJournal(files)
            }
            storage = .pool(try PaymentJournal.openForWriting(files))
        }
    }

    // MARK: Reading

    /// The journal's own random ID, made with it: what tells it from every other journal (the fleet sync names the
    /// journal by it; the first 24 bits are in the file's header, so that another journal's `-wal` is never copied in).
    public func journalID() throws -> UUID {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT id FROM journal"), let id = UUID(journalText: text)
            else { throw JournalEntry.damaged("journal.id") }
            return id
        }
    }

    /// The payment with this ID, or `nil`.
    public func entry(_ id: PaymentID) throws -> JournalEntry? {
        try read { db in try PaymentJournal.fetchEntry(db, id) }
    }

    /// All payments, oldest first, or those in the given states. Holds them all in memory: prefer
    /// ``forEachEntry(matching:_:)`` for a journal of any size.
    public func entries(in states: Set<PaymentState>? = nil) throws -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try forEachEntry(matching: JournalFilter(states: states)) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each payment that `filter` selects, oldest first (by creation, then ID), one at a time:
    /// memory stays constant however many there are. Each state is read through an index in creation order, so `body`
    /// sees the payments of a state without the others being read.
    ///
    /// The payments are read in pages of ``listingPageSize``, each in one read transaction (a consistent snapshot),
    /// the next one after the last payment of the one before: no payment is seen twice or skipped, and a payment that
    /// changes while the listing goes on is seen as it was when its page was read. A page is read again while other
    /// processes' writing is in its way (``OpenMode/readOnly``), before `body` sees any of it.
    public func forEachEntry(
        matching filter: JournalFilter = JournalFilter(),
        _ body: (JournalEntry) throws -> Void
    ) throws {
        var remaining = filter.limit.map { max(0, $0) } ?? Int.max
        var after: (createdAt: Date, id: PaymentID)?
        while remaining > 0 {
            let cursor = after
            let size = min(remaining, PaymentJournal.listingPageSize)
            let page = try read { db in try PaymentJournal.entries(db, filter, after: cursor, limit: size) }
            for entry in page { try body(entry) }
            remaining -= page.count
            guard page.count == size, let last = page.last else { return }
            after = (last.createdAt, last.id)
        }
    }

    /// How many payments ``forEachEntry(matching:_:)`` reads at a time.
    public static let listingPageSize = 500

    /// The payment's history, oldest first: a row for each change the journal recorded about it, in the transaction
    /// that made the change. Empty when no payment has the ID. Read through an index of each payment's rows.
    public func history(of id: PaymentID) throws -> [PaymentEvent] {
        try read { db in try PaymentJournal.fetchHistory(db, id) }
    }

    /// The payment with this ID and its history, read together (one read transaction), or `nil`.
    package func entryWithHistory(_ id: PaymentID) throws -> (entry: JournalEntry, history: [PaymentEvent])? {
        try read { db in
            guard let entry = try PaymentJournal.fetchEntry(db, id) else { return nil }
            return (entry, try PaymentJournal.fetchHistory(db, id))
        }
    }

    /// Payments the app has not acknowledged since they left `PaymentState.pending`: what to deliver at launch.
    /// Read through an index of those payments only.
    public func undeliveredEntries() throws -> [JournalEntry] {
        try read { db in
            try PaymentRecord.fetchAll(db.cachedStatement(sql: JournalSQL.undelivered)).map(\.entry)
        }
    }

    /// Payments still waiting for their callback, oldest first, read through an index of those payments only.
    func pendingEntries() throws -> [JournalEntry] {
        try read { db in try PaymentRecord.fetchAll(db.cachedStatement(sql: JournalSQL.pending)).map(\.entry) }
    }

    /// Checks the whole file on demand (REL-7): SQLite's `PRAGMA integrity_check` (`full`, every page, index and
    /// constraint; seconds for a million payments) or `PRAGMA quick_check` (the same without comparing indexes to their
    /// tables), and with `full`, `PRAGMA foreign_key_check` (every token and event has its payment).
    ///
    /// A journal found damaged is refused by writers from then on, as a read that meets damage refuses it: the finding
    /// is noted beside the journal (``damageNotePath``; the journal and its side files are not touched, and a journal
    /// opened ``OpenMode/readOnly`` only leaves that note), and opening it for writing throws
    /// ``HandoffError/Code/journalCorrupt`` until it is moved aside with its note, or the note removed after a repair.
    /// - Returns: `["ok"]` for a sound file; otherwise the problems found, one a line.
    public func check(full: Bool = true) throws -> [String] {
        let problems = try read { db in
            var problems = try String.fetchAll(db, sql: full ? "PRAGMA integrity_check" : "PRAGMA quick_check")
            if problems == ["ok"] { problems = [] }
            if full {
                for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                    let table: String = row[0] ?? "?"
                    let rowid: Int64? = row[1]
                    let parent: String = row[2] ?? "?"
                    problems.append("row \(rowid.map(String.init) ?? "?") of \(table) has no \(parent) row")
                }
            }
            return problems
        }
        guard let first = problems.first else { return ["ok"] }
        let kind = full ? "full check" : "quick check"
        JournalFiles(path: path).noteDamage(
            "its \(kind) of \(JournalEntry.timestamp(clock.now())) found \(problems.count) problem(s), the first: \(first)"
        )
        return problems
    }

    /// Where a check or a read that found the journal damaged notes it (`journal.sqlite-damaged`): while that file is
    /// there, the journal is refused by writers.
    public var damageNotePath: String { JournalFiles(path: path).damageNote }

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
            let acknowledged = try PaymentJournal.returning(
                db,
                JournalSQL.acknowledge,
                ["now": now.journalTime, "id": entry.id.rawValue, "revision": entry.revision]
            )
            guard let acknowledged else { return false }
            try PaymentJournal.recordEvent(
                db,
                acknowledged,
                at: now,
                kind: .acknowledged,
                from: acknowledged.state,
                to: acknowledged.state
            )
            return true
        }
    }

    /// Decides a payment's outcome by hand, recording who-knows-what in `note`: the only way a terminal
    /// payment changes (REL-2). The payment becomes `PaymentState.resolved`; its ``JournalEntry/outcome`` is the
    /// one decided here, and its ``JournalEntry/Resolution`` keeps the state it was in and what the POS app
    /// reported. Resolving a resolved payment again corrects the decision and keeps both from before the first.
    ///
    /// A `PaymentState.completed` payment has the outcome its POS app reported in time, on the right URL: changing it
    /// is refused unless `overwritingCompleted` says so, so that no completed payment is overwritten by mistake.
    /// - Parameters:
    ///   - id: the payment.
    ///   - status: what happened, as found with the POS app or the provider.
    ///   - transactionID: the provider's transaction ID, if one was found.
    ///   - note: why, for whoever reads the journal later (redacted, at most 1,024 characters).
    ///   - overwritingCompleted: resolve a completed payment too (its report is kept in the resolution).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/paymentNotFound``, or
    ///   ``HandoffError/Code/invalidResolution`` for a completed payment without `overwritingCompleted` (its message
    ///   says what the payment holds) or a `transactionID` that holds a card number.
    public func resolve(
        _ id: PaymentID,
        as status: PaymentOutcome.Status,
        transactionID: String? = nil,
        note: String? = nil,
        overwritingCompleted: Bool = false
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
        return try write("resolve") { db in
            guard let entry = try PaymentJournal.fetchEntry(db, id) else {
                throw HandoffError(
                    .paymentNotFound,
                    "No payment has the ID \(id); run 'tender journal list' to see them."
                )
            }
            if entry.state == .completed, !overwritingCompleted {
                throw HandoffError(
                    .invalidResolution,
                    PaymentJournal.completedRefusal(entry, override: "pass overwritingCompleted: true")
                )
            }
            return try PaymentJournal.transition(
                db,
                entry,
                to: .resolved,
                outcome: outcome,
                at: now,
                kind: .resolved,
                note: note,
                change: .resolution
            )
        }
    }

    /// Why a completed payment is not resolved without being told to: what it holds, and `override`, the way to say
    /// so (the CLI's flag, or this API's parameter).
    package static func completedRefusal(_ entry: JournalEntry, override: String) -> String {
        var holds = entry.outcome.map { "\($0.status)" } ?? "an outcome"
        if let transactionID = entry.outcome?.transactionID { holds += " (transaction \(transactionID))" }
        if entry.verification?.verdict == .confirmed { holds += ", confirmed by the provider" }
        return
            "Payment \(entry.id) is completed: its POS app reported \(holds). Resolving it replaces that outcome; \(override) if the provider shows otherwise."
    }

    /// Deletes payments that ended (`PaymentState.isTerminal`) and were acknowledged more than `retention` ago
    /// (REL-9), with their token hashes and history, oldest first. Pending, unknown, not-opened and unacknowledged
    /// payments are never pruned. Reads only the payments it may delete, through an index of those alone.
    ///
    /// The payments go in transactions of ``pruneBatchSize``, so that no write holds the journal for long (another
    /// process's payment waits for one batch at most), until none is left or `limit` are deleted.
    /// - Parameters:
    ///   - retention: how long an ended, acknowledged payment is kept.
    ///   - limit: the most payments to delete in this call; `nil` for all that are due. ``HandoffCoordinator/recover()``
    ///     passes one batch, so that an app's launch after a long time does not pay for the whole backlog at once.
    /// - Returns: how many payments were deleted.
    @discardableResult
    public func prune(retention: Duration = .seconds(90 * 86_400), limit: Int? = nil) throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-retention.timeInterval)
        var pruned = 0
        while limit.map({ pruned < $0 }) ?? true {
            let batch = min(PaymentJournal.pruneBatchSize, (limit ?? .max) - pruned)
            let deleted = try write("prune") { db in
                let now = clock.now()
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: JournalSQL.prune),
                    arguments: ["cutoff": cutoff.journalTime, "limit": batch]
                )
                for row in rows {
                    try PaymentJournal.recordPruned(
                        db,
                        try JournalEntry.required(row, "id"),
                        state: row["state"],
                        at: now
                    )
                }
                try PaymentJournal.pruneOutbox(db, before: cutoff, at: now)
                return rows.count
            }
            pruned += deleted
            if deleted < batch { break }
        }
        return pruned
    }

    /// How many payments one transaction of ``prune(retention:limit:)`` deletes at most.
    public static let pruneBatchSize = 500

    /// Moves every pending payment whose expiry has passed to `PaymentState.unknown` (needs
    /// reconciliation). A genuine callback that comes later is still matched, as `PaymentState.late`.
    /// - Returns: the payments moved.
    @discardableResult
    public func expireOverduePayments() throws -> [JournalEntry] {
        let now = clock.now()
        return try write("expire") { db in
            let overdue = try PaymentRecord.fetchAll(
                db.cachedStatement(sql: JournalSQL.overdue),
                arguments: ["now": now.journalTime]
            )
            return try overdue.map { record in
                try PaymentJournal.transition(db, record.entry, to: .unknown, outcome: nil, at: now, kind: .expired)
            }
        }
    }

    // MARK: The file

    /// Copies the journal into a new file at `destination`: one consistent, self-contained SQLite file (no `-wal`
    /// beside it), made with SQLite's online backup while payments go on in this and other processes. The copy is
    /// checked (`PRAGMA integrity_check`) and written to `destination` only once complete; an existing file is never
    /// overwritten.
    /// - Returns: how many payments the copy holds.
    /// - Throws: ``HandoffError/Code/storageFailed`` when `destination` exists or cannot be written, or the copy
    ///   fails its check.
    @discardableResult
    public func backup(to destination: String) throws -> Int {
        try PaymentJournal.backup(from: self, to: destination)
    }

    /// Copies every committed change from the `-wal` file into the journal file (a `TRUNCATE` checkpoint) and closes
    /// the journal: afterwards the journal file alone holds everything, and SQLite removes the side files when no
    /// other process has the journal open. If another process is reading or writing it, the copy waits up to two
    /// seconds, then leaves what is left in `-wal` for that process to copy when it closes (nothing is lost either
    /// way). Every later call on this journal throws. Closing twice does nothing.
    public func close() throws {
        let wasOpen = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        guard case .pool(let pool) = storage else { return }
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = 2000")
                do {
                    try db.checkpoint(.truncate)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    return  // another connection is in the way: its own close copies the rest
                }
            }
            // Readers first: GRDB closes its writer first, and the last connection to close is the one that removes
            // the side files, which a read-only connection cannot.
            pool.releaseMemory()
            try pool.close()
        } catch {
            throw PaymentJournal.storageError(error, writing: true, path: path)
        }
    }

    // MARK: Plumbing

    /// Runs `work`, synchronous journal calls, on the journal's own serial queue and suspends until it is done.
    ///
    /// A journal call can wait: on `fsync` (`synchronous=FULL`), on another process's write lock (up to the busy
    /// time-out), on a slow disk. Run from async code, such a wait would hold one of the few threads of Swift's
    /// cooperative pool (one a core) and stall every other task of the app; run here, it holds a thread of the
    /// journal's queue only. Every async API of the hand-off goes through it, one hop to the queue and back per call.
    package func offloaded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: work)) }
        }
    }

    /// The pool of a journal opened for writing.
    var pool: DatabasePool {
        guard case .pool(let pool) = storage else { preconditionFailure("the journal at \(path) is read-only") }
        return pool
    }

    /// Runs one write transaction (`BEGIN IMMEDIATE`), with the fault injector's say just before commit; rolls it
    /// back whole when anything in it fails.
    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        try transaction(operation) { db in (try body(db), commit: true) }
    }

    /// ``write(_:_:)`` whose body also says whether to commit: one that wrote nothing may end with a rollback instead,
    /// which is not a write (the fault injector is not asked).
    func transaction<T>(_ operation: String, _ body: (Database) throws -> (T, commit: Bool)) throws -> T {
        try checkOpen()
        guard case .pool(let pool) = storage else {
            throw HandoffError(
                .storageFailed,
                "The journal at \(path) was opened read-only; open it with PaymentJournal.OpenMode.existing to change it."
            )
        }
        do {
            return try pool.writeWithoutTransaction { db in
                var result: Result<T, any Error>?
                try db.inTransaction(.immediate) {
                    let (value, commit) = try body(db)
                    result = .success(value)
                    guard commit else { return .rollback }
                    try faults?.willCommit(operation)
                    return .commit
                }
                guard let result else { throw HandoffError(.storageFailed, "The journal's transaction did not run.") }
                return try result.get()
            }
        } catch let error as HandoffError {
            throw error
        } catch {
            throw PaymentJournal.storageError(error, writing: true, path: path)
        }
    }

    /// Runs `body` in one read transaction: on the pool's readers, or on a read-only connection of its own, made again
    /// while other processes' writing is in its way (``ReadOnlyJournal``). `body` may run more than once: it must hand
    /// nothing out as it reads.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        switch storage {
        case .pool(let pool):
            do {
                return try pool.read(body)
            } catch let error as HandoffError {
                throw error
            } catch {
                throw PaymentJournal.storageError(error, writing: false, path: path)
            }
        case .readOnly(let files):
            return try ReadOnlyJournal.read(files, body)
        }
    }

    private func checkOpen() throws {
        if closed.withLock({ $0 }) {
            throw HandoffError(.storageFailed, "The journal at \(path) was closed; open it again to use it.")
        }
    }

    /// The error to report for a failure of SQLite's or of the file system: what failed, in words that match what
    /// happened (a read-only or full disk is not called a failure to read), and what to do. A damaged file
    /// (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is noted beside the journal at `path` (``JournalFiles/noteDamage(_:)``),
    /// but when `notingDamage` is `false` (the file is not a journal: a backup's copy).
    static func storageError(
        _ error: any Error,
        writing: Bool,
        path: String,
        notingDamage: Bool = true
    ) -> HandoffError {
        guard let error = error as? DatabaseError else {
            let verb = writing ? "written" : "read"
            return HandoffError(
                .storageFailed,
                "The journal at \(path) could not be \(verb) (\(error)); nothing was changed. Check free space and permissions, then try again.",
                underlyingError: error
            )
        }
        let detail = "SQLite error \(error.extendedResultCode.rawValue)" + (error.message.map { ": \($0)" } ?? "")
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            // Noted beside the journal, so that writers refuse it as this says, whatever pages they touch.
            if notingDamage {
                JournalFiles(path: path).noteDamage(
                    "SQLite found it damaged on \(JournalEntry.timestamp(Date())) (\(detail))"
                )
            }
            return HandoffError(
                .journalCorrupt,
                "The journal at \(path) is damaged (\(detail)); new payments are refused. Keep the file and its -wal and -shm for recovery, move them aside, and reconcile open payments with the provider.",
                underlyingError: error
            )
        case .SQLITE_FULL:
            return HandoffError(
                .storageFailed,
                "The journal at \(path) could not be written: the disk is full (\(detail)); nothing was changed. Free some space, then try again.",
                underlyingError: error
            )
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return HandoffError(
                .storageFailed,
                "The journal at \(path) could not be written: it, its -wal or -shm, or its folder is read-only (\(detail)); nothing was changed. Check their permissions and owner.",
                underlyingError: error
            )
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return HandoffError(
                .storageFailed,
                "The journal at \(path) was locked by another process for too long (\(detail)); nothing was changed. Try again.",
                underlyingError: error
            )
        case .SQLITE_CANTOPEN:
            return HandoffError(
                .storageFailed,
                "The journal at \(path) could not be opened (\(detail)); check that it, its -wal and -shm and its folder exist and can be read.",
                underlyingError: error
            )
        default:
            let verb = writing ? "written" : "read"
            return HandoffError(
                .storageFailed,
                "The journal at \(path) could not be \(verb) (\(detail)); nothing was changed. Check free space and permissions, then try again.",
                underlyingError: error
            )
        }
    }
}

/// Which payments ``PaymentJournal/forEachEntry(matching:_:)`` reads.
public struct JournalFilter: Sendable, Hashable {
    /// Only payments in these states; every state when `nil`.
    public var states: Set<PaymentState>?
    /// Only payments first written at or after this time.
    public var createdSince: Date?
    /// At most this many payments (the oldest that match).
    public var limit: Int?
    /// Only contested payments (``JournalEntry/contestedAt``): those whose provider record another payment names too,
    /// each waiting for a person.
    public var contestedOnly: Bool

    /// Creates a filter; the default selects every payment.
    public init(
        states: Set<PaymentState>? = nil,
        createdSince: Date? = nil,
        limit: Int? = nil,
        contestedOnly: Bool = false
    ) {
        self.states = states
        self.createdSince = createdSince
        self.limit = limit
        self.contestedOnly = contestedOnly
    }
}

extension Date {
    /// Milliseconds since 1970, rounded down, as the journal stores times. Ten microseconds are allowed for: a time
    /// read back from the journal (``init(journalTime:)``) is its milliseconds divided by 1,000 in floating point, a
    /// little below them at times (less than 8 µs until the year 3000), and must give back the millisecond it was
    /// stored with (a page cursor, a guard, its JSON).
    var journalTime: Int64 { Int64((timeIntervalSince1970 * 1000 + 0.01).rounded(.down)) }

    init(journalTime: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(journalTime) / 1000)
    }
}
