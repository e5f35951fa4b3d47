import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// Issue 32, "One record confirms one payment": a verdict built on a provider record is checked, in the transaction that
/// records it, against the records every other payment of the journal holds; a Square payment is verified at the
/// location it was requested at.
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

    @Test("a forged approval naming another payment's confirmed order is contradicted by verify, naming it")
    func forgedApprovalVerified() async throws {
        let harness = try Harness()
        let (genuine, forged) = try await Self.forgedApproval(harness)
        let verifier = Self.orderLookup()
        let confirmed = try await harness.coordinator.verify(genuine.id, with: verifier)
        #expect(confirmed.verification?.verdict == .confirmed)

        let checked = try await harness.coordinator.verify(forged.id, with: verifier)
        let verification = try #require(checked.verification)
        #expect(verification.verdict == .contradicted)
        #expect(verification.reason == .claimedByAnotherPayment)
        #expect(verification.note?.contains(genuine.id.rawValue) == true)
        #expect(checked.needsReconciliation && checked.outcome?.assurance == .reportedByPOSApp)
        // The genuine payment stays confirmed, and holds the order.
        #expect(try harness.journal.entry(genuine.id) == confirmed)
        let holders = try await harness.journal.pool.read { db in
            try String.fetchAll(db, sql: "SELECT payment_id FROM provider_record WHERE record_id = 'O1'")
        }
        #expect(holders == [genuine.id.rawValue])
    }

    @Test("reconcile, oldest first, confirms the genuine payment and contradicts the forged approval")
    func forgedApprovalReconciled() async throws {
        let harness = try Harness()
        let (genuine, forged) = try await Self.forgedApproval(harness)
        let results = try await harness.coordinator.reconcile(using: Self.orderLookup())
        #expect(results.map(\.before.id) == [genuine.id, forged.id])
        #expect(results[0].recorded && results[0].after.verification?.verdict == .confirmed)
        #expect(results[1].recorded && results[1].verification.verdict == .contradicted)
        #expect(results[1].verification.reason == .claimedByAnotherPayment)
        #expect(results[1].after.needsReconciliation)
    }

    @Test("an unknown payment whose search finds a record another payment's confirmation holds is not proven by it")
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
        #expect(result.verification.reason == .claimedByAnotherPayment)
        #expect(!result.recorded && result.after == unknown)
    }

    @Test("two payments can never hold one record: the database's key refuses the second")
    func oneHolderPerRecord() async throws {
        let harness = try Harness()
        let (genuine, forged) = try await Self.forgedApproval(harness)
        _ = try await harness.coordinator.verify(genuine.id, with: Self.orderLookup())
        #expect(throws: DatabaseError.self) {
            try harness.journal.pool.write { db in
                try db.execute(
                    sql: "INSERT INTO provider_record (provider, record_id, payment_id) VALUES ('square', 'O1', ?)",
                    arguments: [forged.id.rawValue]
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
