import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

@Suite("Journal: file, schema, integrity, retention")
struct JournalTests {
    @Test("the journal is a WAL file with synchronous=FULL, its application ID and schema version (REL-1, REL-7)")
    func fileSettings() throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("nested/dir/journal.sqlite"), clock: ManualClock())
        let (mode, synchronous, version) = try journal.pool.write { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA user_version")
            )
        }
        #expect(mode == "wal")
        #expect(synchronous == 2)  // FULL
        #expect(version.map { $0 >> 24 } == PaymentJournal.schemaVersion)
        #expect(try journal.pool.read { try Int.fetchOne($0, sql: "PRAGMA application_id") } == 0x544E_4452)
        #expect(try journal.check(full: true) == ["ok"])
    }

    @Test("no statement the journal runs builds a temporary index (checks without IN lists)")
    func noEphemeralIndexes() throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        try journal.pool.read { db in
            // Not `prune`: it runs at launch, and deleting through the cascade to the token table needs one.
            for (name, sql) in JournalSQL.all where name != "prune" {
                let program = try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: nulls(sql))
                let opcodes = program.map { $0["opcode"] as String? }
                #expect(opcodes.contains("Insert") || opcodes.contains("ResultRow") || opcodes.contains("Delete"))
                // A temporary index has a key (`k(…)` in P4): what an `IN` list of more than two values builds each
                // time the statement runs. `RETURNING` keeps its rows in a temporary table, without one.
                let indexes = program.filter {
                    $0["opcode"] as String? == "OpenEphemeral" && ($0["p4"] as String?)?.hasPrefix("k(") == true
                }
                #expect(indexes.isEmpty, "\(name)")
            }
        }
    }

    @Test("the payment table refuses states, outcomes and sources outside the state machine")
    func checksStillHold() throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let id = try coordinator.prepare(SquareFixture.request()).entry.id.rawValue
        let refused = [
            "UPDATE payment SET state = 'paid' WHERE id = ?",
            "UPDATE payment SET state = 'completed' WHERE id = ?",  // an ended state needs an outcome
            "UPDATE payment SET outcome_status = 'approved' WHERE id = ?",  // an outcome needs its source
            "UPDATE payment SET outcome_status = 'ok', outcome_source = 'callback' WHERE id = ?",
            "UPDATE payment SET outcome_status = 'approved', outcome_source = 'guess' WHERE id = ?",
            "UPDATE payment SET verification = 'maybe' WHERE id = ?",
        ]
        for sql in refused {
            #expect(throws: DatabaseError.self, "\(sql)") {
                try journal.pool.write { db in try db.execute(sql: sql, arguments: [id]) }
            }
        }
        try journal.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE payment SET state = 'late', outcome_status = 'declined', outcome_source = 'manual',
                        outcome_assurance = 'reported_by_pos_app'
                    WHERE id = ?
                    """,
                arguments: [id]
            )
        }
        #expect(try journal.entry(PaymentID(validating: id))?.state == .late)
    }

    @Test("a file that is not a journal is reported as corrupt, not replaced (REL-7)")
    func garbageFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        expectError(.journalCorrupt) { try PaymentJournal(path: path, clock: ManualClock()) }
        #expect(FileManager.default.contents(atPath: path) == garbage)
    }

    @Test("a journal whose pages were damaged opens in constant time, fails check(full:) and refuses new hand-offs")
    func damagedPages() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        do {
            let journal = try PaymentJournal(path: path, clock: ManualClock())
            let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
            for _ in 0..<200 { _ = try coordinator.prepare(SquareFixture.request()) }
            try journal.close()
        }
        // Overwrite the middle of the file (index and table pages) with noise, keeping the header and the schema.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4096 * 3)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size) - 4096 * 4))
        try handle.close()
        // Opening reads the header and the schema only (REL-7: the check runs on demand); it may still meet a damaged
        // page of the schema, and then says the journal is damaged.
        let journal: PaymentJournal
        do {
            journal = try PaymentJournal(path: path, clock: ManualClock(), mode: .existing)
        } catch let error as HandoffError {
            #expect(error.code == .journalCorrupt)
            return
        }
        for full in [true, false] {
            // The check lists the problems, or meets a page too damaged to go on: either way, not "ok".
            do {
                #expect(try journal.check(full: full) != ["ok"])
            } catch let error as HandoffError {
                #expect(error.code == .journalCorrupt)
            }
        }
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        expectError(.journalCorrupt) {
            for _ in 0..<50 { _ = try coordinator.prepare(SquareFixture.request()) }
        }
    }

    @Test("a row changed outside Tender is reported as a damaged journal, never a crash")
    func rowChangedOutside() throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let prepared = try coordinator.prepare(SquareFixture.request())
        #expect(try journal.entry(prepared.entry.id) == prepared.entry)
        for (column, value) in [("idempotency_key", "not-a-uuid"), ("currency", "EURO"), ("state", "paid")] {
            try journal.pool.write { db in
                try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                try db.execute(
                    sql: "UPDATE payment SET \(column) = ? WHERE idempotency_key = ?",
                    arguments: [value, prepared.entry.idempotencyKey.uuidString.lowercased()]
                )
            }
            let error = #expect(throws: HandoffError.self) { try journal.entries() }
            #expect(error?.code == .journalCorrupt, "\(column)")
            #expect(error?.message.contains(column) == true, "\(String(describing: error?.message))")
            let original: [String: String] = [
                "idempotency_key": prepared.entry.idempotencyKey.uuidString.lowercased(),
                "currency": prepared.entry.amount.currency.code, "state": "pending",
            ]
            try journal.pool.write { db in
                try db.execute(
                    sql: "UPDATE payment SET \(column) = ? WHERE \(column) = ?",
                    arguments: [original[column], value]
                )
            }
            #expect(try journal.entry(prepared.entry.id) == prepared.entry)
        }
    }

    @Test("a journal from a newer Tender is refused")
    func tooNew() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        do {
            let journal = try PaymentJournal(path: path, clock: ManualClock())
            try journal.pool.write { db in
                try db.execute(sql: "PRAGMA user_version = \((PaymentJournal.schemaVersion + 1) << 24)")
            }
        }
        expectError(.journalTooNew) { try PaymentJournal(path: path, clock: ManualClock()) }
    }

    @Test("ended, acknowledged payments are pruned after the retention window; others are kept (REL-9)")
    func retention() async throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())

        let acknowledged = try coordinator.prepare(SquareFixture.request())
        let receipt = try #require(try await coordinator.handle(try SquareFixture.reply(to: acknowledged.url)))
        try coordinator.acknowledge(try #require(receipt.entry))
        let unacknowledged = try coordinator.prepare(SquareFixture.request())
        _ = try await coordinator.handle(try SquareFixture.reply(to: unacknowledged.url))
        let pending = try coordinator.prepare(SquareFixture.request())

        clock.advance(by: 89 * 86_400)
        #expect(try coordinator.recover().prunedCount == 0)
        clock.advance(by: 2 * 86_400)
        let recovery = try coordinator.recover()
        #expect(recovery.prunedCount == 1)
        #expect(try journal.entry(acknowledged.entry.id) == nil)
        #expect(try journal.entry(unacknowledged.entry.id)?.state == .completed)
        // The pending one expired long ago: unknown, never pruned, needs reconciliation.
        #expect(try journal.entry(pending.entry.id)?.state == .unknown)
        #expect(try await journal.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM handoff_token") } == 2)
    }

    @Test("a statement that fails mid-transaction rolls it back whole, names SQLite's error, and the journal goes on")
    func failedStatement() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        func draft(_ digest: UInt8) -> HandoffDraft {
            HandoffDraft(
                id: PaymentID(),
                provider: .square,
                amount: Money(minorUnits: 100, currency: .usd),
                endpoints: ["tender-test://done"],
                tokenDigest: [UInt8](repeating: digest, count: 32),
                lifetime: .seconds(900)
            )
        }
        _ = try journal.begin(draft(1), reopening: false)
        // The same token digest again: the payment row goes in, then the token's insert breaks its primary key.
        let clash = draft(1)
        do {
            _ = try journal.begin(clash, reopening: false)
            Issue.record("a second payment with the same token digest was written")
        } catch let error as HandoffError {
            #expect(error.code == .storageFailed)
            #expect(error.message.contains("SQLite error 1555"), "\(error.message)")  // SQLITE_CONSTRAINT_PRIMARYKEY
        }
        #expect(try journal.entry(clash.id) == nil)
        // The same prepared statements, reset after the failure, serve the next payment.
        let next = draft(2)
        #expect(try journal.begin(next, reopening: false).entry.state == .pending)
        #expect(try journal.markOpened(next.id)?.openedAt != nil)
        #expect(try journal.entries().count == 2)
    }

    @Test("a payment expires exactly its expiry after it was written, even when the clock moves between readings")
    func expiryFromCreation() throws {
        /// A clock that moves 0.7 ms every time it is read, as a busy machine's would between two readings.
        final class TickingClock: HandoffClock, @unchecked Sendable {
            // @unchecked: `current` is guarded by `lock`.
            private let lock = NSLock()
            private var current = Date(timeIntervalSince1970: 1_800_000_000)
            func now() -> Date {
                lock.withLock {
                    current = current.addingTimeInterval(0.0007)
                    return current
                }
            }
            func sleep(until deadline: Date) async throws {}
        }
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: TickingClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let first = try coordinator.prepare(SquareFixture.request(), expiresIn: .seconds(90))
        #expect(first.entry.expiresAt.timeIntervalSince(first.entry.createdAt) == 90)
        let again = try coordinator.prepare(
            SquareFixture.request(),
            id: first.entry.id,
            reopening: true,
            expiresIn: .seconds(60)
        )
        #expect(again.entry.expiresAt.timeIntervalSince(again.entry.updatedAt) == 60)
    }

    @Test("every change returns the entry exactly as the journal then reads it: the row its UPDATE … RETURNING gave")
    func changesReturnStoredEntries() async throws {
        let harness = try Harness(configuration: .init(expiry: .seconds(600), handoffTimeout: .seconds(60)))
        let (clock, journal, coordinator) = (harness.clock, harness.journal, harness.coordinator)
        /// The entry as a reading connection finds it now.
        func stored(_ entry: JournalEntry) throws -> JournalEntry? { try journal.entry(entry.id) }

        // A new payment; clock readings with a fraction of a millisecond, which the journal drops.
        clock.advance(by: 0.0004)
        let first = try coordinator.prepare(SquareFixture.request())
        #expect(try stored(first.entry) == first.entry)
        clock.advance(by: 1.2345)
        let opened = try #require(try journal.markOpened(first.entry.id))
        #expect(try stored(opened) == opened)
        // Reopened: one more hand-off, a new expiry, the opening kept.
        clock.advance(by: 2.5)
        let again = try coordinator.prepare(SquareFixture.request(), id: first.entry.id, reopening: true)
        #expect(again.entry.handoffCount == 2 && again.entry.openedAt != nil)
        #expect(try stored(again.entry) == again.entry)
        // The callback.
        clock.advance(by: 0.0017)
        let reply = try SquareFixture.reply(to: again.url, transactionID: "TX-REOPENED")
        let recorded = try #require(try await coordinator.handle(reply)?.entry)
        #expect(recorded.state == .completed && recorded.revision == 3)
        #expect(recorded.outcome?.transactionID == "TX-REOPENED")
        #expect(try stored(recorded) == recorded)
        let verified = try journal.record(.scripted(.contradicted, "the server has no such payment"), of: recorded)
        #expect(verified.recorded && verified.entry.verification?.verdict == .contradicted)
        #expect(try stored(verified.entry) == verified.entry)
        clock.advance(by: 3)
        // A note by hand with a NUL, which SQLite would cut the text at: kept whole, as U+FFFD.
        let resolved = try coordinator.resolve(
            first.entry.id,
            as: .declined,
            note: "checked\u{0}by hand",
            overwritingCompleted: true
        )
        #expect(resolved.resolution?.note == "checked\u{FFFD}by hand")
        #expect(try stored(resolved) == resolved)

        // Expired and timed out.
        let second = try coordinator.prepare(SquareFixture.request())
        clock.advance(by: 601)
        let expired = try #require(try journal.expireOverduePayments().first)
        #expect(expired.id == second.entry.id && expired.state == .unknown)
        #expect(try stored(expired) == expired)
        let third = try coordinator.prepare(SquareFixture.request())
        let timedOut = try journal.markTimedOut(third.entry.id, handoff: third.entry.handoffCount)
        #expect(timedOut.changed && timedOut.entry.state == .unknown)
        #expect(try stored(timedOut.entry) == timedOut.entry)
    }

    @Test(
        "a state change from a stale entry (a newer revision) does not apply; one from an entry read before the opening applies and returns the row with it"
    )
    func transitionReturnsTheRow() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let prepared = try coordinator.prepare(SquareFixture.request())
        let id = prepared.entry.id
        // An entry read before the opening was noted, as by a caller that read it outside the change's transaction.
        let readBefore = try #require(try journal.entry(id))
        clock.advance(by: 1)
        let opened = try #require(try journal.markOpened(id))
        #expect(opened.openedAt != nil && opened.revision == readBefore.revision)
        func timeOut(_ entry: JournalEntry) throws -> JournalEntry? {
            try journal.write("test") { writer in
                try PaymentJournal.transitionIfUnchanged(
                    writer,
                    entry,
                    to: .unknown,
                    outcome: nil,
                    at: clock.now(),
                    kind: .timedOut
                )
            }
        }
        // The opening is no change of state: the entry read before it is current, and the row returned has it.
        let changed = try #require(try timeOut(readBefore))
        #expect(changed.state == .unknown && changed.openedAt == opened.openedAt)
        #expect(try journal.entry(id) == changed)
        // Read before that change: a stale revision, nothing applies and nothing is recorded.
        let history = try journal.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM payment_event") }
        #expect(try timeOut(readBefore) == nil)
        #expect(try journal.entry(id) == changed)
        #expect(try journal.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM payment_event") } == history)
    }

    @Test("a manual resolution is the only change to a terminal payment, and it is recorded (REL-2)")
    func manualResolution() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let prepared = try coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: prepared.url, endpoint: "tender-test://elsewhere")
        #expect(try await coordinator.handle(reply)?.disposition == .tampered)

        let resolved = try coordinator.resolve(
            prepared.entry.id,
            as: .declined,
            transactionID: "SQ-CHECKED",
            note: "checked in the Square dashboard: card 4111111111111111 declined"
        )
        #expect(resolved.state == .resolved)
        #expect(resolved.outcome?.status == .declined)
        #expect(resolved.outcome?.source == .manual)
        #expect(resolved.resolution?.previousState == .tampered)
        #expect(resolved.resolution?.note?.contains("4111111111111111") == false)
        let kinds = try await journal.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT kind FROM payment_event WHERE payment_id = ? ORDER BY id",
                arguments: [prepared.entry.id.rawValue]
            )
        }
        #expect(kinds == ["begun", "tampered", "resolved"])
        expectError(.paymentNotFound) {
            try coordinator.resolve(PaymentID(rawValue: "no-such-payment")!, as: .approved)
        }
    }

    @Test("a payment ID holding a card number is refused: IDs are logged and stored as they are (SEC-9)")
    func paymentIDWithCardNumber() throws {
        #expect(PaymentID(rawValue: "4111111111111111") == nil)
        #expect(PaymentID(rawValue: "order-4111111111111111") == nil)
        expectError(.invalidPaymentID) { try PaymentID(validating: "4111-1111-1111-1111") }
        #expect(PaymentID(rawValue: "order-1042")?.rawValue == "order-1042")
        // Tender's own IDs are UUIDs, which the screen does not search across their dashes: always valid.
        for _ in 0..<2000 { #expect(PaymentID(rawValue: PaymentID().rawValue) != nil) }
    }

    @Test("a resolution keeps what the POS app reported; resolving again corrects it and keeps the first state")
    func resolutionKeepsReport() async throws {
        let directory = TemporaryDirectory()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: ManualClock())
        let coordinator = HandoffCoordinator(journal: journal, opener: ScriptedOpener())
        let prepared = try coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: prepared.url, errorCode: "payment_canceled")
        let completed = try #require(try await coordinator.handle(reply)?.entry)
        #expect(completed.state == .completed && completed.outcome?.status == .cancelled)
        let reported = try #require(completed.outcome)

        // A completed payment is changed only when the caller says so (issue 22): the refusal says what it holds.
        let refused = #expect(throws: HandoffError.self) {
            try coordinator.resolve(prepared.entry.id, as: .approved, transactionID: "SQ-1", note: "first")
        }
        #expect(refused?.code == .invalidResolution)
        #expect(refused?.message.contains("is completed: its POS app reported cancelled") == true)
        #expect(try journal.entry(prepared.entry.id) == completed)
        let first = try coordinator.resolve(
            prepared.entry.id,
            as: .approved,
            transactionID: "SQ-1",
            note: "first",
            overwritingCompleted: true
        )
        #expect(first.outcome?.status == .approved && first.outcome?.source == .manual)
        #expect(first.resolution?.previousState == .completed)
        #expect(first.resolution?.reportedOutcome == reported)
        #expect(try journal.entry(first.id) == first)

        // A correction: the decision and the note change; the state before resolving and the report stay.
        let second = try coordinator.resolve(prepared.entry.id, as: .declined, note: "second")
        #expect(second.outcome?.status == .declined && second.outcome?.transactionID == nil)
        #expect(second.resolution?.previousState == .completed)
        #expect(second.resolution?.reportedOutcome == reported)
        #expect(second.resolution?.note == "second")
        #expect(try journal.entry(second.id) == second)

        // A transaction ID that holds a card number is refused, not stored masked where nobody could use it.
        expectError(.invalidResolution) {
            try coordinator.resolve(prepared.entry.id, as: .approved, transactionID: "20261123194700123456")
        }
        #expect(try journal.entry(second.id) == second)

        // A payment with no callback keeps no report.
        let silent = try coordinator.prepare(SquareFixture.request())
        let unanswered = try coordinator.resolve(silent.entry.id, as: .failed)
        #expect(unanswered.resolution?.previousState == .pending && unanswered.resolution?.reportedOutcome == nil)
        #expect(try journal.entry(unanswered.id) == unanswered)
    }

    @Test("acknowledging a stale entry does nothing, so a changed outcome is delivered again")
    func staleAcknowledgement() async throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let journal = try PaymentJournal(path: directory.path("journal.sqlite"), clock: clock)
        let coordinator = HandoffCoordinator(
            journal: journal,
            opener: ScriptedOpener(),
            configuration: .init(expiry: .seconds(600), handoffTimeout: .seconds(60))
        )
        let prepared = try coordinator.prepare(SquareFixture.request())
        clock.advance(by: 601)
        let unknown = try #require(try coordinator.recover().undelivered.first)
        #expect(unknown.state == .unknown)
        // The genuine callback arrives before the app acknowledged what it saw.
        #expect(try await coordinator.handle(try SquareFixture.reply(to: prepared.url))?.disposition == .late)
        #expect(try coordinator.acknowledge(unknown) == false)
        let late = try #require(try coordinator.undeliveredEntries().first)
        #expect(late.state == .late)
        #expect(try coordinator.acknowledge(late) == true)
        #expect(try coordinator.undeliveredEntries().isEmpty)
    }
}

/// `NULL` for each named parameter of `sql`: what `EXPLAIN` needs to prepare it.
func nulls(_ sql: String) -> StatementArguments {
    var values: [String: DatabaseValue] = [:]
    var name: String?
    for character in sql + " " {
        if var current = name {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
                name = current
                continue
            }
            if !current.isEmpty { values[current] = .null }
            name = nil
        }
        if character == ":" { name = "" }
    }
    return StatementArguments(values)
}
