import Foundation
import GRDB
import InMemoryLogging
import Logging
import Tender
import Testing

@testable import TenderHandoff

@Suite("Logs and errors never carry tokens or URLs (SEC-8, SEC-10)")
struct LogRedactionTests {
    @Test("every event and error of a busy hand-off names only payment IDs and providers")
    func nothingLeaks() async throws {
        let box = CoordinatorBox()
        let opener = ScriptedOpener { url in
            guard let reply = try? SquareFixture.reply(to: url) else { return false }
            box.coordinator?.receive(URL(string: reply)!)
            return true
        }
        let harness = try Harness(configuration: .init(expiry: .seconds(60)), opener: opener)
        box.coordinator = harness.coordinator
        var secrets: [String] = []
        var errors: [any Error] = []

        let entry = try await harness.coordinator.pay(SquareFixture.request())
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: prepared.url)
        secrets += [try SquareFixture.token(in: prepared.url), prepared.url.absoluteString, reply]
        secrets += try opener.opened.map { try SquareFixture.token(in: $0) }
        _ = try await harness.coordinator.handle(reply)
        _ = try await harness.coordinator.handle(reply)
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url, token: .some(nil)))
        let late = try harness.coordinator.prepare(SquareFixture.request())
        secrets.append(try SquareFixture.token(in: late.url))
        harness.clock.advance(by: 61)
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: late.url, endpoint: "evil://x"))
        let malformed = "tender-test://payment-done/square_request?data=%7B%22state%22%3A%22\(secrets[0])%22%7D"
        do { _ = try await harness.coordinator.handle(malformed) } catch { errors.append(error) }
        do { _ = try harness.coordinator.prepare(SquareFixture.request(), id: entry.id) } catch { errors.append(error) }
        do { _ = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 7), id: entry.id) } catch {
            errors.append(error)
        }
        _ = try harness.coordinator.recover()
        _ = try harness.coordinator.resolve(late.entry.id, as: .failed, note: "checked")

        #expect(errors.count == 3)
        let kinds = Set(harness.log.events.map(\.kind))
        #expect(
            kinds.isSuperset(of: [
                .begun, .opened, .recorded, .duplicate, .unsolicited, .tampered, .malformed, .resolved,
            ])
        )
        let texts =
            harness.log.events.map(\.description) + errors.map { String(describing: $0) }
            + errors.map { String(reflecting: $0) } + [String(describing: prepared)]
        for text in texts {
            #expect(!text.contains("://"), "\(text)")
            #expect(!text.contains("12.50") && !text.contains("1250"), "\(text)")
            for secret in secrets { #expect(!text.contains(secret)) }
        }
        for event in harness.log.events {
            #expect(event.description.hasPrefix("tender.handoff \(event.kind)"))
        }

        // The same events reached swift-log, each with a fixed message and only the three metadata keys (SEC-10).
        let entries = harness.logs.entries
        #expect(entries.map(\.message.description) == harness.log.events.map { "tender.handoff.\($0.kind)" })
        for (entry, event) in zip(entries, harness.log.events) {
            #expect(entry.metadata == event.logMetadata)
            #expect(Set(entry.metadata.keys).isSubset(of: ["event", "payment_id", "provider"]))
            #expect(entry.level == event.logLevel)
            let rendered = "\(entry.message) \(entry.metadata)"
            #expect(!rendered.contains("://"), "\(rendered)")
            for secret in secrets { #expect(!rendered.contains(secret)) }
        }
        #expect(entries.contains { $0.level == .warning && $0.metadata["event"] == "tampered" })
    }

    @Test("one vocabulary: a callback's event is named as its disposition, and the journal's history uses the names")
    func oneVocabulary() async throws {
        let expected: [CallbackDisposition: HandoffEvent.Kind] = [
            .recorded: .recorded, .duplicate: .duplicate, .extraAnswer: .extraAnswer, .unsolicited: .unsolicited,
            .tampered: .tampered, .late: .late,
        ]
        #expect(Set(expected.keys) == Set(CallbackDisposition.allCases))
        for (disposition, kind) in expected { #expect(HandoffEvent.Kind(disposition) == kind) }

        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))
        let history = try await harness.journal.pool.read { db in
            try String.fetchAll(db, sql: "SELECT kind FROM payment_event ORDER BY id")
        }
        #expect(history == [HandoffEvent.Kind.begun, .recorded].map(\.rawValue))
        #expect(harness.log.events.map(\.kind).suffix(1) == [.recorded])
    }
}
