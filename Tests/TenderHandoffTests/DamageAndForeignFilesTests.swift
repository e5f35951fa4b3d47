import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

/// Issue 32, "Damage and foreign files": a journal a check found damaged is refused by writers; a `-wal` that is not
/// the journal's is never copied in; a killed backup's leftovers are removed by the next backup.
@Suite("Damage is refused, foreign files are not applied")
struct DamageAndForeignFilesTests {
    /// A journal of `count` payments whose history has one damaged leaf page, which paying never reads.
    static func damagedJournal(_ directory: TemporaryDirectory, count: Int = 300) async throws -> String {
        let path = directory.path("journal.sqlite")
        let page: Int
        do {
            let journal = try PaymentJournal(path: path, clock: ManualClock())
            try await fill(journal, payments: count)
            page = try await #require(
                try journal.pool.read { db in
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT pageno FROM dbstat WHERE name = 'payment_event' AND pagetype = 'leaf' LIMIT 1 OFFSET 2"
                    )
                }
            )
            try journal.close()
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(page - 1) * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        return path
    }

    @Test("a journal a check found damaged is refused by writers, though paying would not touch the damage")
    func damageFoundIsRefused() async throws {
        let directory = TemporaryDirectory()
        let path = try await Self.damagedJournal(directory)
        // Paying does not read the damaged page: without the finding, it would commit on the damaged file.
        let reader = try PaymentJournal(path: path, clock: ManualClock(), mode: .readOnly)
        #expect(!FileManager.default.fileExists(atPath: reader.damageNotePath))
        do {
            // The check lists the problems, or meets a page too damaged to go on: noted either way.
            #expect(try reader.check(full: true) != ["ok"])
        } catch let error as HandoffError {
            #expect(error.code == .journalCorrupt)
        }
        #expect(FileManager.default.fileExists(atPath: reader.damageNotePath))
        for mode in [PaymentJournal.OpenMode.create, .existing] {
            let error = #expect(throws: HandoffError.self, "\(mode)") {
                try PaymentJournal(path: path, clock: ManualClock(), mode: mode)
            }
            #expect(error?.code == .journalCorrupt)
            #expect(error?.message.contains("found damaged") == true && error?.message.contains("refused") == true)
        }
        // Reading goes on: what is not damaged can still be read and backed up.
        #expect(try PaymentJournal(path: path, clock: ManualClock(), mode: .readOnly).entries().count == 300)
    }

    @Test("a writer that meets damage notes it: the next writer is refused whatever pages it touches")
    func damageMetIsNoted() async throws {
        let directory = TemporaryDirectory()
        let path = try await Self.damagedJournal(directory)
        let journal = try PaymentJournal(path: path, clock: ManualClock(), mode: .existing)
        // Reading every history row meets the damaged page.
        let error = #expect(throws: HandoffError.self) {
            try journal.read { db in try Row.fetchAll(db, sql: "SELECT * FROM payment_event") }
        }
        #expect(error?.code == .journalCorrupt)
        try journal.close()
        expectError(.journalCorrupt) { try PaymentJournal(path: path, clock: ManualClock(), mode: .existing) }
    }

    /// Copies the journal file and its `-wal`, as they are while `journal` has them open, to `copy`: the files a
    /// process leaves when it is killed.
    static func copyOpenFiles(of journal: PaymentJournal, to copy: String) throws {
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: journal.path + suffix, toPath: copy + suffix)
        }
    }

    @Test("the -wal a killed process left is still copied in: its payments are kept")
    func crashLeftoverApplied() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        try await fill(journal, payments: 40)
        let crashed = directory.path("crashed.sqlite")
        try Self.copyOpenFiles(of: journal, to: crashed)
        #expect(try JournalFiles(path: crashed).walProblem() == nil)
        let reopened = try PaymentJournal(path: crashed, clock: ManualClock(), mode: .existing)
        #expect(try reopened.entries().count == 40)
        #expect(try reopened.check(full: true) == ["ok"])
    }

    @Test("a -wal other processes have open (its -shm beside it) is theirs: not looked at while it changes")
    func liveWALNotJudged() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        try await fill(journal, payments: 20)
        #expect(FileManager.default.fileExists(atPath: journal.path + "-shm"))
        // Even one that would be refused on its own: a process opening the journal now joins the ones that use it.
        let other = try PaymentJournal(path: directory.path("other.sqlite"), clock: ManualClock())
        try await fill(other, payments: 40)
        let files = JournalFiles(path: journal.path)
        try FileManager.default.removeItem(atPath: files.wal)
        try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: files.wal)
        #expect(try files.walProblem() == nil)
        try FileManager.default.removeItem(atPath: files.shm)
        #expect(try files.walProblem()?.code == .journalCorrupt)
    }

    @Test("another journal's -wal beside a journal is refused, and the journal keeps its payments")
    func foreignWALRefused() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        do {
            let journal = try PaymentJournal(path: path, clock: ManualClock())
            try await fill(journal, payments: 20)
            try journal.close()
        }
        let other = try PaymentJournal(path: directory.path("other.sqlite"), clock: ManualClock())
        try await fill(other, payments: 20)
        try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: path + "-wal")
        let before = journalFiles(path)
        for mode in [PaymentJournal.OpenMode.create, .existing] {
            let error = #expect(throws: HandoffError.self, "\(mode)") {
                try PaymentJournal(path: path, clock: ManualClock(), mode: mode)
            }
            #expect(error?.code == .journalCorrupt)
            #expect(error?.message.contains("another journal") == true, "\(String(describing: error?.message))")
            #expect(error?.message.contains("Move journal.sqlite-wal aside") == true)
        }
        #expect(journalFiles(path) == before, "nothing was copied in")
        try FileManager.default.removeItem(atPath: path + "-wal")
        #expect(try PaymentJournal(path: path, clock: ManualClock(), mode: .existing).entries().count == 20)
    }

    @Test("an old -wal put back beside the journal is refused: the payments made since are not replaced")
    func oldWALRefused() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let old = directory.path("old-wal")
        do {
            let journal = try PaymentJournal(path: path, clock: ManualClock())
            try await fill(journal, payments: 20)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: old)
            try await fill(journal, payments: 40)
            try journal.close()
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        try FileManager.default.copyItem(atPath: old, toPath: path + "-wal")
        let error = #expect(throws: HandoffError.self) {
            try PaymentJournal(path: path, clock: ManualClock(), mode: .existing)
        }
        #expect(error?.code == .journalCorrupt)
        #expect(error?.message.contains("older than the journal file") == true, "\(String(describing: error?.message))")
        try FileManager.default.removeItem(atPath: path + "-wal")
        #expect(try PaymentJournal(path: path, clock: ManualClock(), mode: .existing).entries().count == 60)
    }

    @Test("a backup removes what a killed backup to the same file left, and nothing else")
    func backupRemovesLeftovers() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        try await fill(journal, payments: 4)
        let destination = directory.path("copy.sqlite")
        let leftover = "\(destination).partial-\(UUID().uuidString.lowercased())"
        let unrelated = [destination + ".partial-notes", directory.path("other.sqlite.partial-\(UUID())")]
        for file in [leftover, leftover + "-wal", leftover + "-journal"] + unrelated {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("half a copy".utf8)))
        }
        #expect(try journal.backup(to: destination) == 4)
        for file in [leftover, leftover + "-wal", leftover + "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: file), "\(file)")
        }
        for file in unrelated { #expect(FileManager.default.fileExists(atPath: file), "\(file)") }
    }

    @Test("every journal has its own ID, whose first 24 bits are in its header")
    func journalID() throws {
        let directory = TemporaryDirectory()
        let first = try PaymentJournal(path: directory.path("a.sqlite"), clock: ManualClock())
        let second = try PaymentJournal(path: directory.path("b.sqlite"), clock: ManualClock())
        #expect(try first.journalID() != second.journalID())
        let version = try first.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == PaymentJournal.userVersion(journalID: try first.journalID()))
        #expect(version.map { $0 >> 24 } == PaymentJournal.schemaVersion)
    }
}
