import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

/// `PaymentJournal.sync(to:deviceKey:timeout:)` against a stand-in that follows the sync contract
/// (TenderSync's article "The sync contract": "The request", "The device's rules"). The end-to-end tests against the real
/// `tender-server` live in the Server package.
@Suite("Sync: every change reaches the fleet server once, in order, whatever fails")
struct SyncTests {
    /// How long a sync waits for each answer of the stand-in: it serves from this process's cooperative threads,
    /// which the whole suite's other tests can keep busy for tens of seconds on a loaded machine.
    static let patience: Duration = .seconds(120)

    /// How many changes the journal recorded (history rows and prunings): what a full sync must deliver.
    static func changeCount(_ journal: PaymentJournal) throws -> Int64 {
        try journal.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'") ?? 0
        }
    }

    /// The ledger holds every change once, in order, and each payment as the journal shows it.
    static func expectLedgerEqualsJournal(_ server: FleetStandIn, _ journal: PaymentJournal) throws {
        let ledger = server.ledger
        let total = try changeCount(journal)
        #expect(ledger.held == total)
        #expect(ledger.changes.keys.sorted() == Array(1...total))
        #expect(ledger.applications.values.allSatisfy { $0 == 1 }, "a change was applied twice")
        #expect(ledger.journalID == (try journal.journalID()).journalText)
        let entries = try journal.entries()
        #expect(Set(ledger.payments.keys).subtracting(ledger.pruned) == Set(entries.map(\.id.rawValue)))
        for entry in entries {
            let held = try #require(ledger.payments[entry.id.rawValue])
            #expect(try canonicalJSON(held) == (try canonicalJSON(entry.encodeJSON())))
        }
        #expect(try journal.acknowledgedThrough() == total)
        #expect(try journal.changes(from: 0, limit: 10).isEmpty, "acknowledged changes stay in the outbox")
    }

    static func withServer(_ body: (FleetStandIn) async throws -> Void) async throws {
        let server = try await FleetStandIn.start()
        do {
            try await body(server)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test("a sync sends every change oldest first in batches of at most 500, and records acknowledged_through")
    func batches() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            let made = try await OutboxTests.answeredPayments(harness, 180)
            let total = try Self.changeCount(harness.journal)
            #expect(total > 500)

            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(result == JournalSyncResult(sent: Int(total), acknowledgedThrough: total))
            let requests = server.requests
            #expect(requests.allSatisfy { $0.sequences.count <= PaymentJournal.syncBatchSize })
            #expect(requests.first?.sequences.count == PaymentJournal.syncBatchSize)
            #expect(requests.flatMap(\.sequences) == Array(1...total))
            #expect(requests.allSatisfy { $0.authorization == "Bearer \(server.key)" })
            #expect(requests.allSatisfy { $0.body.utf8.count <= PaymentJournal.syncBatchBytes })
            for (_, token) in made { #expect(!requests.contains { $0.body.contains(token) }) }
            try Self.expectLedgerEqualsJournal(server, harness.journal)

            // Nothing left: the next sync sends no change, and asks all the same (a batch with no change, sync
            // contract version 3), so that a wrong key or URL is found now.
            let again = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(again == JournalSyncResult(sent: 0, acknowledgedThrough: total))
            #expect(server.requests.count == requests.count + 1)
            #expect(server.requests.last?.sequences == [])
            let asked = try JSONDecoder().decode(SyncBatch.self, from: Data((server.requests.last?.body ?? "").utf8))
            #expect(asked.changes.isEmpty && asked.contractVersion == SyncContract.version)

            // New changes go on from where the server is.
            _ = try harness.coordinator.prepare(SquareFixture.request())
            let more = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            #expect(more == JournalSyncResult(sent: 1, acknowledgedThrough: total + 1))
            #expect(server.requests.last?.sequences == [total + 1])
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }

    @Test(
        "a change the server refuses for good is set aside: sent again as a marker, the other changes sync, a refused marker ends the sync"
    )
    func refusedChangeSetAside() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            let made = try await OutboxTests.answeredPayments(harness, 3)
            let total = try Self.changeCount(harness.journal)
            let refused = try #require(try harness.journal.changes(from: 2, limit: 1).first)
            server.refuse([refused.sequence])

            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(result.acknowledgedThrough == total)
            #expect(result.setAside.map(\.sequence) == [refused.sequence])
            #expect(result.setAside.first?.paymentID == refused.paymentID)
            #expect(result.setAside.first?.kind.rawValue == refused.kind)
            #expect(result.setAside.first?.reason.hasPrefix("invalid_change: ") == true)
            // Two requests: the batch refused, then sent again whole with the marker in the change's place.
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.map(\.sequences) == [Array(1...total), Array(1...total)])
            let marker = try #require(server.ledger.changes[refused.sequence])
            #expect(marker.contains(#""kind":"set_aside""#) && marker.contains(#""payment":null"#))
            // Every change is on the server once; the payments end as the journal holds them (their later changes
            // carried them); the payment's history says what was set aside, and why.
            try Self.expectLedgerEqualsJournal(server, harness.journal)
            let id = try #require(PaymentID(rawValue: refused.paymentID))
            let history = try harness.journal.history(of: id)
            let row = try #require(history.last { $0.kind == .setAside })
            #expect(row.note?.contains("change \(refused.sequence) (\(refused.kind))") == true)
            #expect(made.count == 3)

            // The next sync sends the new change only; nothing is set aside again.
            _ = try harness.coordinator.prepare(SquareFixture.request())
            let more = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            #expect(more == JournalSyncResult(sent: 1, acknowledgedThrough: total + 1))

            // A server that refuses the marker too: the sync ends with one line, after one more request, not a loop.
            let other = try Harness()
            _ = try await OutboxTests.answeredPayments(other, 1)
            let stricter = try await FleetStandIn.start()
            stricter.refuse([1], markers: true)
            await #expect {
                try await other.journal.sync(to: stricter.baseURL, deviceKey: stricter.key, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("already set aside") == true
            }
            #expect(stricter.requests.count == 2)
            #expect(stricter.ledger.held == 0)
            #expect(try other.journal.acknowledgedThrough() == 0)
            await stricter.stop()
        }
    }

    @Test("an answer lost after the server's commit: the next sync sends the batch again, applied once")
    func lostAnswer() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 180)
            let total = try Self.changeCount(harness.journal)
            server.fail(request: 1, with: .loseAnswer)

            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { ($0 as? HandoffError)?.code == .syncUnavailable }
            // The first batch's answer came and is recorded; the second's was lost, after the server applied it.
            #expect(try harness.journal.acknowledgedThrough() == 500)
            #expect(server.ledger.held == total)

            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(result == JournalSyncResult(sent: Int(total - 500), acknowledgedThrough: total))
            #expect(server.requests.last?.sequences == Array(501...total))
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }

    @Test("with nothing to send, a sync still asks: a refused key fails, and a server that lost what it held is named")
    func nothingNewStillAsks() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 2)
            let total = try Self.changeCount(harness.journal)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: "another-key", timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("401") == true
            }
            server.forget(from: 2)
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("lost changes 2…\(total)") == true
                    && error?.message.contains("\n") == false
            }
            #expect(try harness.journal.acknowledgedThrough() == total, "nothing recorded")
        }
    }

    @Test(
        "a server of sync contract version 2 refuses a batch with no change after it accepted the key: the sync succeeds"
    )
    func olderServerAndNothingNew() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 1)
            let total = try Self.changeCount(harness.journal)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            server.fail(
                request: server.requests.count,
                with: .answer(
                    status: 400,
                    body: #"{"error":{"code":"invalid_change","message":"changes is empty: send 1 to 500 changes."}}"#
                )
            )
            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(result == JournalSyncResult(sent: 0, acknowledgedThrough: total))
        }
    }

    @Test("a server that fails before applying (503) keeps nothing; the journal keeps the changes for the next sync")
    func unavailableThenRetried() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 5)
            server.fail(
                request: 0,
                with: .answer(status: 503, body: #"{"error":{"code":"unavailable","message":"db"}}"#)
            )
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncUnavailable && error?.message.contains("503") == true
            }
            #expect(try harness.journal.acknowledgedThrough() == 0)
            #expect(server.ledger.held == 0)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }

    @Test("409 out_of_sequence: the sync resumes from expected_sequence, forwards or back, and sends each change once")
    func outOfSequenceResumes() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 180)
            let total = try Self.changeCount(harness.journal)
            // The first answer claims the server expects change 4: the device goes on from 4; the server, which
            // holds nothing, then expects 1, and the device goes back to 1.
            server.fail(
                request: 0,
                with: .answer(
                    status: 409,
                    body: #"{"error":{"code":"out_of_sequence","message":"m","expected_sequence":4}}"#
                )
            )
            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(result.acknowledgedThrough == total)
            let firsts = server.requests.map { $0.sequences.first }
            #expect(Array(firsts.prefix(3)) == [1, 4, 1])
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }

    @Test("a server that lost acknowledged changes: the sync fails with one line naming them, and sends no more")
    func serverLostChanges() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 2)
            let total = try Self.changeCount(harness.journal)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            server.forget(from: 1)
            _ = try harness.coordinator.prepare(SquareFixture.request())
            let before = server.requests.count
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("lost changes 1…\(total)") == true
                    && error?.message.contains("\n") == false
            }
            #expect(server.requests.count == before + 1)
            #expect(try harness.journal.acknowledgedThrough() == total)
        }
    }

    @Test(
        "a journal pruned before it ever synced: the batch names what was pruned unsent, and the payments it still holds reach the ledger"
    )
    func prunedBeforeSync() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 2)
            // Never answered: kept by prune however old, and only the outbox's snapshot can bring it to the ledger.
            let waiting = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 777)).entry.id
            harness.clock.advance(by: 91 * 86_400)
            #expect(try harness.journal.prune() == 2)
            let kept = try OutboxTests.outbox(harness.journal)
            let first = try #require(kept.first).sequence
            #expect(first > 1)
            #expect(kept.filter { $0.kind == "snapshot" }.map(\.paymentID) == [waiting.rawValue])
            _ = try await OutboxTests.answeredPayments(harness, 1)

            let result = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(server.requests.count == 1)
            // Read as JSON: the encoder's member order is not part of the contract.
            let sent = try JSONDecoder().decode(SyncBatch.self, from: Data(server.requests[0].body.utf8))
            #expect(sent.prunedThrough == first - 1)
            #expect(server.requests[0].sequences.first == first)
            let ledger = server.ledger
            #expect(ledger.prunedUnsent == first - 1)
            #expect(ledger.held == (try harness.journal.lastSequence()))
            #expect(result.acknowledgedThrough == ledger.held)
            #expect(ledger.applications.values.allSatisfy { $0 == 1 })
            // The ledger holds every payment the journal holds, as it holds it; the two pruned ones only as pruned.
            let entries = try harness.journal.entries()
            #expect(Set(ledger.payments.keys).subtracting(ledger.pruned) == Set(entries.map(\.id.rawValue)))
            for entry in entries {
                let held = try #require(ledger.payments[entry.id.rawValue])
                #expect(try canonicalJSON(held) == (try canonicalJSON(entry.encodeJSON())))
            }
            #expect(ledger.pruned.count == 2)

            // Nothing more to send, and no declaration again: the sync only asks (a batch with no change).
            let again = try await harness.journal.sync(
                to: server.baseURL,
                deviceKey: server.key,
                timeout: Self.patience
            )
            #expect(again.sent == 0)
            #expect(server.requests.count == 2)
            let asked = try JSONDecoder().decode(SyncBatch.self, from: Data(server.requests[1].body.utf8))
            #expect(asked.changes.isEmpty && asked.prunedThrough == nil)
        }
    }

    @Test("changes pruned unsent after an earlier sync: the next batch names them from what the server holds on")
    func prunedBetweenSyncs() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 1)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            let synced = server.ledger.held
            let unknown = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 500)).entry.id
            harness.clock.advance(by: 86_400)
            #expect(try harness.journal.expireOverduePayments().map(\.id) == [unknown])
            harness.clock.advance(by: 91 * 86_400)
            _ = try harness.journal.prune()
            let first = try #require(try OutboxTests.outbox(harness.journal).first).sequence
            #expect(first > synced + 1)

            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            let ledger = server.ledger
            #expect(ledger.prunedUnsent == first - 1 - synced)
            #expect(ledger.held == (try harness.journal.lastSequence()))
            let held = try #require(ledger.payments[unknown.rawValue])
            let entry = try #require(try harness.journal.entry(unknown))
            #expect(entry.state == .unknown)
            #expect(try canonicalJSON(held) == (try canonicalJSON(entry.encodeJSON())))
        }
    }

    @Test("a refused key (401), another journal (409), an unreachable server: one line, the key never in it")
    func refusals() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 1)
            let wrongKey = "not-the-key-\(UUID().uuidString)"
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: wrongKey, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("401") == true
                    && error?.message.contains(wrongKey) == false && error?.message.contains("\n") == false
            }
            #expect(server.ledger.held == 0)

            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            let other = try Harness()
            _ = try await OutboxTests.answeredPayments(other, 1)
            await #expect {
                try await other.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { error in
                let error = error as? HandoffError
                return error?.code == .syncRefused && error?.message.contains("another journal") == true
            }
            #expect(try other.journal.acknowledgedThrough() == 0)
        }
        // A port nothing listens on any more.
        let server = try await FleetStandIn.start()
        let url = server.baseURL
        await server.stop()
        let harness = try Harness()
        _ = try harness.coordinator.prepare(SquareFixture.request())
        await #expect {
            try await harness.journal.sync(to: url, deviceKey: "k", timeout: .seconds(10))
        } throws: { ($0 as? HandoffError)?.code == .syncUnavailable }
        #expect(try harness.journal.acknowledgedThrough() == 0)
        #expect(try harness.journal.changes(from: 0, limit: 10).count == 1)
    }

    @Test("a sync beside an app taking payments: neither fails, and the ledger ends equal to the journal")
    func syncBesideWriter() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 20)
            let done = Flag()
            let writer = Task {
                defer { done.set() }
                return try await OutboxTests.answeredPayments(harness, 100)
            }
            var syncs = 0
            while !done.isSet || syncs == 0 {
                _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
                syncs += 1
                try await Task.sleep(for: .milliseconds(2))
            }
            _ = try await writer.value
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }

    @Test("a batch stays under 1 MiB however large its changes: it ends before the change that would pass it")
    func batchBytes() throws {
        // A real payment's JSON, with a member the server keeps as it is, 4,000 bytes long.
        let harness = try Harness()
        let entry = try harness.coordinator.prepare(SquareFixture.request()).entry
        let json = entry.encodeJSON()
        let big = "{\"note\":\"" + String(repeating: "x", count: 4_000) + "\"," + json.dropFirst()
        let changes = (1...500).map { sequence in
            JournalChange(
                sequence: Int64(sequence),
                paymentID: entry.id.rawValue,
                kind: "recorded",
                at: 1_795_000_000_000,
                fromState: "pending",
                toState: "completed",
                note: nil,
                payment: big
            )
        }
        let id = UUID()
        let batch = try SyncBatchBody(journalID: id, unsent: Int64(changes.count), changes: changes)
        #expect(batch.body.count <= PaymentJournal.syncBatchBytes)
        #expect(batch.first == 1 && batch.count < 500 && batch.last == Int64(batch.count))
        // The next change would not have fitted, and the body is the contract's object with exactly those changes.
        let object = try #require(try JSONSerialization.jsonObject(with: batch.body) as? [String: Any])
        #expect(object["journal_id"] as? String == id.journalText)
        #expect((object["changes"] as? [Any])?.count == batch.count)
        // The device's health (contract version 4): its release, and what it held unsent, this batch's included.
        #expect(object["tender_version"] as? String == SyncContract.tenderVersion)
        #expect(object["unsent"] as? Int == changes.count)
        #expect(object["contract_version"] as? Int == 5)
        #expect(batch.body.count + big.utf8.count > PaymentJournal.syncBatchBytes)
    }

    @Test("a server whose out_of_sequence answers keep moving is not followed forever")
    func outOfSequenceLoopEnds() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 3)
            for index in 0..<10 {
                let expected = index % 2 == 0 ? 4 : 2
                server.fail(
                    request: index,
                    with: .answer(
                        status: 409,
                        body: #"{"error":{"code":"out_of_sequence","message":"m","expected_sequence":\#(expected)}}"#
                    )
                )
            }
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { ($0 as? HandoffError)?.code == .syncRefused }
            #expect(server.requests.count == 4)
            #expect(try harness.journal.acknowledgedThrough() == 0)
        }
    }

    @Test("a server acknowledging changes the journal never made is refused: later changes are not taken as sent")
    func acknowledgedBeyondTheJournal() async throws {
        try await Self.withServer { server in
            let harness = try Harness()
            _ = try await OutboxTests.answeredPayments(harness, 2)
            server.fail(request: 0, with: .answer(status: 200, body: #"{"acknowledged_through":1000000}"#))
            await #expect {
                try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            } throws: { ($0 as? HandoffError)?.code == .syncRefused }
            #expect(try harness.journal.acknowledgedThrough() == 0)
            #expect(try harness.journal.changes(from: 0, limit: 100).count == 6)
            _ = try await harness.journal.sync(to: server.baseURL, deviceKey: server.key, timeout: Self.patience)
            try Self.expectLedgerEqualsJournal(server, harness.journal)
        }
    }
}
