import Foundation

/// What a writer checks of the `-wal` beside a journal before SQLite copies it in: that it is this journal's, where
/// that can be known.
///
/// A `-wal` is applied by the first connection that opens the journal after the last one closed without copying it
/// in (a crash): its committed frames, page images, replace the journal's pages. SQLite checks that the `-wal` is
/// whole (its header's and frames' checksums, its salts), not whose it is. Another journal's `-wal`, or an old one put
/// back beside the journal, is whole, and would replace the journal's payments with others. What can be known (SQLite's
/// file format: the WAL header, the frames, and the database header on the first page):
///
/// * The page size: the `-wal`'s header must have the journal file's.
/// * Whose it is: every image of the first page in the `-wal` holds the database header, whose `user_version` carries
///   the journal's tag (the first 24 bits of its ID, ``PaymentJournal/userVersion(journalID:)``) and whose
///   `application_id` is Tender's. An image with another tag was written for another journal.
/// * How old it is: each commit in a `-wal` says how many pages the journal has after it, and a journal never
///   shrinks (Tender never vacuums it; a copy-in leaves the file exactly as long as the pages it copied). A `-wal`
///   whose last commit leaves the journal shorter than the journal file is now was copied in already, and the journal
///   grew since: it is an old one, put back.
///
/// What cannot be known: a `-wal` with a `-shm` beside it (see below); a `-wal` that never rewrote the first page (a few answers recorded, nothing added that grew
/// the file) carries no tag, and one of another journal the same length as this one is applied as SQLite finds it;
/// so is an old `-wal` put back after changes that did not grow the journal file. Only frames SQLite would apply are looked at (those up to the last
/// commit whose checksums and salts are right); a `-wal` whose header is not whole holds nothing SQLite applies.
///
/// A `-wal` is looked at only when its `-shm` is not there: a process that has the journal open keeps both, and its
/// `-wal` changes under a reader. So a `-wal` put back together with a `-shm` is not looked at either: it is copied in
/// as SQLite finds it.
extension JournalFiles {
    /// Why the `-wal` must not be applied to the journal, or `nil` when it may be (or nothing is known against it).
    ///
    /// Only a `-wal` without its `-shm` is looked at: that is one no process has open (a connection to a journal in WAL
    /// mode keeps the `-shm` while it is open), which the next one to open copies in. A `-wal` in use is its
    /// processes', and changes while it is read: they check it as they go.
    func walProblem() throws -> HandoffError? {
        guard try JournalFiles.status(shm) == nil else { return nil }
        guard let status = try JournalFiles.status(wal), status.size >= 32 else { return nil }
        guard let log = FileHandle(forReadingAtPath: wal) else { return nil }  // unreadable: writeProblem says why
        defer { try? log.close() }
        let database = try JournalFiles.readPrefix(path, count: 100)
        guard database.count == 100 else { return nil }
        let header = try read(log, count: 32)
        guard let wal = WALHeader(header) else { return nil }
        let pageSizeField = JournalFiles.bigEndian(database, 16, bytes: 2) ?? 0
        let databasePageSize = pageSizeField == 1 ? 65_536 : Int(pageSizeField)
        guard wal.pageSize == databasePageSize else {
            return foreign("its pages are \(wal.pageSize) bytes, the journal's \(databasePageSize)")
        }
        // The frames SQLite would apply: whole (salts, running checksum) up to the last commit.
        var checksum = wal.checksum
        var firstPage: [UInt8]?
        var committedFirstPage: [UInt8]?
        var committedPages: UInt32?
        while true {
            let frame = try read(log, count: 24 + wal.pageSize)
            guard frame.count == 24 + wal.pageSize, Array(frame[8..<16]) == wal.salts else { break }
            checksum = WALHeader.checksum(
                Array(frame[0..<8]) + Array(frame[24...]),
                bigEndian: wal.bigEndian,
                from: checksum
            )
            guard JournalFiles.bigEndian(frame, 16) == checksum.0, JournalFiles.bigEndian(frame, 20) == checksum.1
            else {
                break
            }
            if JournalFiles.bigEndian(frame, 0) == 1 { firstPage = Array(frame[24..<124]) }
            if let pages = JournalFiles.bigEndian(frame, 4), pages != 0 {
                committedFirstPage = firstPage
                committedPages = pages
            }
        }
        // The journal tag (the low three bytes of user_version, offset 61; its top byte is the schema version, which
        // an upgrade raises) and application_id (offset 68) of the journal the frames were written for.
        if let image = committedFirstPage, image[61..<64] != database[61..<64] || image[68..<72] != database[68..<72] {
            return foreign("its pages were written for another journal (another journal tag in their header)")
        }
        let filePages = (try JournalFiles.status(path)?.size ?? 0) / Int64(wal.pageSize)
        if let pages = committedPages, Int64(pages) < filePages {
            return foreign(
                "it is older than the journal file: its last change leaves the journal \(pages) pages long, and the journal file has \(filePages) (an old -wal put back)"
            )
        }
        return nil
    }

    /// The refusal of a `-wal` that is not this journal's.
    private func foreign(_ why: String) -> HandoffError {
        HandoffError(
            .journalCorrupt,
            "\(wal) is not this journal's write-ahead log: \(why). Opening the journal for writing would copy it into \(path) and replace its payments; nothing was changed. Move \((wal as NSString).lastPathComponent) aside (keep it: it may hold payments of the journal it belongs to), with \((shm as NSString).lastPathComponent) if it is there, then try again."
        )
    }

    private func read(_ file: FileHandle, count: Int) throws -> [UInt8] {
        do {
            return Array(try file.read(upToCount: count) ?? Data())
        } catch {
            throw HandoffError(.storageFailed, "\(wal) cannot be read (\(error)); check the disk and its permissions.")
        }
    }

    /// The big-endian number of `bytes` bytes at `offset`, or `nil` when they are not there.
    static func bigEndian(_ data: [UInt8], _ offset: Int, bytes: Int = 4) -> UInt32? {
        guard offset >= 0, offset + bytes <= data.count else { return nil }
        return data[offset..<offset + bytes].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// A WAL file's 32-byte header (SQLite's file format, "The WAL file header"), read only when it is whole: its magic
/// number and format version, and its checksum right.
struct WALHeader {
    /// Whether the checksums add big-endian words (magic `0x377f0683`) or little-endian ones (`0x377f0682`).
    var bigEndian: Bool
    var pageSize: Int
    /// Salt-1 and salt-2, as they are in every frame of this log.
    var salts: [UInt8]
    /// The header's checksum: the seed of the first frame's.
    var checksum: (UInt32, UInt32)

    init?(_ bytes: [UInt8]) {
        guard bytes.count == 32, let magic = JournalFiles.bigEndian(bytes, 0),
            magic == 0x377F_0682 || magic == 0x377F_0683, JournalFiles.bigEndian(bytes, 4) == 3_007_000,
            let pageSize = JournalFiles.bigEndian(bytes, 8)
        else { return nil }
        bigEndian = magic == 0x377F_0683
        let computed = WALHeader.checksum(Array(bytes[0..<24]), bigEndian: bigEndian, from: (0, 0))
        guard JournalFiles.bigEndian(bytes, 24) == computed.0, JournalFiles.bigEndian(bytes, 28) == computed.1 else {
            return nil
        }
        self.pageSize = Int(pageSize)
        salts = Array(bytes[16..<24])
        checksum = computed
    }

    /// SQLite's WAL checksum of `data` (a multiple of 8 bytes), continued from `seed`: pairs of 32-bit words, each
    /// sum wrapping.
    static func checksum(_ data: [UInt8], bigEndian: Bool, from seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = 0
        func word(_ at: Int) -> UInt32 {
            let bytes = data[at..<at + 4]
            let value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
            return bigEndian ? value : value.byteSwapped
        }
        while index + 8 <= data.count {
            s0 = s0 &+ word(index) &+ s1
            s1 = s1 &+ word(index + 4) &+ s0
            index += 8
        }
        return (s0, s1)
    }
}
