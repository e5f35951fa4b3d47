import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// Issues 32 and 38, "One record confirms one payment — whichever is asked first": a confirmation built on a provider
/// record is checked, in the transaction that records it, against every other payment of the journal that names the
/// record (confirmed by it, or reported it); where the provider's evidence cannot tell them apart, the record confirms
/// neither and both are flagged `contested`. A Square payment is verified at the location it was requested at.
@Suite("One record confirms one payment")
struct OneRecordOnePaymentTests {
    /// A verifier that looks up the order the callback named (Square's RetrieveOrder) and confirms it: what Square's
    /// verifier answers for any existing order of the right amount, place and time, whichever payment names it.
    static func orderLookup() -> AnsweringVerifier {
        AnsweringVerifier { request in
            let order = request.transactionID ?? "NONE"
            return PaymentVerification(
                verdict: .confirmed,
                reason: .matches,
                message: "Square's order \(order) agrees.",
                provenOutcome: .approved,
                evidence: ReconciliationTests.evidence(
                    amount: request.amount,
                    orderID: order,
                    paymentID: "PAY-" + order
                )
            )
        }
    }

    /// P1 paid and answered with order O1; P2, for the same amount, answered with its own token and O1 (an app that
    /// hijacked the scheme, having seen P2's request and P1's order).
    static func forgedApproval(_ harness: Harness) async throws -> (genuine: JournalEntry, forged: JournalEntry) {
        let first = try harness.coordinator.prepare(SquareFixture.request())
        let genuine = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: first.url, transactionID: "O1"))?.entry
        )
        harness.clock.advance(by: 30)
        let second = try harness.coordinator.prepare(SquareFixture.request())
        let forged = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: second.url, transactionID: "O1"))?.entry
        )
        #expect(genuine.state == .completed && forged.state == .completed)
        return (genuine, forged)
    }

    /// The payment's `contested` history rows: the verifications their notes hold.
    static func contests(_ harness: Harness, _ id: PaymentID) throws -> [PaymentVerification] {
        try harness.journal.history(of: id).filter { $0.kind == .contested }.compactMap { event in
            event.note.flatMap(PaymentVerification.init(journalJSON:))
        }
    }

    /// The payments that hold a claim on record `recordID`.
    static func holders(_ harness: Harness, _ recordID: String) async throws -> [String] {
        try await harness.journal.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT payment_id FROM provider_record WHERE record_id = ?",
                arguments: [recordID]
            )
        }
    }

    /// Both payments flagged contested, each naming the other, neither confirmed nor contradicted, nobody holding O1.
    static func expectBothContested(_ harness: Harness, _ genuine: PaymentID, _ forged: PaymentID) async throws {
        for (id, other) in [(genuine, forged), (forged, genuine)] {
            let entry = try #require(try harness.journal.entry(id))
            #expect(entry.contestedAt != nil && entry.needsReconciliation, "\(id)")
            #expect(entry.verification?.verdict != .contradicted, "\(id)")
            #expect(entry.outcome?.assurance == .reportedByPOSApp, "\(id): a contested answer is only reported")
            #expect(entry.acknowledgedAt == nil, "\(id) is delivered again")
            let contests = try Self.contests(harness, id)
            #expect(contests.count == 1, "\(id): flagged once")
            #expect(contests.first?.verdict == .unverifiable && contests.first?.reason == .contested)
            #expect(contests.first?.message.contains(other.rawValue) == true, "\(id) names \(other)")
        }
        #expect(try await Self.holders(harness, "O1").isEmpty, "a contested record confirms nobody")
    }

    @Test(
        "genuine verified first, then the forgery naming its order: both contested, the genuine one never contradicted"
    )
    func genuineFirst() async throws {
        let harness = try Harness()
        let first = try harness.coordinator.prepare(SquareFixture.request())
        let genuine = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: first.url, transactionID: "O1"))?.entry
        )
        let verifier = Self.orderLookup()
        let confirmed = try await harness.coordinator.verify(genuine.id, with: verifier)
        #expect(confirmed.verification?.verdict == .confirmed)
        #expect(try await Self.holders(harness, "O1") == [genuine.id.rawValue])
        // Only now does the forgery come, 30 s later, naming O1 with its own token.
        harness.clock.advance(by: 30)
        let second = try harness.coordinator.prepare(SquareFixture.request())
        let forged = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: second.url, transactionID: "O1"))?.entry
        )
        let checked = try await harness.coordinator.reconcile(forged.id, using: verifier)
        #expect(checked.recorded && checked.verification.reason == .contested)
        #expect(checked.verification.verdict == .unverifiable)
        try await Self.expectBothContested(harness, genuine.id, forged.id)
        // The genuine payment's earlier confirmation is in its history, then the contest: nothing re-decided silently.
        let kinds = try harness.journal.history(of: genuine.id).map(\.kind)
        #expect(Array(kinds.suffix(2)) == [.verified, .contested])
    }

    @Test("the forgery verified first, then the genuine payment: both contested at once; asking again changes nothing")
    func forgeryFirst() async throws {
        let harness = try Harness()
        let (genuine, forged) = try await Self.forgedApproval(harness)
        let verifier = Self.orderLookup()
        let first = try await harness.coordinator.reconcile(forged.id, using: verifier)
        #expect(first.recorded && first.verification.reason == .contested)
        #expect(first.verification.message.contains(genuine.id.rawValue))
        try await Self.expectBothContested(harness, genuine.id, forged.id)
        let before = try harness.journal.entry(genuine.id)
        let second = try await harness.coordinator.reconcile(genuine.id, using: verifier)
        #expect(!second.recorded && second.verification.reason == .contested)
        #expect(try harness.journal.entry(genuine.id) == before)
        // Neither is asked about again by reconcile: a person decides.
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty)
    }

    @Test("reconcile, oldest first: both contested, neither confirmed, and recover() delivers both")
    func forgedApprovalReconciled() async throws {
        let harness = try Harness()
        let (genuine, forged) = try await Self.forgedApproval(harness)
        for entry in [genuine, forged] { #expect(try harness.coordinator.acknowledge(entry)) }
        let results = try await harness.coordinator.reconcile(using: Self.orderLookup())
        #expect(results.map(\.before.id) == [genuine.id])
        #expect(results[0].recorded && results[0].verification.reason == .contested)
        try await Self.expectBothContested(harness, genuine.id, forged.id)
        let recovered = try harness.coordinator.recover().undelivered.map(\.id)
        #expect(Set(recovered) == [genuine.id, forged.id])
    }

    @Test(
        "a rival the provider's evidence tells apart (another amount, a record outside its time) does not stop a confirmation"
    )
    func toldApart() async throws {
        let harness = try Harness()
        let first = try harness.coordinator.prepare(SquareFixture.request())
        let genuine = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: first.url, transactionID: "O1"))?.entry
        )
        let recordTime = harness.clock.now()
        // Another amount, naming O1.
        let cheaper = try harness.coordinator.prepare(SquareFixture.request(minorUnits: 100))
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: cheaper.url, transactionID: "O1"))
        // The same amount, naming O1, but written an hour after O1's payment was taken: not its time.
        harness.clock.advance(by: 3600)
        let later = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: later.url, transactionID: "O1"))
        let verifier = AnsweringVerifier { request in
            var evidence = ReconciliationTests.evidence(amount: request.amount, orderID: "O1", paymentID: "PAY-O1")
            evidence.records[0].createdAt = recordTime
            return PaymentVerification(
                verdict: .confirmed,
                reason: .matches,
                message: "Square's order O1 agrees.",
                provenOutcome: .approved,
                evidence: evidence
            )
        }
        let checked = try await harness.coordinator.verify(genuine.id, with: verifier)
        #expect(checked.verification?.verdict == .confirmed)
        #expect(checked.contestedAt == nil)
        #expect(try await Self.holders(harness, "O1") == [genuine.id.rawValue])
    }

    @Test("an unknown payment whose search finds a record another payment's confirmation holds: both contested")
    func searchFindsHeldRecord() async throws {
        let harness = try Harness()
        let unknown = try ReconciliationTests.unknownPayment(harness)
        harness.clock.advance(by: 60)
        let paid = try harness.coordinator.prepare(SquareFixture.request())
        let answered = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: paid.url, transactionID: "O7"))?.entry
        )
        _ = try await harness.coordinator.verify(answered.id, with: Self.orderLookup())
        // The unknown payment's search finds the payment of order O7, which the other payment's verdict holds.
        let search = AnsweringVerifier { request in
            ReconciliationReviewTests.confirmed(
                ReconciliationReviewTests.searchEvidence(amount: request.amount, paymentID: "PAY-O7", orderID: "O7"),
                reported: false
            )
        }
        let result = try await harness.coordinator.reconcile(unknown.id, using: search)
        #expect(result.verification.verdict == .unverifiable)
        #expect(result.verification.reason == .contested)
        #expect(result.recorded && result.after.state == .unknown && result.after.contestedAt != nil)
        #expect(try harness.journal.entry(answered.id)?.contestedAt != nil, "the holder is flagged too")
        #expect(try await Self.holders(harness, "O7").isEmpty)
    }

    @Test("two payments can never hold one record: the database's key refuses the second")
    func oneHolderPerRecord() async throws {
        let harness = try Harness()
        let first = try harness.coordinator.prepare(SquareFixture.request())
        let genuine = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: first.url, transactionID: "O1"))?.entry
        )
        let other = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.verify(genuine.id, with: Self.orderLookup())
        #expect(throws: DatabaseError.self) {
            try harness.journal.pool.write { db in
                try db.execute(
                    sql: "INSERT INTO provider_record (provider, record_id, payment_id) VALUES ('square', 'O1', ?)",
                    arguments: [other.entry.id.rawValue]
                )
            }
        }
    }

    @Test("the location a Square payment was requested at is kept and asked with, whatever location the caller names")
    func requestedLocation() async throws {
        let harness = try Harness()
        var request = SquareFixture.request()
        request.locationID = SquareLocationID("L1")
        let prepared = try harness.coordinator.prepare(request)
        #expect(prepared.entry.squareLocationID == "L1")
        let object = try #require(try JSONValue.parse(prepared.entry.encodeJSON()).objectValue)
        #expect(object["square_location_id"]?.stringValue == "L1")
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))
        let verifier = AnsweringVerifier(.unverifiable, .notFoundYet)
        _ = try await harness.coordinator.verify(prepared.entry.id, with: verifier)
        _ = try await harness.coordinator.reconcile(prepared.entry.id, using: verifier, squareLocationID: "L2")
        #expect(verifier.requests.map(\.squareLocationID) == ["L1", "L1"])
        // A payment written without a location is asked with the caller's.
        let elsewhere = try harness.coordinator.prepare(SquareFixture.request())
        #expect(elsewhere.entry.squareLocationID == nil)
        _ = try await harness.coordinator.reconcile(elsewhere.entry.id, using: verifier, squareLocationID: "L2")
        #expect(verifier.requests.last?.squareLocationID == "L2")
        // A reopened hand-off at another location is another payment.
        request.locationID = SquareLocationID("L9")
        expectError(.paymentMismatch) {
            try harness.coordinator.prepare(request, id: prepared.entry.id, reopening: true)
        }
    }

    @Test("the authorized seller's location, filled in by the coordinator, is the payment's")
    func authorizedLocation() throws {
        let (harness, coordinator) = try SquareAuthorizationHandoffTests.harness(
            try SquareAuthorizationHandoffTests.authorizedManager()
        )
        let prepared = try coordinator.prepare(SquareFixture.request())
        #expect(prepared.entry.squareLocationID == "L1")
        #expect(try harness.journal.entry(prepared.entry.id)?.squareLocationID == "L1")
    }
}
