import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

@Suite("Coordinator: write-ahead, opening, waiting, time-outs, reopening")
struct CoordinatorTests {
    @Test("the payment is committed before the POS app opens, and pay returns the recorded outcome (REL-1)")
    func writeAheadThenRecord() async throws {
        let box = CoordinatorBox()
        let opener = ScriptedOpener { url in
            // At the moment the POS app opens, the journal already holds the pending payment: check it
            // through a second, independent connection to the file.
            let other = try? PaymentJournal(path: box.path, clock: ManualClock())
            let pending = (try? other?.entries(in: [.pending]))??.count
            box.sawPendingAtOpen = pending == 1
            // Point of Sale answers: the app receives the callback.
            guard let reply = try? SquareFixture.reply(to: url) else { return false }
            box.coordinator?.receive(URL(string: reply)!)
            return true
        }
        let harness = try Harness(opener: opener)
        box.path = harness.journal.path
        box.coordinator = harness.coordinator
        let id = PaymentID(rawValue: "order-1042")!
        let entry = try await harness.coordinator.pay(SquareFixture.request(), id: id)
        #expect(box.sawPendingAtOpen)
        #expect(entry.id == id)
        #expect(entry.state == .completed)
        #expect(entry.isApproved)
        #expect(entry.openedAt != nil)
        #expect(opener.opened.count == 1)
        // Not acknowledged yet: delivered again at the next launch (REL-3).
        #expect(try harness.coordinator.recover().undelivered.map(\.id) == [id])
        #expect(try harness.coordinator.acknowledge(entry))
        #expect(try harness.coordinator.recover().undelivered.isEmpty)
        #expect(harness.log.events.map(\.kind) == [.begun, .opened, .recorded, .acknowledged])
    }

    @Test("pay returns the entry exactly as the journal holds it, whenever the answer comes")
    func payReturnsStoredEntry() async throws {
        /// How the stand-in POS app answers.
        enum Answer: CaseIterable { case duringOpening, duringOpeningThenAcknowledgedElsewhere, afterOpening }
        for answer in Answer.allCases {
            let box = CoordinatorBox()
            let opener = ScriptedOpener { url in
                guard let coordinator = box.coordinator, let reply = try? SquareFixture.reply(to: url) else {
                    return false
                }
                switch answer {
                case .duringOpening:
                    _ = try? await coordinator.handle(reply)
                case .duringOpeningThenAcknowledgedElsewhere:
                    // Recorded here, then acknowledged by another coordinator on the file (another process): the
                    // payment is no longer the entry the answer left, and pay must read it.
                    let entry = try? await coordinator.handle(reply)?.entry
                    let other = try? PaymentJournal(path: box.path, clock: ManualClock())
                    if let entry { _ = try? other?.acknowledge(entry) }
                case .afterOpening:
                    Task {
                        try? await Task.sleep(for: .milliseconds(20))
                        _ = try? await coordinator.handle(reply)
                    }
                }
                return true
            }
            let harness = try Harness(opener: opener)
            box.path = harness.journal.path
            box.coordinator = harness.coordinator
            let entry = try await harness.coordinator.pay(SquareFixture.request())
            #expect(entry.state == .completed, "\(answer)")
            #expect(entry.openedAt != nil, "\(answer)")
            #expect((entry.acknowledgedAt != nil) == (answer == .duringOpeningThenAcknowledgedElsewhere), "\(answer)")
            #expect(try harness.journal.entry(entry.id) == entry, "\(answer)")
        }
    }

    @Test(
        "no callback within the time-out: unknown, the POS app is not opened again, a later callback still matches (REL-5)"
    )
    func timeout() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(
            configuration: .init(expiry: .seconds(900), handoffTimeout: .seconds(120)),
            opener: opener
        )
        let task = Task { try await harness.coordinator.pay(SquareFixture.request()) }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: 119)
        #expect(harness.clock.sleeperCount == 1)
        harness.clock.advance(by: 1)
        let entry = try await task.value
        #expect(entry.state == .unknown)
        #expect(entry.outcome == nil)
        #expect(opener.opened.count == 1)
        #expect(harness.log.events.map(\.kind).contains(.timedOut))

        harness.clock.advance(by: 300)
        let reply = try SquareFixture.reply(to: try #require(opener.opened.first))
        let receipt = try #require(try await harness.coordinator.handle(reply))
        #expect(receipt.disposition == .recorded)
        #expect(receipt.entry?.state == .completed)
        #expect(opener.opened.count == 1)
    }

    @Test("a payment resolved by hand while pay waits for it: pay returns the resolved entry at once")
    func resolveWakesPay() async throws {
        let harness = try Harness(configuration: .init(expiry: .seconds(86_400), handoffTimeout: .seconds(86_400)))
        let id = PaymentID()
        let coordinator = harness.coordinator
        let task = Task { try await coordinator.pay(SquareFixture.request(), id: id) }
        // pay waits on the clock for its time-out, which this test never reaches.
        await harness.clock.waitForSleepers(1)
        let resolved = try harness.coordinator.resolve(id, as: .approved, note: "seen on the POS app")
        let returned = try #require(try await finished(task, within: 120), "pay still waits for its time-out")
        #expect(returned == resolved)
        #expect(returned.state == .resolved && returned.isApproved)
    }

    @Test("a POS app that cannot be opened: not_opened, an error, and nothing pending (REL-1)")
    func openFails() async throws {
        let harness = try Harness(opener: ScriptedOpener { _ in false })
        let id = PaymentID()
        await expectError(.cannotOpenPOSApp) {
            try await harness.coordinator.pay(SquareFixture.request(), id: id)
        }
        #expect(try harness.journal.entry(id)?.state == .notOpened)
        // Nothing was handed off, so trying again needs no special permission.
        let again = try harness.coordinator.prepare(SquareFixture.request(), id: id)
        #expect(again.entry.state == .pending)
        #expect(again.entry.handoffCount == 2)
    }

    @Test("a second tap on the same payment does not open the POS app again unless the caller says so")
    func secondTap() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(configuration: .init(handoffTimeout: .seconds(60)), opener: opener)
        let id = PaymentID(rawValue: "order-7")!
        let first = Task { try await harness.coordinator.pay(SquareFixture.request(), id: id) }
        await harness.clock.waitForSleepers(1)
        await expectError(.paymentPending) {
            try await harness.coordinator.pay(SquareFixture.request(), id: id)
        }
        #expect(opener.opened.count == 1)
        expectError(.paymentMismatch) {
            try harness.coordinator.prepare(SquareFixture.request(minorUnits: 999), id: id, reopening: true)
        }
        harness.clock.advance(by: 60)
        #expect(try await first.value.state == .unknown)
        expectError(.outcomeUnknown) { try harness.coordinator.prepare(SquareFixture.request(), id: id) }

        // Reopened at the caller's request: a fresh token; the first token's callback is still matched.
        let reopened = try harness.coordinator.prepare(SquareFixture.request(), id: id, reopening: true)
        let firstToken = try SquareFixture.token(in: try #require(opener.opened.first))
        #expect(try SquareFixture.token(in: reopened.url) != firstToken)
        #expect(reopened.entry.handoffCount == 2)
        let receipt = try await harness.coordinator.handle(
            try SquareFixture.reply(to: try #require(opener.opened.first))
        )
        #expect(receipt?.disposition == .recorded)
        // The second hand-off's own answer, after the payment ended with the first's: not a replay, but an extra
        // answer that changes nothing and is kept in the history (maybe a second charge); its replay is a duplicate.
        let before = try #require(try harness.journal.entry(id))
        let extra = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: reopened.url)))
        #expect(extra.disposition == .extraAnswer)
        #expect(extra.reportedOutcome.status == .approved)
        #expect(try harness.journal.entry(id) == before)
        #expect(harness.log.events.contains { $0.kind == .extraAnswer })
        let last = try await harness.journal.pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT kind, note FROM payment_event WHERE payment_id = ? ORDER BY id DESC LIMIT 1",
                arguments: [id.rawValue]
            )
            .map { row -> (kind: String?, note: String?) in (row["kind"], row["note"]) }
        }
        #expect(last?.kind == "extra_answer")
        // The extra answer's own report is kept, its transaction ID with it: what a refund of a second charge needs.
        let note = try #require(last?.note)
        let kept = try #require(RecordedOutcome(journalJSON: note))
        #expect(kept == extra.reportedOutcome)
        #expect(kept.transactionID == "TXN-1")
        #expect(
            try await harness.coordinator.handle(try SquareFixture.reply(to: reopened.url))?.disposition == .duplicate
        )
        expectError(.paymentFinished) {
            try harness.coordinator.prepare(SquareFixture.request(), id: id, reopening: true)
        }
    }

    @Test("a payment reopened while the first pay still waits: both calls get the answer")
    func reopenedWhileWaiting() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(
            configuration: .init(expiry: .seconds(900), handoffTimeout: .seconds(60)),
            opener: opener
        )
        let id = PaymentID(rawValue: "order-8")!
        let first = Task { try await harness.coordinator.pay(SquareFixture.request(), id: id) }
        await harness.clock.waitForSleepers(1)
        let second = Task { try await harness.coordinator.pay(SquareFixture.request(), id: id, reopening: true) }
        await harness.clock.waitForSleepers(2)
        #expect(opener.opened.count == 2)

        let reply = try SquareFixture.reply(to: opener.opened[1])
        #expect(try await harness.coordinator.handle(reply)?.disposition == .recorded)
        // Each call has its own waiter: the second's did not take the first's place, so neither hangs.
        #expect(try await finished(second, within: 120)?.state == .completed)
        #expect(try await finished(first, within: 120)?.state == .completed)
        #expect(!harness.log.events.contains { $0.kind == .timedOut })
    }

    @Test("the first pay's time-out leaves a newer hand-off of the payment pending, waiting for its own (REL-5)")
    func olderTimeOutSparesNewerHandoff() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(
            configuration: .init(expiry: .seconds(900), handoffTimeout: .seconds(60)),
            opener: opener
        )
        let id = PaymentID(rawValue: "order-9")!
        let first = Task { try await harness.coordinator.pay(SquareFixture.request(), id: id) }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: 30)
        let second = Task { try await harness.coordinator.pay(SquareFixture.request(), id: id, reopening: true) }
        await harness.clock.waitForSleepers(2)

        // The first hand-off's minute is up, the second's is half gone: the first call returns the payment as it
        // stands, still pending, and the second keeps waiting.
        harness.clock.advance(by: 30)
        let firstEntry = try #require(try await finished(first, within: 120))
        #expect(firstEntry.state == .pending)
        #expect(firstEntry.handoffCount == 2)
        #expect(try harness.journal.entry(id)?.state == .pending)
        #expect(!harness.log.events.contains { $0.kind == .timedOut })
        await harness.clock.waitForSleepers(1)
        #expect(harness.clock.sleeperCount == 1)

        let reply = try SquareFixture.reply(to: opener.opened[1])
        #expect(try await harness.coordinator.handle(reply)?.disposition == .recorded)
        #expect(try await finished(second, within: 120)?.state == .completed)
    }

    @Test("an answer recorded by another process wakes the waiting pay when the app receives it too")
    func recordedElsewhere() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(opener: opener)
        let other = HandoffCoordinator(
            journal: try PaymentJournal(path: harness.journal.path, clock: harness.clock),
            opener: ScriptedOpener()
        )
        let task = Task { try await harness.coordinator.pay(SquareFixture.request()) }
        await harness.clock.waitForSleepers(1)
        let reply = try SquareFixture.reply(to: try #require(opener.opened.first))
        #expect(try await other.handle(reply)?.disposition == .recorded)
        #expect(try await harness.coordinator.handle(reply)?.disposition == .duplicate)
        // Should pay not wake, time it out after a while rather than hang: the test then fails below.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 20_000_000_000)
            harness.clock.advance(by: 3600)
        }
        defer { watchdog.cancel() }
        let entry = try await task.value
        #expect(entry.state == .completed)
        #expect(!harness.log.events.contains { $0.kind == .timedOut })
    }

    @Test("a cancelled pay leaves the payment pending; its callback is still recorded and delivered")
    func cancellation() async throws {
        let opener = ScriptedOpener()
        let harness = try Harness(opener: opener)
        let task = Task { try await harness.coordinator.pay(SquareFixture.request()) }
        await harness.clock.waitForSleepers(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let url = try #require(opener.opened.first)
        #expect(try harness.journal.entries(in: [.pending]).count == 1)
        #expect(try await harness.coordinator.handle(try SquareFixture.reply(to: url))?.disposition == .recorded)
        #expect(try harness.coordinator.undeliveredEntries().first?.state == .completed)
    }

    @Test("a callback delivered to a cold-started process is matched, and delivered until acknowledged (REL-3, REL-6)")
    func coldStart() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let clock = ManualClock()
        let url: URL
        do {
            let coordinator = HandoffCoordinator(
                journal: try PaymentJournal(path: path, clock: clock),
                opener: ScriptedOpener()
            )
            url = try coordinator.prepare(SquareFixture.request()).url
        }
        // The app was killed while Point of Sale was in front; iOS relaunches it with the callback.
        let relaunched = HandoffCoordinator(
            journal: try PaymentJournal(path: path, clock: clock),
            opener: ScriptedOpener()
        )
        let recovery = try relaunched.recover()
        #expect(recovery.pending.count == 1)
        #expect(recovery.undelivered.isEmpty)
        #expect(try await relaunched.handle(try SquareFixture.reply(to: url))?.disposition == .recorded)
        let delivered = try #require(try relaunched.recover().undelivered.first)
        #expect(delivered.isApproved)
        // Killed again before acknowledging: delivered again.
        let again = HandoffCoordinator(journal: try PaymentJournal(path: path, clock: clock), opener: ScriptedOpener())
        #expect(try again.recover().undelivered == [delivered])
        #expect(try again.acknowledge(delivered))
        #expect(try again.recover().undelivered.isEmpty)
    }

    @Test("requests that cannot be handed off are refused before anything is written (SEC-12)")
    func invalidRequests() throws {
        let harness = try Harness()
        var withState = SquareFixture.request()
        withState.state = "mine"
        let bad: [SquareRequest] = [
            withState,
            SquareFixture.request(callback: "square-commerce-v1://callback"),
            SquareFixture.request(minorUnits: 0),
        ]
        for request in bad {
            expectError(.invalidRequest) { try harness.coordinator.prepare(request) }
        }
        expectError(.invalidRequest) {
            try harness.coordinator.prepare(SquareFixture.request(), expiresIn: .zero)
        }
        // An expiry beyond 30 days, from the call or from the configuration, is refused: a POS app answers within
        // minutes, and a far one would not be a time the journal can write.
        expectError(.invalidRequest) {
            try harness.coordinator.prepare(
                SquareFixture.request(),
                expiresIn: HandoffCoordinator.maximumExpiry + .seconds(1)
            )
        }
        let patient = HandoffCoordinator(
            journal: harness.journal,
            opener: ScriptedOpener(),
            configuration: .init(expiry: .seconds(1_000_000_000_000))
        )
        expectError(.invalidRequest) { try patient.prepare(SquareFixture.request()) }
        #expect(try harness.journal.entries().isEmpty)
        let longest = try harness.coordinator.prepare(
            SquareFixture.request(),
            expiresIn: HandoffCoordinator.maximumExpiry
        )
        #expect(longest.entry.expiresAt.timeIntervalSince(longest.entry.createdAt) == 30 * 86_400)
    }

    @Test("pay's four endings: answered during the opening, after it, not opened, timed out")
    func payEndings() async throws {
        /// How the stand-in POS app answers each request.
        final class Script: @unchecked Sendable {
            let answers = Locked<[String]>(["during", "after", "unopened", "never"])
            weak var coordinator: HandoffCoordinator?
        }
        let script = Script()
        let opener = ScriptedOpener { url in
            guard let coordinator = script.coordinator else { return false }
            let answer = script.answers.withLock { $0.removeFirst() }
            guard let reply = try? SquareFixture.reply(to: url) else { return false }
            switch answer {
            case "during":
                // The app comes back before the opener returns: the callback is recorded inside the opening.
                let receipt = try? await coordinator.handle(reply)
                return receipt?.disposition == .recorded
            case "after":
                Task { _ = try? await coordinator.handle(reply) }
                return true
            case "unopened":
                return false
            default:
                return true
            }
        }
        let configuration = HandoffCoordinator.Configuration(expiry: .seconds(900), handoffTimeout: .seconds(60))
        let harness = try Harness(configuration: configuration, opener: opener)
        script.coordinator = harness.coordinator

        let during = try await harness.coordinator.pay(SquareFixture.request())
        #expect(during.state == .completed)
        #expect(during.openedAt != nil)
        #expect(try harness.journal.entry(during.id) == during)

        let after = try await harness.coordinator.pay(SquareFixture.request())
        #expect(after.state == .completed)
        #expect(try harness.journal.entry(after.id) == after)

        let unopened = PaymentID()
        await #expect(throws: HandoffError.self) {
            try await harness.coordinator.pay(SquareFixture.request(), id: unopened)
        }
        #expect(try harness.journal.entry(unopened)?.state == .notOpened)

        let never = Task { try await harness.coordinator.pay(SquareFixture.request()) }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: 60)
        let timedOut = try #require(try await finished(never, within: 120))
        #expect(timedOut.state == .unknown)
        #expect(try harness.journal.entry(timedOut.id) == timedOut)
    }

    @Test("a coordinator without an opener records callbacks; its pay says it has none and writes nothing")
    func noOpener() async throws {
        let harness = try Harness()
        let reader = HandoffCoordinator(journal: harness.journal)
        let prepared = try reader.prepare(SquareFixture.request())
        let receipt = try #require(try await reader.handle(try SquareFixture.reply(to: prepared.url)))
        #expect(receipt.disposition == .recorded)
        let before = try harness.journal.dump()
        let error = await #expect(throws: HandoffError.self) { try await reader.pay(SquareFixture.request()) }
        #expect(error?.code == .cannotOpenPOSApp)
        #expect(error?.message.contains("no opener") == true)
        #expect(try harness.journal.dump() == before)
    }
}

/// Shared state between a test and its opener closure.
final class CoordinatorBox: @unchecked Sendable {
    var path = ""
    weak var coordinator: HandoffCoordinator?
    var sawPendingAtOpen = false
}
