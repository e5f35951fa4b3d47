import Foundation
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// The entry's one JSON form (`JournalEntry.encodeJSON(history:)`): what `tender journal show --json` prints and
/// what the fleet sync sends (the sync contract's `payment` object).
@Suite("Journal entries as JSON")
struct JournalJSONTests {
    @Test("a resolved payment's JSON: every field, the kept report, and the history in order, with no token")
    func resolvedPayment() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        harness.clock.advance(by: 1.2345)
        let reply = try SquareFixture.reply(to: prepared.url, transactionID: "TXN-9")
        _ = try await harness.coordinator.handle(reply)
        harness.clock.advance(by: 2)
        let resolved = try harness.coordinator.resolve(
            prepared.entry.id,
            as: .declined,
            note: "refunded",
            overwritingCompleted: true
        )
        let events = try harness.journal.history(of: prepared.entry.id)
        #expect(events.map(\.kind) == [.begun, .recorded, .resolved])
        #expect(events.map(\.fromState) == [nil, .pending, .completed])
        #expect(events.map(\.toState) == [.pending, .completed, .resolved])
        #expect(events.last?.note == "refunded")

        let text = resolved.encodeJSON(history: events)
        let object = try #require(try JSONValue.parse(text).objectValue)
        #expect(
            object.keys == [
                "payment_id", "provider", "state", "outcome", "reported_outcome", "needs_reconciliation", "amount",
                "amount_minor_units", "currency", "outcome_amount", "outcome_currency", "transaction_id",
                "client_transaction_id", "foreign_transaction_id", "square_tender_types", "square_location_id",
                "square_application_id", "error_code", "message",
                "outcome_source", "assurance", "idempotency_key", "handoff_count", "created_at", "updated_at",
                "expires_at", "opened_at", "acknowledged_at", "disputed_at", "contested_at", "resolution",
                "verification", "history",
            ]
        )
        #expect(object["payment_id"]?.stringValue == prepared.entry.id.rawValue)
        #expect(object["state"]?.stringValue == "resolved")
        #expect(object["outcome"]?.stringValue == "declined")
        #expect(object["reported_outcome"]?.stringValue == "approved")
        #expect(object["amount"]?.stringValue == "12.50" && object["amount_minor_units"]?.integerValue == 1250)
        #expect(object["outcome_source"]?.stringValue == "manual" && object["assurance"] == .null)
        #expect(object["square_tender_types"]?.arrayValue?.isEmpty == false)
        #expect(object["created_at"]?.stringValue == "2027-01-15T08:00:00.000Z")
        #expect(object["updated_at"]?.stringValue == "2027-01-15T08:00:03.234Z")
        let resolution = try #require(object["resolution"]?.objectValue)
        #expect(resolution["previous_state"]?.stringValue == "completed")
        #expect(resolution["reported"]?.objectValue?["transaction_id"]?.stringValue == "TXN-9")
        let history = object["history"]?.arrayValue ?? []
        let rows = history.compactMap(\.objectValue)
        #expect(rows.map { $0.keys } == Array(repeating: ["kind", "at", "from_state", "to_state", "note"], count: 3))
        #expect(rows.map { $0["kind"]?.stringValue } == ["begun", "recorded", "resolved"])
        #expect(rows[0]["from_state"] == .null && rows[1]["at"]?.stringValue == "2027-01-15T08:00:01.234Z")
        // Without history: the same object, the history left out.
        #expect(resolved.jsonObject().keys == Array(object.keys.dropLast()))
        #expect(!text.contains(try SquareFixture.token(in: prepared.url)))
    }

    @Test("times are RFC 3339 in UTC with the journal's milliseconds, as Foundation's formatter writes them")
    func times() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for milliseconds: Int64 in [0, 1, 999, 1000, 1_800_000_000_123, 2_147_483_647_999, 951_782_400_500] {
            let date = Date(journalTime: milliseconds)
            #expect(JournalEntry.timestamp(date) == formatter.string(from: date), "\(milliseconds)")
        }
        #expect(JournalEntry.timestamp(Date(journalTime: 951_782_400_500)) == "2000-02-29T00:00:00.500Z")
    }

    @Test("a time read back from the journal gives the millisecond it was stored with, until the year 3000")
    func timesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            let milliseconds = Int64.random(in: 0...32_503_680_000_000, using: &generator)
            #expect(Date(journalTime: milliseconds).journalTime == milliseconds, "\(milliseconds)")
        }
        // A clock reading is rounded down to its millisecond.
        #expect(Date(timeIntervalSince1970: 1_800_000_000.1234).journalTime == 1_800_000_000_123)
    }

    @Test("a payment's history is empty for an ID no payment has")
    func noHistory() throws {
        let harness = try Harness()
        #expect(try harness.journal.history(of: PaymentID()).isEmpty)
    }
}
