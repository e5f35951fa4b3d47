import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

/// The bytes of the journal's three files (`nil` for one that is not there).
func journalFiles(_ path: String) -> [String: Data?] {
    var files: [String: Data?] = [:]
    for suffix in ["", "-wal", "-shm", "-journal"] {
        files[suffix] = FileManager.default.contents(atPath: path + suffix)
    }
    return files
}

/// Pays `count` payments and answers every other one, acknowledging half of those.
func fill(_ journal: PaymentJournal, payments count: Int) async throws {
    let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
    for index in 0..<count {
        let prepared = try coordinator.prepare(SquareFixture.request(minorUnits: 100 + index))
        guard index % 2 == 0 else { continue }
        let entry = try #require(try await coordinator.handle(try SquareFixture.reply(to: prepared.url))?.entry)
        if index % 4 == 0 { try coordinator.acknowledge(entry) }
    }
}

@Suite("Journal file: opening, reading without writing, backups, migrations, what is not a journal")
struct JournalFileTests {
    @Test(
        "every query the hand-off, recover() and the CLI run reads an index of the rows it wants (EXPLAIN QUERY PLAN)"
    )
    func queryPlans() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        try await fill(journal, payments: 40)
        // The index each set-reading query must use: one whose entries are the rows it wants.
        let expected = [
            "pending": "payment_pending", "overdue": "payment_pending", "undelivered": "payment_undelivered",
            "prune": "payment_prunable", "list": "payment_by_creation", "listState": "payment_by_state",
            "entryByToken": "handoff_token USING PRIMARY KEY", "unreconciled": "payment_unreconciled",
            "namingPayments": "payment_by_transaction", "history": "payment_event_by_payment",
        ]
        try await journal.pool.read { db in
            for (name, sql) in JournalSQL.all {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: nulls(sql))
                    .map { $0["detail"] as String? ?? "" }
                for step in plan {
                    // A whole-table scan, or a sort of what was read, would grow with the history.
                    #expect(!step.hasPrefix("SCAN payment") || step.contains("INDEX"), "\(name): \(plan)")
                    #expect(!step.hasPrefix("SCAN handoff_token") && !step.hasPrefix("SCAN payment_event"), "\(name)")
                    #expect(!step.contains("TEMP B-TREE"), "\(name): \(plan)")
                }
                if let index = expected[name] {
                    #expect(plan.contains { $0.contains(index) }, "\(name): \(plan)")
                }
            }
        }
    }

    @Test("a listing reads in pages: every payment once, in creation order, for one state, several, a limit, a date")
    func listingInPages() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let clock = ManualClock()
        let journal = try PaymentJournal(path: path, clock: clock)
        // 1,200 payments, half answered (completed), a few at the same millisecond: more than two pages.
        try await fill(journal, payments: 1_200)
        let all = try await journal.pool.read { db in
            try PaymentRecord.fetchAll(db, sql: "SELECT \(JournalEntry.columns) FROM payment ORDER BY created_at, id")
                .map(\.entry)
        }
        #expect(all.count == 1_200)
        let reader = try PaymentJournal(path: path, clock: clock, mode: .readOnly)
        for listed in [journal, reader] {
            func ids(_ filter: JournalFilter) throws -> [PaymentID] {
                var ids: [PaymentID] = []
                try listed.forEachEntry(matching: filter) { ids.append($0.id) }
                return ids
            }
            #expect(try ids(JournalFilter()) == all.map(\.id))
            #expect(try ids(JournalFilter(states: [.completed])) == all.filter { $0.state == .completed }.map(\.id))
            #expect(try ids(JournalFilter(states: [.pending, .completed])) == all.map(\.id))
            #expect(try ids(JournalFilter(states: [.pending, .completed], limit: 700)) == all.prefix(700).map(\.id))
            #expect(try ids(JournalFilter(limit: 500)) == all.prefix(500).map(\.id))
            let since = all[900].createdAt
            #expect(try ids(JournalFilter(createdSince: since)) == all.filter { $0.createdAt >= since }.map(\.id))
            #expect(try ids(JournalFilter(states: [.unknown])).isEmpty)
        }
    }

    @Test("opening does constant-time work: a damaged page that opening does not read is found by check(full:) only")
    func openingDoesNotCheckEverything() async throws {
        let directory = TemporaryDirectory()
        // A leaf page of the payments' history, which opening never reads, is damaged.
        let path = try await DamageAndForeignFilesTests.damagedJournal(directory)
        // Both open (the old journal ran integrity_check at every open and refused it here)...
        let journal = try PaymentJournal(path: path, clock: ManualClock(), mode: .existing)
        let readOnly = try PaymentJournal(path: path, clock: ManualClock(), mode: .readOnly)
        // ...and the check on demand finds the damage: it lists it, or meets a page too damaged to go on.
        for journal in [journal, readOnly] {
            do {
                #expect(try journal.check(full: true) != ["ok"])
            } catch let error as HandoffError {
                #expect(error.code == .journalCorrupt)
            }
        }
    }

    @Test("reading never writes: no side file made, and the file's bytes the same, closed or after a crash")
    func readingNeverWrites() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let writer = try PaymentJournal(path: path, clock: ManualClock())
        try await fill(writer, payments: 12)
        // A process that ended without closing: its three files as they are while it runs.
        let crashed = directory.path("crashed.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + suffix)
        }
        let expected = try writer.entries()
        try writer.close()
        #expect(FileManager.default.fileExists(atPath: path + "-wal") == false)

        for file in [path, crashed] {
            let before = journalFiles(file)
            let journal = try PaymentJournal(path: file, clock: ManualClock(), mode: .readOnly)
            #expect(try journal.entries() == expected)
            #expect(try journal.entry(expected[3].id) == expected[3])
            #expect(try journal.undeliveredEntries().count == expected.filter(\.isUndelivered).count)
            #expect(try journal.check(full: true) == ["ok"])
            #expect(try journal.check(full: false) == ["ok"])
            #expect(journalFiles(file) == before, "\(file)")
            // A change is refused, and writes nothing either.
            expectError(.storageFailed) { try journal.acknowledge(expected[0]) }
            #expect(journalFiles(file) == before)
        }
        #expect(journalFiles(crashed)["-wal"] != nil, "the crashed journal's payments were in its -wal")
    }

    @Test("close() copies everything into the journal file: the file alone, copied elsewhere, has every payment")
    func closeCheckpoints() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let journal = try PaymentJournal(path: path, clock: ManualClock())
        try await fill(journal, payments: 11)
        let expected = try journal.entries()
        #expect(try JournalFiles.status(path + "-wal")?.size ?? 0 > 0, "payments were in the -wal before close")
        try journal.close()
        try journal.close()  // twice: nothing
        expectError(.storageFailed) { try journal.entries() }
        let alone = directory.path("alone.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        #expect(try PaymentJournal(path: alone, clock: ManualClock(), mode: .readOnly).entries() == expected)
    }

    @Test("a backup made while another task pays is one consistent file with every payment committed before it")
    func backupWhilePaying() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let journal = try PaymentJournal(path: path, clock: ManualClock())
        try await fill(journal, payments: 50)
        let before = Set(try journal.entries().map(\.id))
        let paying = Task.detached {
            let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
            for index in 0..<60 { _ = try coordinator.prepare(SquareFixture.request(minorUnits: 5_000 + index)) }
        }
        var copies: [String] = []
        for round in 0..<4 {
            let copy = directory.path("backup-\(round).sqlite")
            _ = try journal.backup(to: copy)
            copies.append(copy)
        }
        try await paying.value
        let after = Set(try journal.entries().map(\.id))
        for copy in copies {
            #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
            let restored = try PaymentJournal(path: copy, clock: ManualClock(), mode: .readOnly)
            #expect(try restored.check(full: true) == ["ok"])
            let ids = Set(try restored.entries().map(\.id))
            #expect(before.isSubset(of: ids) && ids.isSubset(of: after))
        }
        // Never over an existing file.
        let error = #expect(throws: HandoffError.self) { try journal.backup(to: copies[0]) }
        #expect(error?.message.contains("never overwrites") == true)
    }

    @Test("eight journals opening one new file at once all succeed with one schema, again and again")
    func concurrentFirstOpens() async throws {
        for _ in 0..<10 {
            let directory = TemporaryDirectory()
            let path = directory.path("journal.sqlite")
            let results = await withTaskGroup(of: Result<Int?, any Error>.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        Result {
                            let journal = try PaymentJournal(path: path, clock: ManualClock())
                            defer { try? journal.close() }
                            return try journal.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
                                .map { $0 >> 24 }
                        }
                    }
                }
                var all: [Result<Int?, any Error>] = []
                for await result in group { all.append(result) }
                return all
            }
            for result in results {
                #expect(try result.get() == PaymentJournal.schemaVersion)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.contains(".new-") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test(
        "what is not a journal is an error naming the file, and is left as it was",
        arguments: ["empty", "directory", "other application", "no tables", "not SQLite"]
    )
    func notAJournal(kind: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        var expected: HandoffError.Code = .notAJournal
        switch kind {
        case "empty":
            _ = FileManager.default.createFile(atPath: path, contents: Data())
        case "directory":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        case "other application", "no tables":
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                if kind == "other application" {
                    try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
                    try db.execute(sql: "INSERT INTO notes (text) VALUES ('mine')")
                } else {
                    try db.execute(sql: "PRAGMA user_version = 3")
                }
            }
            try queue.close()
        default:
            expected = .journalCorrupt
            try Data("not a database, not even close".utf8).write(to: URL(fileURLWithPath: path))
        }
        let before = journalFiles(path)
        for mode in [PaymentJournal.OpenMode.create, .existing, .readOnly] {
            let error = #expect(throws: HandoffError.self, "\(kind), \(mode)") {
                try PaymentJournal(path: path, clock: ManualClock(), mode: mode)
            }
            #expect(error?.code == expected, "\(kind), \(mode): \(String(describing: error))")
            #expect(error?.message.contains(path) == true, "\(String(describing: error?.message))")
            if kind == "directory" { #expect(error?.message.contains("is a directory") == true) }
            #expect(journalFiles(path) == before, "\(kind), \(mode): the file was changed")
        }
    }

    @Test("only OpenMode.create makes a journal where nothing is; the others say there is none")
    func missingJournal() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("nested/journal.sqlite")
        for mode in [PaymentJournal.OpenMode.existing, .readOnly] {
            expectError(.journalNotFound) { try PaymentJournal(path: path, clock: ManualClock(), mode: mode) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        let journal = try PaymentJournal(path: path, clock: ManualClock())
        #expect(try journal.entries().isEmpty)
        #expect(try PaymentJournal(path: path, clock: ManualClock(), mode: .existing).entries().isEmpty)
    }

    @Test("a read-only or full disk is said to be one, never 'could not be read (… attempt to write …)'")
    func openErrorsSayWhatHappened() {
        let path = "/tmp/journal.sqlite"
        let readOnly = PaymentJournal.openingError(
            DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database"),
            path: path
        )
        #expect(readOnly.message.contains("could not be written: it, its -wal or -shm, or its folder is read-only"))
        let full = PaymentJournal.storageError(
            DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full"),
            writing: false,
            path: path
        )
        #expect(full.message.contains("the disk is full"))
        // SQLite's own error is kept, not only its words (issue 25).
        #expect((full.underlyingError as? DatabaseError)?.resultCode == .SQLITE_FULL)
        for error in [readOnly, full] {
            #expect(!error.message.contains("could not be read"), "\(error.message)")
            #expect(error.message.contains(path))
        }
    }

    @Test("a journal of a development build (GRDB's migration rows v1…v8) is refused, named, and left as it was")
    func developmentJournalRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        try makeDevelopmentJournal(at: path)
        let before = journalFiles(path)
        for mode in [PaymentJournal.OpenMode.create, .existing, .readOnly] {
            let error = #expect(throws: HandoffError.self, "\(mode)") {
                try PaymentJournal(path: path, clock: ManualClock(), mode: mode)
            }
            #expect(error?.code == .journalTooOld, "\(mode): \(String(describing: error))")
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("Move it aside") == true)
            #expect(journalFiles(path) == before, "\(mode): the file was changed")
        }
    }

    /// A journal as Tender's schema 2 wrote it, at `path`, holding one completed Square payment: made with today's
    /// schema, then taken back to schema 2's shape (its two later columns and its older reconciliation index).
    static func makeSchema2Journal(at path: String) async throws -> PaymentID {
        let journal = try PaymentJournal(path: path, clock: ManualClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let prepared = try coordinator.prepare(SquareFixture.request())
        _ = try await coordinator.handle(try SquareFixture.reply(to: prepared.url, transactionID: "O1"))
        try journal.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            try db.execute(
                sql: """
                    DROP INDEX payment_unreconciled;
                    DROP INDEX payment_contested;
                    ALTER TABLE payment DROP COLUMN square_application_id;
                    ALTER TABLE payment DROP COLUMN contested_at;
                    CREATE INDEX payment_unreconciled ON payment (created_at, id) WHERE verification IS NULL
                        AND (state = 'unknown' OR state = 'pending' OR state = 'tampered' OR (state = 'completed'
                        AND outcome_source = 'callback' AND (provider = 'square' OR provider = 'sumup'))
                        OR (disputed_at IS NOT NULL AND state <> 'resolved'));
                    PRAGMA user_version = \(2 << 24 | version & 0xFF_FFFF);
                    """
            )
            _ = try db.checkpoint(.truncate)
        }
        try queue.close()
        return prepared.entry.id
    }

    @Test(
        "a schema-2 journal is upgraded in place when first opened for writing, keeping every payment; read-only before that is refused, naming what to do"
    )
    func schema2Upgraded() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let id = try await Self.makeSchema2Journal(at: path)
        let before = journalFiles(path)
        let refused = #expect(throws: HandoffError.self) {
            try PaymentJournal(path: path, clock: ManualClock(), mode: .readOnly)
        }
        #expect(refused?.code == .journalUpgradeNeeded, "\(String(describing: refused))")
        #expect(refused?.message.contains(path) == true && refused?.message.contains("opened for writing") == true)
        #expect(journalFiles(path) == before, "a read-only open changed the file")

        let journal = try PaymentJournal(path: path, clock: ManualClock(), mode: .existing)
        let entry = try #require(try journal.entry(id))
        #expect(entry.state == .completed && entry.outcome?.transactionID == "O1")
        #expect(entry.squareApplicationID == nil && entry.contestedAt == nil)
        try await journal.pool.read { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version").map { $0 >> 24 } == PaymentJournal.schemaVersion)
            let index = try String.fetchOne(
                db,
                sql: "SELECT sql FROM sqlite_master WHERE name = 'payment_unreconciled'"
            )
            #expect(index?.contains("contested_at IS NULL") == true)
            #expect(try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE name = 'payment_contested'") == true)
        }
        // The upgraded journal is the journal a new one is: it pays, and its unverified payment is reconciled.
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let next = try coordinator.prepare(SquareFixture.request())
        #expect(next.entry.squareApplicationID == "sq0idp-TenderTests")
        #expect(try journal.unreconciledEntries(after: nil, limit: 10).map(\.id) == [id])
        #expect(try journal.check(full: true) == ["ok"])
        try journal.close()
        // Opened again, read-only too: nothing more to do.
        let reopened = try PaymentJournal(path: path, clock: ManualClock(), mode: .readOnly)
        #expect(try reopened.entry(id)?.id == id)
        try reopened.close()
    }

    @Test("prune never deletes a pending, unknown, not-opened or unacknowledged payment (REL-9)")
    func pruneKeepsOpenWork() async throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let kept = try coordinator.prepare(SquareFixture.request())  // stays pending, then expires to unknown
        let notOpened = try coordinator.prepare(SquareFixture.request())
        let marked = try #require(try journal.markOpenFailed(notOpened.entry.id, handoff: 1))
        #expect(marked.state == .notOpened)
        try coordinator.acknowledge(marked)
        let ended = try coordinator.prepare(SquareFixture.request())
        let completed = try #require(try await coordinator.handle(try SquareFixture.reply(to: ended.url))?.entry)
        try coordinator.acknowledge(completed)
        let unacknowledged = try coordinator.prepare(SquareFixture.request())
        _ = try await coordinator.handle(try SquareFixture.reply(to: unacknowledged.url))
        clock.advance(by: 86_400)
        let expired = try journal.expireOverduePayments()
        #expect(expired.map(\.id) == [kept.entry.id])
        for entry in expired { try coordinator.acknowledge(entry) }
        clock.advance(by: 400 * 86_400)
        #expect(try journal.prune(retention: .seconds(1)) == 1)
        let left = Set(try journal.entries().map(\.id))
        #expect(left == [kept.entry.id, notOpened.entry.id, unacknowledged.entry.id])
        // The acknowledged unknown and not-opened payments, never pruned, are not in prune's index either: its
        // size is what prune may delete, not what it has to read past for ever (issue 23).
        let indexed = try await journal.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM payment INDEXED BY payment_prunable WHERE \(Self.prunable)")
        }
        #expect(indexed == 0)
    }

    /// The condition of `payment_prunable`, as a query must write it to use the index.
    static let prunable = """
        acknowledged_at IS NOT NULL AND (state = 'completed' OR state = 'late' OR state = 'resolved')
        """

    @Test("prune deletes in batches of 500, the oldest first; recover() prunes one batch a launch (issue 23)")
    func pruneInBatches() async throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        let coordinator = HandoffCoordinator(
            journal: journal,
            opener: ScriptedOpener(),
            configuration: .init(retention: .seconds(86_400))
        )
        // 1,205 ended, acknowledged payments, each a second older than the next, copied from one real one.
        let ended = try coordinator.prepare(SquareFixture.request())
        let completed = try #require(try await coordinator.handle(try SquareFixture.reply(to: ended.url))?.entry)
        try coordinator.acknowledge(completed)
        try await journal.pool.write { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('payment')")
            let copied = columns.map { column in
                switch column {
                case "id": "'old-' || n"
                case "idempotency_key": "lower(hex(randomblob(16)))"
                case "updated_at": "updated_at - 10000 + n"
                default: column
                }
            }
            try db.execute(
                sql: """
                    WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM numbers WHERE n < 1205)
                    INSERT INTO payment (\(columns.joined(separator: ", ")))
                    SELECT \(copied.joined(separator: ", ")) FROM payment, numbers WHERE payment.id = ?
                    """,
                arguments: [completed.id.rawValue]
            )
        }
        clock.advance(by: 2 * 86_400)
        let oldest = try await journal.pool.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM payment ORDER BY updated_at, id LIMIT 500")
        }
        #expect(try coordinator.recover().prunedCount == 500)
        #expect(try oldest.allSatisfy { try journal.entry(PaymentID(rawValue: $0)!) == nil })
        #expect(try journal.prune(retention: .seconds(86_400), limit: 10) == 10)
        #expect(try journal.prune(retention: .seconds(86_400)) == 696)
        #expect(try journal.entries().isEmpty)
    }
}
