import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

@Suite("Storage faults: every write can fail and the journal stays consistent (REL-8)")
struct StorageFaultTests {
    /// A scenario that exercises every kind of write, and what it did.
    struct Run {
        var opened: [URL] = []
        var errors: [HandoffError] = []
        /// URLs that were opened while the journal did not have their payment: must stay empty (REL-8).
        var openedWithoutRecord: [URL] = []
    }

    static func scenario(failing write: Int?) async throws -> (Run, Harness, StorageFaults) {
        let faults = StorageFaults(failingWrites: write.map { [$0] } ?? [])
        let box = CoordinatorBox()
        let unrecorded = URLList()
        let opener = ScriptedOpener { url in
            // REL-8: at the moment the POS app opens, its payment's record is committed.
            if let coordinator = box.coordinator, let token = try? SquareFixture.token(in: url) {
                let digest = Data(OneTimeToken.digest(of: token))
                let found = try? await coordinator.journal.pool.read { db in
                    try Int.fetchOne(
                        db,
                        sql: "SELECT count(*) FROM handoff_token WHERE token_hash = ?",
                        arguments: [digest]
                    )
                }
                if found != 1 { unrecorded.append(url) }
            }
            // Answered before the opener returns: deterministic, and the waiter is registered before opening.
            if url.absoluteString.contains("answered"), let reply = try? SquareFixture.reply(to: url) {
                _ = try? await box.coordinator?.handle(reply)
            }
            return true
        }
        let harness = try Harness(
            configuration: .init(expiry: .seconds(600), handoffTimeout: .seconds(60)),
            opener: opener,
            faults: faults
        )
        box.coordinator = harness.coordinator
        var run = Run()
        func attempt(_ body: () async throws -> Void) async {
            do { try await body() } catch let error as HandoffError { run.errors.append(error) } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        var answered = SquareFixture.request()
        answered.notes = "answered"
        /// Pays, moving the clock past the time-out whenever the payment waits (its callback write may have failed).
        func pay(_ request: SquareRequest) async throws {
            let finished = Flag()
            let task = Task {
                defer { finished.set() }
                return try await harness.coordinator.pay(request)
            }
            while !finished.isSet {
                await harness.clock.waitForSleepers(1, unless: { finished.isSet })
                if harness.clock.sleeperCount > 0 { harness.clock.advance(by: 60) }
            }
            _ = try await task.value
        }
        // Paid and answered (before the opener even returns).
        await attempt { try await pay(answered) }
        // Paid, never answered: times out.
        await attempt { try await pay(SquareFixture.request()) }
        // Prepared, answered late by hand, acknowledged, resolved, recovered and pruned.
        await attempt {
            let prepared = try harness.coordinator.prepare(SquareFixture.request())
            harness.clock.advance(by: 601)
            _ = try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))
            for entry in try harness.coordinator.undeliveredEntries() { try harness.coordinator.acknowledge(entry) }
            _ = try harness.coordinator.resolve(prepared.entry.id, as: .approved, note: "checked")
            _ = try harness.coordinator.prepare(SquareFixture.request())
            harness.clock.advance(by: 91 * 86_400)
            _ = try harness.coordinator.recover()
        }
        run.opened = opener.opened
        run.openedWithoutRecord = unrecorded.urls
        return (run, harness, faults)
    }

    @Test("a failed write at any point rolls back whole; the POS app is never opened without a committed record")
    func everyWrite() async throws {
        let (referenceRun, _, reference) = try await StorageFaultTests.scenario(failing: nil)
        let referenceOpened = referenceRun.opened.count
        #expect(referenceRun.errors.isEmpty)
        let writes = reference.writeCount
        #expect(writes >= 12)
        #expect(
            Set(reference.operations).isSuperset(of: [
                "begin", "opened", "callback", "timed_out", "acknowledge", "resolve", "expire", "prune",
            ])
        )
        print(
            "storage faults: \(writes) write points, each failed in turn: \(reference.operations.joined(separator: " "))"
        )
        for failing in 1...writes {
            let (run, harness, faults) = try await StorageFaultTests.scenario(failing: failing)
            let operation = faults.operations[failing - 1]
            // The failure is reported: thrown, or (for a callback or the "opened" note) logged.
            let reported =
                run.errors.contains { $0.code == .storageFailed }
                || harness.log.events.contains { $0.kind == .storageFailed }
            #expect(reported, "write \(failing) (\(operation))")
            try StorageFaultTests.checkConsistent(harness.journal, write: failing)
            #expect(run.openedWithoutRecord.isEmpty, "write \(failing): a POS app was opened without its record")
            #expect(!run.opened.isEmpty)
            let beginNumber = faults.operations.prefix(failing).filter { $0 == "begin" }.count
            if operation == "begin", beginNumber <= referenceOpened {
                // A pay's write-ahead record failed: one POS app fewer was opened than in the reference run.
                #expect(run.opened.count == referenceOpened - 1, "write \(failing)")
            }
            // No error message carries a token or URL.
            for error in run.errors {
                #expect(!error.message.contains("://"), "\(error.message)")
            }
        }
    }

    @Test("a real SQLITE_FULL while writing ahead keeps the POS app closed")
    func diskFull() async throws {
        let opener = ScriptedOpener { _ in true }
        let harness = try Harness(configuration: .init(handoffTimeout: .seconds(1)), opener: opener)
        try await harness.journal.pool.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        var failure: HandoffError?
        for _ in 0..<500 where failure == nil {
            let before = opener.opened.count
            do {
                _ = try harness.coordinator.prepare(SquareFixture.request())
            } catch let error as HandoffError {
                failure = error
                #expect(opener.opened.count == before)
            }
        }
        #expect(failure?.code == .storageFailed)
        do {
            _ = try await harness.coordinator.pay(SquareFixture.request())
            Issue.record("pay succeeded on a full journal")
        } catch let error as HandoffError {
            #expect(error.code == .storageFailed)
        }
        #expect(opener.opened.isEmpty)
        #expect(try harness.journal.check(full: true) == ["ok"])
    }

    /// Invariants that hold whatever write failed.
    static func checkConsistent(_ journal: PaymentJournal, write: Int) throws {
        #expect(try journal.check(full: true) == ["ok"], "write \(write)")
        try journal.pool.read { db in
            // Every payment has a token and a history whose last state is its state, one event per revision.
            let rows = try Row.fetchAll(db, sql: "SELECT id, state, revision FROM payment")
            for row in rows {
                let id: String = row["id"]
                let tokens =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT count(*) FROM handoff_token WHERE payment_id = ?",
                        arguments: [id]
                    ) ?? 0
                #expect(tokens >= 1, "write \(write): payment without token")
                let events = try String.fetchAll(
                    db,
                    sql: "SELECT to_state FROM payment_event WHERE payment_id = ? ORDER BY id",
                    arguments: [id]
                )
                #expect(events.last == row["state"], "write \(write): history and state disagree")
                // The opening and the acknowledgement are history rows that change no state (no revision).
                let transitions =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT count(*) FROM payment_event
                            WHERE payment_id = ? AND kind <> 'opened' AND kind <> 'acknowledged'
                            """,
                        arguments: [id]
                    ) ?? 0
                #expect(transitions == row["revision"] as Int, "write \(write): a transition was half-written")
                // Every history row went to the outbox, numbered, in the transaction that wrote it (nothing synced;
                // prune drops the changes older than its window, so the outbox holds the history's latest rows, and
                // a snapshot of the payment where it dropped some).
                let changes =
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT to_state FROM outbox WHERE payment_id = ? AND kind <> 'snapshot' ORDER BY sequence",
                        arguments: [id]
                    )
                #expect(
                    Array(events.suffix(changes.count)) == changes,
                    "write \(write): the outbox and the history disagree"
                )
                let latest = try String.fetchOne(
                    db,
                    sql: "SELECT to_state FROM outbox WHERE payment_id = ? ORDER BY sequence DESC LIMIT 1",
                    arguments: [id]
                )
                #expect(latest == nil || latest == row["state"], "write \(write): the outbox's last change is stale")
            }
            // The outbox's sequence numbers have no gap: a write that failed took none.
            let outbox = try #require(
                try Row.fetchOne(
                    db,
                    sql: "SELECT count(*) AS n, min(sequence) AS low, max(sequence) AS high FROM outbox"
                )
            )
            let count: Int = outbox["n"]
            if count > 0 {
                #expect((outbox["high"] as Int) - (outbox["low"] as Int) + 1 == count, "write \(write): a gap")
            }
        }
    }
}

/// A flag set once, read from any task.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}

/// URLs collected from any task.
final class URLList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [URL] = []

    var urls: [URL] { lock.withLock { list } }

    func append(_ url: URL) { lock.withLock { list.append(url) } }
}
