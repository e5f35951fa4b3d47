import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

/// The journal's side of the fleet sync: the outbox (TenderSync's article "The sync contract", "Overview").
@Suite("Outbox: every change numbered in its own transaction, nothing the journal does not show")
struct OutboxTests {
    /// Payments through their lives: answered (approved), acknowledged; `count` of them.
    static func answeredPayments(_ harness: Harness, _ count: Int) async throws -> [(id: PaymentID, token: String)] {
        var made: [(id: PaymentID, token: String)] = []
        for index in 0..<count {
            let prepared = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 100 + index))
            let token = try SquareFixture.token(in: prepared.url)
            let reply = try SquareFixture.reply(to: prepared.url, transactionID: "TXN-\(index)")
            let receipt = try #require(try await harness.coordinator.handle(reply))
            _ = try harness.coordinator.acknowledge(try #require(receipt.entry))
            made.append((prepared.entry.id, token))
        }
        return made
    }

    /// Every row of the outbox, in order.
    static func outbox(_ journal: PaymentJournal) throws -> [JournalChange] {
        try journal.changes(from: 0, limit: 1_000_000)
    }

    @Test("each history row gets the next sequence, 1, 2, 3 … without a gap, with the payment after the change")
    func everyChangeNumbered() async throws {
        let harness = try Harness()
        let made = try await Self.answeredPayments(harness, 3)
        let pending = try harness.coordinator.prepare(SquareFixture.request())

        let changes = try Self.outbox(harness.journal)
        #expect(changes.map(\.sequence) == Array(1...Int64(changes.count)))
        // The outbox is the history, change for change, in the order the journal wrote it.
        var rows = 0
        for id in made.map(\.id) + [pending.entry.id] {
            let history = try harness.journal.history(of: id)
            let ofPayment = changes.filter { $0.paymentID == id.rawValue }
            rows += history.count
            #expect(ofPayment.map(\.kind) == history.map(\.kind.rawValue))
            #expect(ofPayment.map(\.fromState) == history.map(\.fromState?.rawValue))
            #expect(ofPayment.map(\.toState) == history.map(\.toState?.rawValue))
            #expect(ofPayment.map(\.note) == history.map(\.note))
        }
        #expect(rows == changes.count)
        #expect(changes.first?.kind == "begun" && changes.first?.fromState == nil)
        #expect(changes.contains { $0.kind == "recorded" } && changes.contains { $0.kind == "acknowledged" })
        // Each payment's latest change carries the payment exactly as `journal show --json` prints it (without
        // its history).
        for id in made.map(\.id) + [pending.entry.id] {
            let latest = try #require(changes.last { $0.paymentID == id.rawValue })
            let entry = try #require(try harness.journal.entry(id))
            #expect(latest.payment == entry.encodeJSON())
        }
    }

    @Test("a write that fails takes no sequence: the change and its number commit together or not at all")
    func failedWriteTakesNoSequence() async throws {
        let faults = StorageFaults()
        let harness = try Harness(faults: faults)
        _ = try harness.coordinator.prepare(SquareFixture.request())
        let before = try Self.outbox(harness.journal)
        faults.fail(writes: [faults.writeCount + 1])
        #expect(throws: HandoffError.self) { try harness.coordinator.prepare(SquareFixture.request()) }
        #expect(try Self.outbox(harness.journal) == before)
        let next = try harness.coordinator.prepare(SquareFixture.request())
        let after = try Self.outbox(harness.journal)
        #expect(after.map(\.sequence) == Array(1...Int64(before.count + 1)))
        #expect(after.last?.paymentID == next.entry.id.rawValue)
    }

    @Test("no one-time token leaves the device: the outbox holds only what journal show --json shows (SEC-1)")
    func noTokenInTheOutbox() async throws {
        let harness = try Harness()
        let made = try await Self.answeredPayments(harness, 4)
        let changes = try Self.outbox(harness.journal)
        let everything = try changes.map { String(decoding: try JSONEncoder().encode($0.syncChange()), as: UTF8.self) }
            .joined(separator: "\n")
        let raw = try await harness.journal.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox").map { row in
                row.databaseValues.map(\.description).joined(separator: "|")
            }.joined(separator: "\n")
        }
        for (_, token) in made {
            #expect(!everything.contains(token))
            #expect(!raw.contains(token))
        }
        // Every payment object has exactly the members of the show form.
        let shown = Set(try #require(try harness.journal.entry(made[0].id)).jsonObject().keys)
        for change in changes {
            guard case .object(let payment)? = try change.syncChange().payment?.json else {
                Issue.record("change \(change.sequence) carries no payment object")
                continue
            }
            #expect(Set(payment.keys) == shown)
            #expect(payment["history"] == nil)
        }
    }

    @Test("prune records pruned changes without a payment; a journal that never syncs keeps only its window")
    func pruneBoundsTheOutbox() async throws {
        let harness = try Harness()
        let made = try await Self.answeredPayments(harness, 3)
        let written = try Self.outbox(harness.journal)
        harness.clock.advance(by: 91 * 86_400)
        #expect(try harness.journal.prune() == 3)
        let left = try Self.outbox(harness.journal)
        // The payments' own changes are older than the window and gone; the three prunings follow without a gap.
        #expect(left.map(\.sequence) == Array(Int64(written.count + 1)...Int64(written.count + 3)))
        #expect(Set(left.map(\.paymentID)) == Set(made.map(\.id.rawValue)))
        for change in left {
            #expect(change.kind == "pruned")
            #expect(change.fromState == "completed")
            #expect(change.toState == nil && change.payment == nil)
            #expect(try change.syncChange().payment == nil)
        }
        // A payment written after the pruning is numbered on.
        _ = try harness.coordinator.prepare(SquareFixture.request())
        #expect(try Self.outbox(harness.journal).last?.sequence == Int64(written.count + 4))
    }

    @Test(
        "prune deleting unsent changes of a payment it keeps numbers a snapshot of it, after the prunings, outside its history"
    )
    func pruneSnapshotsWhatItKeeps() async throws {
        let harness = try Harness()
        _ = try await Self.answeredPayments(harness, 1)
        let waiting = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 321)).entry
        let history = try harness.journal.history(of: waiting.id)
        let written = try Self.outbox(harness.journal).count
        harness.clock.advance(by: 91 * 86_400)
        #expect(try harness.journal.prune() == 1)
        let left = try Self.outbox(harness.journal)
        #expect(left.map(\.kind) == ["pruned", "snapshot"])
        #expect(left.map(\.sequence) == [Int64(written + 1), Int64(written + 2)])
        let snapshot = try #require(left.last)
        #expect(snapshot.paymentID == waiting.id.rawValue)
        #expect(snapshot.fromState == "pending" && snapshot.toState == "pending")
        let entry = try #require(try harness.journal.entry(waiting.id))
        #expect(try canonicalJSON(try #require(snapshot.payment)) == (try canonicalJSON(entry.encodeJSON())))
        // The outbox's alone: the payment's history is what it was.
        #expect(try harness.journal.history(of: waiting.id) == history)

        // Acknowledged changes that go make no snapshot: the server has them.
        _ = try harness.journal.recordAcknowledged(through: Int64(written + 2))
        harness.clock.advance(by: 91 * 86_400)
        _ = try harness.journal.prune()
        #expect(try Self.outbox(harness.journal).isEmpty)
    }
}
