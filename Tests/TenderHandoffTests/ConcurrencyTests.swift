import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

@Suite("Concurrency: exactly once from many tasks")
struct ConcurrencyTests {
    @Test(
        "1,000 concurrent deliveries of one callback, through 4 journals on one file, record it exactly once (SEC-2, REL-3)"
    )
    func thousandDeliveries() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let clock = ManualClock()
        let coordinators = try (0..<4).map { _ in
            HandoffCoordinator(journal: try PaymentJournal(path: path, clock: clock), opener: ScriptedOpener())
        }
        let prepared = try coordinators[0].prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: prepared.url)

        let dispositions = try await withThrowingTaskGroup(of: CallbackDisposition?.self) { group in
            for index in 0..<1000 {
                let coordinator = coordinators[index % coordinators.count]
                group.addTask { try await coordinator.handle(reply)?.disposition }
            }
            var all: [CallbackDisposition?] = []
            for try await disposition in group { all.append(disposition) }
            return all
        }
        #expect(dispositions.count == 1000)
        #expect(dispositions.filter { $0 == .recorded }.count == 1)
        #expect(dispositions.filter { $0 == .duplicate }.count == 999)
        let journal = coordinators[0].journal
        #expect(try journal.entry(prepared.entry.id)?.state == .completed)
        let callbackEvents = try await journal.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM payment_event WHERE kind = 'recorded'")
        }
        #expect(callbackEvents == 1)
    }

    @Test("many payments paid and answered at once: every pay returns its own outcome")
    func concurrentPayments() async throws {
        let box = CoordinatorBox()
        let opener = ScriptedOpener { url in
            guard let reply = try? SquareFixture.reply(to: url) else { return false }
            box.coordinator?.receive(URL(string: reply)!)
            return true
        }
        let harness = try Harness(opener: opener)
        box.coordinator = harness.coordinator
        let entries = try await withThrowingTaskGroup(of: JournalEntry.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await harness.coordinator.pay(SquareFixture.request(minorUnits: 100 + index))
                }
            }
            var all: [JournalEntry] = []
            for try await entry in group { all.append(entry) }
            return all
        }
        #expect(entries.count == 50)
        #expect(entries.allSatisfy { $0.state == .completed && $0.isApproved })
        #expect(Set(entries.map(\.amount.minorUnits)) == Set(100..<150))
        #expect(opener.opened.count == 50)
    }
}
