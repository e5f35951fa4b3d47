import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// A verifier that answers each request with what the test says, and remembers what it was asked.
final class AnsweringVerifier: PaymentVerifier, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var asked: [PaymentVerificationRequest] = []
    private let answer: @Sendable (PaymentVerificationRequest) async throws -> PaymentVerification

    init(_ answer: @escaping @Sendable (PaymentVerificationRequest) async throws -> PaymentVerification) {
        self.answer = answer
    }

    /// Answers every request with `verdict` (and `proven`, `reason`), with evidence of an order `ORDER-1`.
    convenience init(
        _ verdict: PaymentVerdict,
        _ reason: PaymentVerification.Reason,
        proven: PaymentOutcome.Status? = nil
    ) {
        self.init { request in
            PaymentVerification(
                verdict: verdict,
                reason: reason,
                message: "scripted: \(verdict) (\(reason))",
                provenOutcome: proven,
                evidence: ReconciliationTests.evidence(amount: request.amount)
            )
        }
    }

    var requests: [PaymentVerificationRequest] { lock.withLock { asked } }

    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        lock.withLock { asked.append(request) }
        return try await answer(request)
    }
}

/// The reconciler (issue 22): what the provider's server proves of payments the journal cannot settle is recorded
/// once, with its evidence, and nothing else changes (REL-2, REL-3, SEC-7).
@Suite("Reconciling payments with the provider's server")
struct ReconciliationTests {
    /// Evidence of Square's order `ORDER-1` with one `COMPLETED` card payment `PAY-1` of `amount` at `L1`.
    static func evidence(
        amount: Money,
        orderID: String = "ORDER-1",
        paymentID: String = "PAY-1"
    ) -> PaymentVerificationEvidence {
        PaymentVerificationEvidence(
            server: "http://stand-in.example",
            endpoints: ["GET /v2/orders/{order_id}", "GET /v2/payments/{payment_id}"],
            askedAt: Date(timeIntervalSince1970: 1_800_000_100),
            orderID: orderID,
            orderLocationID: "L1",
            orderState: "COMPLETED",
            records: [
                PaymentVerificationEvidence.Record(
                    kind: PaymentVerificationEvidence.Record.squarePayment,
                    id: paymentID,
                    status: "COMPLETED",
                    amount: amount,
                    locationID: "L1",
                    sourceType: "CARD"
                )
            ]
        )
    }

    /// A Square payment that timed out: unknown, delivered (acknowledged) as such.
    static func unknownPayment(_ harness: Harness) throws -> JournalEntry {
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let (entry, changed) = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        #expect(changed && entry.state == .unknown)
        #expect(try harness.coordinator.acknowledge(entry))
        return try #require(try harness.journal.entry(entry.id))
    }

    /// Two unknown payments (``unknownPayment(_:)``), the first a second older: reconciled in that order.
    static func twoUnknownPayments(_ harness: Harness) throws -> (JournalEntry, JournalEntry) {
        let first = try unknownPayment(harness)
        harness.clock.advance(by: 1)
        return (first, try unknownPayment(harness))
    }

    /// A Square payment completed by its callback, acknowledged.
    static func completedPayment(_ harness: Harness, amount: Int = 1250) async throws -> JournalEntry {
        let prepared = try harness.coordinator.prepare(SquareFixture.request(minorUnits: amount))
        let entry = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.entry
        )
        #expect(try harness.coordinator.acknowledge(entry))
        return try #require(try harness.journal.entry(entry.id))
    }

    /// The notes of a payment's history rows of `kind`.
    static func notes(_ harness: Harness, _ id: PaymentID, kind: String) throws -> [String] {
        try harness.journal.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT note FROM payment_event WHERE payment_id = ? AND kind = ? ORDER BY id",
                arguments: [id.rawValue, kind]
            )
        }
    }

    @Test("unknown → completed approved from the server: outcome from the provider, evidence on the row and in history")
    func unknownBecomesApproved() async throws {
        let harness = try Harness()
        let entry = try Self.unknownPayment(harness)
        let verifier = AnsweringVerifier(.confirmed, .found, proven: .approved)
        let results = try await harness.coordinator.reconcile(using: verifier)
        try #require(results.count == 1)
        let result = results[0]
        #expect(result.recorded && result.before.state == .unknown && result.after.state == .completed)
        let after = try #require(try harness.journal.entry(entry.id))
        #expect(after == result.after)
        #expect(after.isApproved)
        #expect(after.outcome?.source == .provider)
        #expect(after.outcome?.assurance == .verifiedWithProvider)
        #expect(after.outcome?.transactionID == "ORDER-1", "the server's order, not an ID any POS app reported")
        #expect(after.outcome?.amount == entry.amount)
        #expect(after.verification?.verdict == .confirmed)
        #expect(after.verification?.reason == .found)
        #expect(after.verification?.evidence == Self.evidence(amount: entry.amount))
        // The verifier was asked what the journal knows: no report, no transaction ID, the payment's key.
        #expect(verifier.requests.map(\.reportedStatus) == [nil])
        #expect(verifier.requests.first?.transactionID == nil)
        #expect(verifier.requests.first?.idempotencyKey == entry.idempotencyKey)
        // Structured evidence in the history, not only a message.
        let notes = try Self.notes(harness, entry.id, kind: "reconciled")
        try #require(notes.count == 1)
        let kept = try #require(PaymentVerification(journalJSON: notes[0]))
        #expect(kept.verdict == .confirmed && kept.provenOutcome == .approved)
        #expect(kept.evidence.orderID == "ORDER-1" && kept.evidence.records.first?.id == "PAY-1")
        #expect(kept.evidence.records.first?.amount == entry.amount)
        // A new outcome: delivered to the app again, and logged.
        #expect(try harness.coordinator.recover().undelivered.map(\.id) == [entry.id])
        #expect(harness.log.events.contains { $0.kind == .reconciled && $0.paymentID == entry.id })
        // Done once: the next run has nothing to ask.
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty)
        #expect(verifier.requests.count == 1)
        #expect(try harness.journal.check(full: true) == ["ok"])
    }

    @Test("a pending payment is examined only once its expiry has passed; then the server's decline completes it")
    func expiredPending() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let verifier = AnsweringVerifier(.confirmed, .found, proven: .declined)
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty, "still waiting for its callback")
        #expect(verifier.requests.isEmpty)
        harness.clock.advance(by: 901)
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.map(\.before.state) == [.pending])
        #expect(results.map(\.after.state) == [.completed])
        let after = try #require(try harness.journal.entry(prepared.entry.id))
        #expect(after.outcome?.status == .declined && !after.isApproved)
        // Its callback, coming now, changes nothing: the payment ended with what the server proved (REL-2).
        let late = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url)))
        #expect(late.disposition == .extraAnswer)
        #expect(try harness.journal.entry(prepared.entry.id)?.outcome == after.outcome)
    }

    @Test("a completed payment's callback is confirmed: assurance raised, state and delivery unchanged")
    func completedConfirmed() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        let verifier = AnsweringVerifier(.confirmed, .matches, proven: .approved)
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.count == 1 && results[0].recorded)
        let after = try #require(try harness.journal.entry(entry.id))
        #expect(after.state == .completed && after.outcome?.source == .callback)
        #expect(after.outcome?.transactionID == "TXN-1", "the callback's outcome is kept")
        #expect(after.outcome?.assurance == .verifiedWithProvider)
        #expect(after.verification?.reason == .matches)
        #expect(after.acknowledgedAt != nil, "a confirmation is no news to deliver")
        #expect(verifier.requests.first?.transactionID == "TXN-1", "Square's order ID is looked up")
        #expect(verifier.requests.first?.clientTransactionID == "CLIENT-1")
        #expect(try Self.notes(harness, entry.id, kind: "verified").count == 1)
    }

    @Test("a contradiction flags needs_reconciliation; recover() delivers it until acknowledged; never asked again")
    func contradicted() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        let unknown = try Self.unknownPayment(harness)
        let verifier = AnsweringVerifier(.contradicted, .noSuchOrder)
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.map(\.recorded) == [true, true])
        let completed = try #require(try harness.journal.entry(entry.id))
        #expect(completed.state == .completed, "a terminal state never changes here (REL-2)")
        #expect(completed.outcome == entry.outcome.map { outcome in outcome })
        #expect(completed.needsReconciliation && completed.verification?.verdict == .contradicted)
        let stillUnknown = try #require(try harness.journal.entry(unknown.id))
        #expect(stillUnknown.state == .unknown && stillUnknown.verification?.reason == .noSuchOrder)
        // Delivered again, at every launch, until the app acknowledges what it now holds.
        for _ in 0..<2 {
            #expect(Set(try harness.coordinator.recover().undelivered.map(\.id)) == [entry.id, unknown.id])
        }
        #expect(try harness.coordinator.acknowledge(completed))
        #expect(try harness.coordinator.acknowledge(stillUnknown))
        #expect(try harness.coordinator.recover().undelivered.isEmpty)
        // A verdict recorded is not asked about again; only a person's resolution ends it.
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty)
        let resolved = try harness.coordinator.resolve(
            entry.id,
            as: .failed,
            note: "checked",
            overwritingCompleted: true
        )
        #expect(!resolved.needsReconciliation)
        #expect(try Self.notes(harness, entry.id, kind: "contradicted").count == 1)
        #expect(try Self.notes(harness, unknown.id, kind: "contradicted").count == 1)
    }

    @Test(
        "not found yet, ambiguous, pending and no lookup API change nothing, and are asked again",
        arguments: [
            PaymentVerification.Reason.notFoundYet, .ambiguous, .pending, .noLookupAPI, .searchTooBroad,
        ]
    )
    func unverifiableChangesNothing(reason: PaymentVerification.Reason) async throws {
        let harness = try Harness()
        _ = try Self.unknownPayment(harness)
        _ = try await Self.completedPayment(harness)
        let before = try harness.journal.dump()
        let verifier = AnsweringVerifier(.unverifiable, reason)
        for round in 1...2 {
            let results = try await harness.coordinator.reconcile(using: verifier)
            #expect(results.count == 2)
            #expect(results.allSatisfy { !$0.recorded && $0.before == $0.after })
            #expect(try harness.journal.dump() == before, "round \(round)")
        }
        #expect(verifier.requests.count == 4)
    }

    @Test("a verifier that cannot ask (5xx, time-out) stops the run; nothing is recorded for it; a rerun finishes")
    func failureStopsAndRerunFinishes() async throws {
        let harness = try Harness()
        let (first, second) = try Self.twoUnknownPayments(harness)
        let failing = Locked(true)
        let verifier = AnsweringVerifier { request in
            if request.idempotencyKey == second.idempotencyKey, failing.withLock({ $0 }) {
                throw ProviderAPIError(
                    .serviceUnavailable,
                    "Square answered 503 four times.",
                    provider: .square,
                    httpStatusCode: 503,
                    attempts: 4
                )
            }
            // Each payment's own order: one record confirms one payment.
            let order = "ORDER-\(request.idempotencyKey)"
            return PaymentVerification(
                verdict: .confirmed,
                reason: .found,
                message: "found",
                provenOutcome: .approved,
                evidence: ReconciliationTests.evidence(
                    amount: request.amount,
                    orderID: order,
                    paymentID: "PAY-" + order
                )
            )
        }
        var seen: [PaymentID] = []
        await expectError(.verificationUnavailable) {
            try await harness.coordinator.reconcile(using: verifier) { seen.append($0.after.id) }
        }
        #expect(seen == [first.id])
        #expect(try harness.journal.entry(first.id)?.state == .completed)
        let untouched = try #require(try harness.journal.entry(second.id))
        #expect(untouched == second, "a failure to ask is never a verdict")
        failing.withLock { $0 = false }
        let rerun = try await harness.coordinator.reconcile(using: verifier)
        #expect(rerun.map(\.after.id) == [second.id] && rerun[0].after.state == .completed)
    }

    @Test("a payment whose callback comes while its server is asked keeps the callback's outcome")
    func changedMeanwhile() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        let reply = try SquareFixture.reply(to: prepared.url, errorCode: "payment_canceled")
        let coordinator = harness.coordinator
        let verifier = AnsweringVerifier { request in
            // The genuine callback arrives while the server is being asked.
            _ = try await coordinator.handle(reply)
            return PaymentVerification(
                verdict: .confirmed,
                reason: .found,
                message: "found",
                provenOutcome: .approved,
                evidence: ReconciliationTests.evidence(amount: request.amount)
            )
        }
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.count == 1 && !results[0].recorded)
        #expect(results[0].after.state == .completed && results[0].after.outcome?.status == .cancelled)
        #expect(try harness.journal.entry(prepared.entry.id)?.verification == nil)
    }

    @Test("only what needs the server is examined: not Swipe's completed payments, not resolved or late ones")
    func whatIsExamined() async throws {
        let harness = try Harness()
        // Swipe, completed: no lookup API, so never examined (it would be for ever).
        let swipe = try harness.coordinator.prepare(try ProviderHandoffTests.swipeRequest())
        _ = try await harness.coordinator.handle(try ProviderHandoffTests.swipeReply(to: swipe))
        // Swipe, unknown: examined (unverifiable, nothing changes).
        let swipeUnknown = try harness.coordinator.prepare(try ProviderHandoffTests.swipeRequest())
        _ = try harness.journal.markTimedOut(swipeUnknown.entry.id, handoff: 1)
        // Resolved and late: not examined.
        let resolved = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.coordinator.resolve(resolved.entry.id, as: .approved, note: "by hand")
        let late = try harness.coordinator.prepare(SquareFixture.request(), expiresIn: .seconds(10))
        harness.clock.advance(by: 11)
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: late.url))
        let verifier = AnsweringVerifier(.unverifiable, .noLookupAPI)
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.map(\.before.id) == [swipeUnknown.entry.id])
    }

    @Test("reconcile(_:using:) asks about one payment in any state, and records only what changes a state it may")
    func onePayment() async throws {
        let harness = try Harness()
        let pending = try harness.coordinator.prepare(SquareFixture.request())
        let verifier = AnsweringVerifier(.confirmed, .found, proven: .approved)
        let result = try await harness.coordinator.reconcile(pending.entry.id, using: verifier)
        #expect(result.verification.verdict == .confirmed)
        #expect(!result.recorded && result.after.state == .pending, "a payment not expired waits for its callback")
        await expectError(.paymentNotFound) {
            try await harness.coordinator.reconcile(try PaymentID(validating: "nope"), using: verifier)
        }
    }

    @Test("an amount the server reports that reads as a card number is kept out of the journal, which stays readable")
    func cardNumberLikeAmount() async throws {
        let harness = try Harness()
        let entry = try Self.unknownPayment(harness)
        let verifier = AnsweringVerifier { _ in
            PaymentVerification(
                verdict: .contradicted,
                reason: .amountMismatch,
                message: "Square has another amount.",
                evidence: ReconciliationTests.evidence(amount: Money(minorUnits: 4_111_111_111_111_111, currency: .usd))
            )
        }
        _ = try await harness.coordinator.reconcile(using: verifier)
        let after = try #require(try harness.journal.entry(entry.id))
        #expect(after.verification?.evidence.records.first?.id == "PAY-1")
        #expect(after.verification?.evidence.records.first?.amount == nil)
        #expect(!harness.journal.fileBytes().contains("4111111111111111"))
        #expect(try harness.journal.check(full: true) == ["ok"])
    }
}
