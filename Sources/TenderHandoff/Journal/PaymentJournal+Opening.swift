import Foundation
import GRDB

extension PaymentJournal {
    /// The connections' settings: WAL with `synchronous=FULL` (REL-1), a wait of up to 30 s for another process's
    /// write lock, and, on the writing connection before GRDB switches the file to WAL, a check that the file is a
    /// journal: another application's database is left as it was, not converted.
    static func configuration(_ path: String) -> Configuration {
        var configuration = Configuration()
        configuration.label = "TenderJournal"
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if !db.configuration.readonly, try isEmpty(db, path: path) { throw emptyDatabase(path) }
        }
        return configuration
    }

    /// A journal opened for reading and writing: the file checked, then the pool opened.
    ///
    /// Opening is tried again for up to 30 s while another process holds a lock SQLite cannot wait for: a journal file
    /// that is not in WAL mode yet (a restored copy) is switched to it under an exclusive lock, and when several
    /// processes open it at once SQLite answers the others `SQLITE_BUSY` at once, without calling the busy handler.
    static func openForWriting(_ files: JournalFiles) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(30)
        var pause = 0.02
        while true {
            do {
                return try openForWritingOnce(files)
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
            {
                guard Date() < deadline else { throw openingError(error, path: files.path) }
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1))
                pause = min(pause * 2, 0.5)
            }
        }
    }

    /// One attempt of ``openForWriting(_:)``: a lock it could not wait for is thrown as SQLite's `DatabaseError`, every
    /// other failure as a ``HandoffError``.
    private static func openForWritingOnce(_ files: JournalFiles) throws -> DatabasePool {
        _ = try files.requireDatabase()
        if let finding = files.damageFinding() {
            throw HandoffError(
                .journalCorrupt,
                "\(files.path) was found damaged (\(finding)); new payments are refused. Keep the file and its -wal and -shm for recovery, move them aside with \((files.damageNote as NSString).lastPathComponent), restore the latest backup or start a new journal, and reconcile open payments with the provider."
            )
        }
        if let problem = try files.writeProblem() { throw problem }
        if let problem = try files.walProblem() { throw problem }
        let path = files.path
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(path))
            // GRDB sets synchronous=NORMAL when it switches the writer to WAL; the journal wants FULL (REL-1).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            return pool
        } catch let error as HandoffError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw error
        } catch {
            throw openingError(error, path: path)
        }
    }

    /// Makes a new journal at `files.path`, where nothing is: built in a file of its own beside it (``schema``, in one
    /// transaction, committed and copied out of its `-wal`), then linked into place. A journal is at the path
    /// whole or not at all, so a process that opens it while another makes it never finds a file half made; when two
    /// make one at once, the first link wins and the other opens it.
    static func createJournal(_ files: JournalFiles) throws {
        let path = files.path
        let folder = files.folder
        if try JournalFiles.status(folder) == nil {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw HandoffError(
                    .storageFailed,
                    "The journal's folder \(folder) cannot be made (\(error.localizedDescription)); check the path and the permissions of its parent."
                )
            }
        }
        let draft = "\(path).new-\(UUID().journalText)"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(draft + suffix) }
        }
        do {
            var configuration = Configuration()
            configuration.label = "TenderJournal.new"
            configuration.journalMode = .wal
            let queue = try DatabaseQueue(path: draft, configuration: configuration)
            let journalID = UUID()
            try queue.write { db in
                try db.execute(sql: schema)
                try db.execute(sql: "INSERT INTO journal (id) VALUES (?)", arguments: [journalID.journalText])
                try db.execute(sql: "PRAGMA user_version = \(userVersion(journalID: journalID))")
            }
            _ = try queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try queue.close()
        } catch let error as HandoffError {
            throw error
        } catch {
            throw openingError(error, path: path, creating: true)
        }
        if let code = place(draft, at: path) {
            if code == EEXIST { return }  // another process made it first: it is opened as it is
            throw HandoffError(
                .storageFailed,
                "A new journal cannot be made at \(path) (\(String(cString: strerror(code)))); check the folder's permissions and free space."
            )
        }
        JournalFiles.syncFolder(folder)
    }

    /// Gives `file` the name `path` unless something is there: a hard link (atomic: it fails when `path` exists), or,
    /// on a file system without hard links, a rename after a look. Returns `errno` when it did not (`EEXIST`: `path`
    /// is taken); `file` keeps its own name too, for the caller to remove.
    static func place(_ file: String, at path: String) -> Int32? {
        guard link(file, path) != 0 else { return nil }
        let code = errno
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == ENOSYS else { return code }
        if (try? JournalFiles.status(path)) != nil { return EEXIST }
        return rename(file, path) == 0 ? nil : errno
    }

    /// What an SQLite database without any table is at a path that was not made by this process: not a journal.
    static func emptyDatabase(_ path: String) -> HandoffError {
        HandoffError(
            .notAJournal,
            "\(path) is an SQLite database without tables, not a journal, and Tender does not start a new journal over a file that exists. If it was the journal, restore it from a backup; if not, remove it or use another path."
        )
    }

    /// The error of a journal that SQLite could not open.
    static func openingError(_ error: any Error, path: String, creating: Bool = false) -> HandoffError {
        let storage = storageError(error, writing: creating, path: path)
        guard storage.code == .storageFailed else { return storage }
        return HandoffError(.storageFailed, "The journal cannot be opened. " + storage.message)
    }

    /// Removes what a backup to `destination` that was killed left: its `DEST.partial-<UUID>` files (and their side
    /// files). Two backups to one destination at once are not supported: the second removes the first's copy, and the
    /// first then fails, writing nothing at the destination.
    static func removeLeftovers(of destination: String, in folder: String) {
        let prefix = (destination as NSString).lastPathComponent + ".partial-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let id = rest.prefix(36)
            let suffix = rest.dropFirst(36)
            guard UUID(journalText: String(id)) != nil, ["", "-wal", "-shm", "-journal"].contains(String(suffix)) else {
                continue
            }
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }

    /// Copies the journal into a new file at `destination` (see ``backup(to:)``).
    static func backup(from journal: PaymentJournal, to destination: String) throws -> Int {
        if let status = try JournalFiles.status(destination) {
            throw HandoffError(
                .storageFailed,
                "\(destination) \(status.isDirectory ? "is a directory" : "exists"); a backup goes to a new file and never overwrites one. Choose a new file name."
            )
        }
        let folder = JournalFiles(path: destination).folder
        guard let status = try JournalFiles.status(folder), status.isDirectory else {
            throw HandoffError(.storageFailed, "The folder \(folder) does not exist; make it first, or choose another.")
        }
        removeLeftovers(of: destination, in: folder)
        let partial = "\(destination).partial-\(UUID().journalText)"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(partial + suffix) }
        }
        let count: Int
        do {
            var configuration = Configuration()
            configuration.label = "TenderJournal.backup"
            let copy = try DatabaseQueue(path: partial, configuration: configuration)
            // One step: the whole copy is made in one read transaction of the journal, a consistent snapshot taken
            // while other connections go on writing (they write to the -wal, which the snapshot does not see).
            try copy.writeWithoutTransaction { target in
                try journal.read { source in try source.backup(to: target) }
            }
            // The copy stands alone: a rollback-journal file, with nothing in a -wal beside it.
            count = try copy.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                let report = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard report == ["ok"] else {
                    throw HandoffError(
                        .storageFailed,
                        "The copy of the journal failed its integrity check (\(report.first ?? "")); nothing was written to \(destination). Run 'tender journal check' on the journal."
                    )
                }
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM payment") ?? 0
            }
            try copy.close()
        } catch let error as HandoffError {
            throw error
        } catch {
            let storage = storageError(error, writing: true, path: partial, notingDamage: false)
            throw HandoffError(storage.code, "The backup to \(destination) failed. " + storage.message)
        }
        if let code = place(partial, at: destination) {
            throw HandoffError(
                .storageFailed,
                "The backup cannot be written to \(destination) (\(String(cString: strerror(code)))); nothing was written there."
            )
        }
        JournalFiles.syncFolder(folder)
        return count
    }
}

/// Reading a journal without writing anything: not the journal, not its side files, and making none.
///
/// SQLite opens a WAL database read-only (`mode=ro`) but then makes the `-wal` and `-shm` files when they are not
/// there, and writes the `-shm` (the WAL's index, its read marks) when it may. Two ways avoid every write, and which
/// one is safe depends on the side files (SQLite's wal.html, "Read-Only Databases"):
///
/// * **`-wal` and `-shm` are there** (a process has the journal open, or one ended without closing it): the journal is
///   read as a WAL reader with `mode=ro&readonly_shm=1`. SQLite maps the `-shm` read-only, and when it cannot use the
///   index as it is (no process keeps it up to date), it reads the `-wal` into memory of its own. Every committed
///   payment is seen, including those only in the `-wal`, and nothing is written.
/// * **no `-wal`, or an empty one without `-shm`** (the journal was closed): everything is in the journal file, and
///   SQLite can read it with `immutable=1`, which opens nothing beside it and takes no lock. That is safe only while
///   nothing writes the journal file itself, and `immutable` cannot tell: so the journal file's size, times and inode
///   are compared before and after the read. A writer that comes meanwhile writes its `-wal` first, which this read
///   does not see (it reads the journal as it was); only its copying of the `-wal` into the journal file (a
///   checkpoint, when it closes) changes the file, and then the read is thrown away and made again. `immutable=1` is
///   never used while a `-wal` holds data: it would not see it.
/// * **a `-wal` with data and no `-shm`**: cannot be read without making the `-shm`. A writer that closes deletes its
///   `-shm` just before its (copied) `-wal`, so it is tried again for a while; past that, it is reported.
///
/// Writers come and go while a journal is read (a till paying beside an operator's listing, the fleet sync beside the
/// app): their side files appear and vanish between a look and an open, SQLite answers busy while one recovers the
/// `-wal`, a checkpoint rewrites the journal file under an `immutable` read. Each is a reason to read again, not an
/// error: a read is made again, after a short pause, until it succeeds or ``patience`` has passed. A connection is
/// opened for each read and closed after it, so that no `immutable` connection outlives the check.
enum ReadOnlyJournal {
    /// How a read opens the file.
    enum Access: Equatable {
        /// `immutable=1`: nothing beside the journal file.
        case immutable
        /// `mode=ro&readonly_shm=1`: a WAL reader that writes nothing.
        case walReader
    }

    /// How long a read is made again while writers are in its way: 10 s.
    static let patience: TimeInterval = 10

    /// A read that met a writer: made again, or reported once ``patience`` has passed.
    struct WriterInTheWay: Error {
        /// What to report if it goes on.
        var error: HandoffError
    }

    /// How to read the journal as its files are now.
    /// - Throws: ``WriterInTheWay`` when a side file vanished between the look and the check, or a `-wal` holds data
    ///   without its `-shm`; ``HandoffError/Code/storageFailed`` when a side file cannot be read.
    static func strategy(_ files: JournalFiles, _ snapshot: [JournalFiles.Status?]) throws -> Access {
        let (wal, shm) = (snapshot[1], snapshot[2])
        for (side, status) in [(files.wal, wal), (files.shm, shm)] {
            guard let status, access(side, R_OK) != 0 else { continue }
            let code = errno
            let error = HandoffError(
                .storageFailed,
                "\(side) cannot be read (\(String(cString: strerror(code))); mode \(status.permissions), owner uid \(status.owner)): it is part of the journal, and reading the journal reads it. Run as the journal's owner, or give it read permission."
            )
            // Gone since the look: a writer closed the journal.
            if code == ENOENT { throw WriterInTheWay(error: error) }
            throw error
        }
        guard let wal else { return .immutable }
        if shm != nil { return .walReader }
        guard wal.size == 0 else {
            throw WriterInTheWay(
                error: HandoffError(
                    .storageFailed,
                    "\(files.wal) holds changes that are not in \(files.path) yet, and \(files.shm) is missing: the journal cannot be read without making it. Open the journal for writing as its owner (the app, or a command that writes such as 'tender journal prune'), which checks that the -wal is this journal's before it copies it in; do not delete \(files.wal)."
                )
            )
        }
        return .immutable
    }

    /// Checks, in one read, that the file is a journal this Tender reads.
    static func checkReadable(_ files: JournalFiles) throws {
        let path = files.path
        try read(files) { db in
            if try PaymentJournal.isEmpty(db, path: path) { throw PaymentJournal.emptyDatabase(path) }
        }
    }

    /// Runs `body` in a read transaction of a connection that writes nothing, made again while writers are in its way
    /// (see ``ReadOnlyJournal``), for up to ``patience`` after the first attempt that met one.
    static func read<T>(_ files: JournalFiles, _ body: (Database) throws -> T) throws -> T {
        // Counted from the first failure: a long first read (a large journal's backup) still gets its retries.
        var deadline: Date?
        var pause = 0.005
        while true {
            do {
                return try readOnce(files, body)
            } catch let inTheWay as WriterInTheWay {
                let giveUp = deadline ?? Date().addingTimeInterval(patience)
                deadline = giveUp
                guard Date() < giveUp else { throw inTheWay.error }
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1))
                pause = min(pause * 2, 0.2)
            }
        }
    }

    /// One attempt of ``read(_:_:)``.
    /// - Throws: ``WriterInTheWay`` for what a writer can cause (a side file gone or not there yet, SQLite busy, a
    ///   journal file rewritten under an `immutable` read); any other error as the read's error.
    private static func readOnce<T>(_ files: JournalFiles, _ body: (Database) throws -> T) throws -> T {
        let before = try files.snapshot()
        let access = try strategy(files, before)
        let result: Result<T, any Error>
        do {
            let queue = try DatabaseQueue(path: uri(files.path, access), configuration: configuration())
            defer { try? queue.close() }
            result = .success(try queue.read(body))
        } catch {
            result = .failure(error)
        }
        if access == .immutable, try JournalFiles.status(files.path) != before[0] {
            // Rewritten meanwhile (a checkpoint): what was read may mix two states of the file, or failed for it.
            throw WriterInTheWay(
                error: HandoffError(
                    .storageFailed,
                    "\(files.path) was changed by other processes all the time it was being read, for \(Int(patience)) s; read it again."
                )
            )
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error as HandoffError):
            throw error
        case .failure(let error as DatabaseError) where writerMayCause(error):
            throw WriterInTheWay(error: PaymentJournal.storageError(error, writing: false, path: files.path))
        case .failure(let error):
            throw PaymentJournal.storageError(error, writing: false, path: files.path)
        }
    }

    /// Whether a writer can cause the error of a read: SQLite busy or locked (a writer recovering the `-wal`), a file
    /// it could not open (a side file gone between the look and the open), a `-shm` it cannot use read-only yet, or the
    /// `-wal`'s protocol changing under it.
    static func writerMayCause(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CANTOPEN, .SQLITE_PROTOCOL: true
        case .SQLITE_READONLY: error.extendedResultCode != .SQLITE_READONLY
        default: false
        }
    }

    /// A read-only connection; it waits up to 10 s in the rare cases where a WAL reader is told to (another process
    /// recovering the WAL).
    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "TenderJournal.readOnly"
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        return configuration
    }

    /// The SQLite URI that opens `path` with `access`. SQLite reads `file:` names as URIs on every platform Tender
    /// runs on (GRDB's own shared in-memory databases rely on it); `%`, `?` and `#` in the path are escaped, and
    /// everything else that is not plain too.
    static func uri(_ path: String, _ access: Access) -> String {
        let absolute =
            path.hasPrefix("/")
            ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        var escaped = ""
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                escaped.append(Character(UnicodeScalar(byte)))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        switch access {
        case .immutable: return "file:\(escaped)?mode=ro&immutable=1"
        case .walReader: return "file:\(escaped)?mode=ro&readonly_shm=1"
        }
    }
}

extension String {
    /// The string with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
