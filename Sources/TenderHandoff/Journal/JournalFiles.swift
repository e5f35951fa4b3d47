import Foundation

/// The journal's file and its two side files, looked at without opening them.
///
/// In WAL mode SQLite keeps two files beside the database while it is open: `-wal`, where committed transactions go
/// first (until a checkpoint copies them into the database), and `-shm`, the index of the `-wal` that connections
/// share. Both are part of a live journal: `-wal` can hold payments that are not in the database file yet.
struct JournalFiles: Sendable {
    /// The database file.
    let path: String

    /// The write-ahead log.
    var wal: String { path + "-wal" }
    /// The WAL's shared index.
    var shm: String { path + "-shm" }
    /// The note a check that found the journal damaged leaves beside it: writers refuse the journal while it is there.
    var damageNote: String { path + "-damaged" }
    /// The folder the three live in.
    var folder: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// What `stat` says of one file: enough to tell whether it changed.
    struct Status: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec.Value
        var changed: timespec.Value
        var mode: UInt32
        var owner: UInt32
        var isDirectory: Bool
        var isRegular: Bool

        /// The permission bits, such as `0644`.
        var permissions: String { "0" + String(mode & 0o777, radix: 8) }
    }

    /// The file's status, or `nil` when nothing is there.
    /// - Throws: ``HandoffError/Code/storageFailed`` when it cannot be looked at (a folder on the way that may not be
    ///   searched).
    static func status(_ path: String) throws -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw HandoffError(
                .storageFailed,
                "\(path) cannot be looked at (\(String(cString: strerror(code)))); check the permissions of its folders."
            )
        }
        #if canImport(Darwin)
        let modified = timespec.Value(info.st_mtimespec)
        let changed = timespec.Value(info.st_ctimespec)
        #else
        let modified = timespec.Value(info.st_mtim)
        let changed = timespec.Value(info.st_ctim)
        #endif
        let type = UInt32(info.st_mode) & UInt32(S_IFMT)
        return Status(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modified: modified,
            changed: changed,
            mode: UInt32(info.st_mode),
            owner: UInt32(info.st_uid),
            isDirectory: type == UInt32(S_IFDIR),
            isRegular: type == UInt32(S_IFREG)
        )
    }

    /// The three files' statuses: what a reader compares before and after reading without locks.
    func snapshot() throws -> [Status?] {
        [try JournalFiles.status(path), try JournalFiles.status(wal), try JournalFiles.status(shm)]
    }

    /// The database file as something a journal can be opened from: it exists, is a regular file, is not empty, can
    /// be read, and starts with SQLite's header.
    /// - Throws: ``HandoffError/Code/journalNotFound``, ``HandoffError/Code/notAJournal`` (a folder, an empty file),
    ///   ``HandoffError/Code/journalCorrupt`` (not SQLite), ``HandoffError/Code/storageFailed`` (cannot be read).
    func requireDatabase() throws -> Status {
        guard let status = try JournalFiles.status(path) else {
            throw HandoffError(
                .journalNotFound,
                "There is no journal at \(path); check the path. Only an app or a command that starts a payment creates a new journal."
            )
        }
        if status.isDirectory {
            throw HandoffError(
                .notAJournal,
                "\(path) is a directory, not a journal; give the path of the journal file itself (such as journal.sqlite)."
            )
        }
        guard status.isRegular else {
            throw HandoffError(.notAJournal, "\(path) is not a regular file, so it is not a journal; check the path.")
        }
        guard status.size > 0 else {
            throw HandoffError(
                .notAJournal,
                "\(path) is empty (0 bytes), so it holds no journal, and Tender does not start a new one over a file that exists. If it was the journal, its payments are gone from it: restore it from a backup and reconcile later payments with the provider; if not, remove the file."
            )
        }
        guard access(path, R_OK) == 0 else {
            throw HandoffError(
                .storageFailed,
                "\(path) cannot be read (\(String(cString: strerror(errno))); mode \(status.permissions), owner uid \(status.owner)); run as its owner or give it read permission."
            )
        }
        let header = try JournalFiles.readPrefix(path, count: 16)
        guard header == Array("SQLite format 3\u{0}".utf8) else {
            throw HandoffError(
                .journalCorrupt,
                "\(path) is not an SQLite database: it is damaged, or not a journal. Keep it for recovery if it was the journal; check the path if not."
            )
        }
        return status
    }

    /// Why the journal cannot be written, or `nil` when it can: SQLite needs to write the database, each side file
    /// that is there, and the folder when a side file has to be made. Checked before SQLite opens anything, so that a
    /// journal that cannot be written is not left with side files it made and could not use.
    func writeProblem() throws -> HandoffError? {
        if access(path, R_OK | W_OK) != 0 {
            let reason = String(cString: strerror(errno))
            let status = try JournalFiles.status(path)
            let mode = status.map { "; mode \($0.permissions), owner uid \($0.owner)" } ?? ""
            return HandoffError(
                .storageFailed,
                "\(path) cannot be written (\(reason)\(mode)); a command that records payments writes it. Run as its owner or make it writable; reading commands (journal list, show, check) work as it is."
            )
        }
        var missing = false
        for side in [wal, shm] {
            guard let status = try JournalFiles.status(side) else {
                missing = true
                continue
            }
            if access(side, R_OK | W_OK) != 0 {
                // Gone meanwhile: the last connection of another process closed and removed it. SQLite makes it anew.
                if errno == ENOENT {
                    missing = true
                    continue
                }
                let reason = String(cString: strerror(errno))
                return HandoffError(
                    .storageFailed,
                    "\(side) cannot be written (\(reason); mode \(status.permissions), owner uid \(status.owner)): it is part of the journal, and SQLite writes it while the journal is open. Give it the owner and mode of \((path as NSString).lastPathComponent) (chown, chmod); never delete a -wal file: it can hold payments that are not in the journal file yet."
                )
            }
        }
        if missing, access(folder, W_OK | X_OK) != 0 {
            let reason = String(cString: strerror(errno))
            return HandoffError(
                .storageFailed,
                "The folder \(folder) cannot take new files (\(reason)): SQLite keeps \((wal as NSString).lastPathComponent) and \((shm as NSString).lastPathComponent) beside the journal while it is open for writing. Make the folder writable for the journal's user; reading commands work as it is."
            )
        }
        return nil
    }

    /// What ``noteDamage(_:)`` noted, or `nil` when the journal was not found damaged.
    func damageFinding() -> String? {
        guard let data = FileManager.default.contents(atPath: damageNote) else { return nil }
        let text = String(decoding: data.prefix(1024), as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Notes beside the journal that it was found damaged (`finding`: when, and the first problem), so that writers
    /// refuse it (``PaymentJournal/OpenMode/create`` and ``PaymentJournal/OpenMode/existing``) until it is moved aside
    /// or repaired. The journal and its side files are not touched. Returns whether the note could be written (not in
    /// a folder the process cannot write).
    @discardableResult
    func noteDamage(_ finding: String) -> Bool {
        guard damageFinding() == nil else { return true }
        let text = Redaction.redact(finding, limit: 1000) ?? ""
        return (try? Data((text + "\n").utf8).write(to: URL(fileURLWithPath: damageNote), options: .atomic)) != nil
    }

    /// Syncs a folder, so that a name just made in it survives a power loss.
    static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// The first `count` bytes of a file (fewer when it is shorter).
    static func readPrefix(_ path: String, count: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw HandoffError(
                .storageFailed,
                "\(path) cannot be read (\(String(cString: strerror(errno)))); check its permissions."
            )
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            return Array(try file.read(upToCount: count) ?? Data())
        } catch {
            throw HandoffError(.storageFailed, "\(path) cannot be read (\(error)); check the disk and its permissions.")
        }
    }
}

extension timespec {
    /// A `timespec` as a value that can be compared.
    struct Value: Sendable, Hashable {
        var seconds: Int64
        var nanoseconds: Int64

        init(_ time: timespec) {
            seconds = Int64(time.tv_sec)
            nanoseconds = Int64(time.tv_nsec)
        }
    }
}
