import Foundation
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// Issue 32, "No answer is lost": every callback that proves a payment's token is kept; answers that disagree flag the
/// payment for reconciliation, which the provider's record settles; a replay still changes nothing (SEC-2), and a
/// tampered answer is never counted as completed (SEC-5).
@Suite("No answer is lost")
struct NoAnswerLostTests {
    /// The kinds and notes of a payment's history.
    static func history(_ harness: Harness, _ id: PaymentID) throws -> [(kind: String, note: String?)] {
        try harness.journal.history(of: id).map { ($0.kind.rawValue, $0.note) }
    }

    @Test("a tampered answer cannot burn the payment's answer: the genuine approval that follows is recorded")
    func genuineAfterTampered() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        // The right token, on another endpoint and with another transaction ID.
        let tamperedReply = try SquareFixture.reply(
            to: prepared.url,
            transactionID: "FORGED",
            endpoint: "evil-app://payment-done/square_request"
        )
        let tampered = try #require(try await harness.coordinator.handle(tamperedReply))
        #expect(tampered.disposition == .tampered && tampered.entry?.state == .tampered)
        #expect(tampered.entry?.isApproved == false, "never counted as completed (SEC-5)")

        let genuine = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url)))
        #expect(genuine.disposition == .recorded)
        let entry = try #require(genuine.entry)
        #expect(entry.state == .completed && entry.outcome?.transactionID == "TXN-1")
        // The answers disagree: flagged until the provider's record settles it, and delivered.
        #expect(entry.disputedAt != nil && entry.needsReconciliation && entry.isUndelivered)
        let history = try Self.history(harness, prepared.entry.id)
        #expect(history.map(\.kind) == ["begun", "tampered", "recorded"])
        #expect(history[1].note?.contains("FORGED") == true, "the tampered answer's report is kept")
        #expect(history[2].note?.contains("TXN-1") == true)
        // A replay of either changes nothing.
        let before = try harness.journal.dump()
        #expect(try await harness.coordinator.handle(tamperedReply)?.disposition == .duplicate)
        #expect(
            try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.disposition == .duplicate
        )
        #expect(try harness.journal.dump() == before)
    }

    @Test("a second, different answer to the hand-off the payment took is kept and flags it; the outcome stays")
    func differentAnswerAfterRecorded() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let first = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.entry)
        #expect(try harness.coordinator.acknowledge(first))
        // An app that read the request answers "approved" first; the POS app's own answer says cancelled.
        let cancelled = try SquareFixture.reply(to: prepared.url, errorCode: "payment_canceled")
        let receipt = try #require(try await harness.coordinator.handle(cancelled))
        #expect(receipt.disposition == .extraAnswer)
        let entry = try #require(receipt.entry)
        #expect(entry.state == .completed && entry.outcome == first.outcome, "REL-2: the outcome stays")
        #expect(entry.needsReconciliation && entry.disputedAt != nil)
        #expect(try harness.coordinator.undeliveredEntries().map(\.id) == [entry.id], "delivered again")
        #expect(try Self.history(harness, entry.id).last?.note?.contains("payment_canceled") == true)
        // The same cancellation again, and the first answer again: nothing more.
        let before = try harness.journal.dump()
        #expect(try await harness.coordinator.handle(cancelled)?.disposition == .duplicate)
        #expect(
            try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.disposition == .duplicate
        )
        #expect(try harness.journal.dump() == before)
    }

    @Test("a flagged payment is what reconcile examines, and the provider's confirmation settles it")
    func reconcileSettlesDisagreement() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.handle(
            try SquareFixture.reply(to: prepared.url, endpoint: "evil-app://payment-done/square_request")
        )
        _ = try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))
        let flagged = try #require(try harness.journal.entry(prepared.entry.id))
        #expect(flagged.needsReconciliation)
        let results = try await harness.coordinator.reconcile(using: OneRecordOnePaymentTests.orderLookup())
        #expect(results.map(\.before.id) == [flagged.id], "show and reconcile agree")
        let settled = try #require(results.first?.after)
        #expect(settled.verification?.verdict == .confirmed && !settled.needsReconciliation)
        #expect(settled.disputedAt == flagged.disputedAt, "the disagreement stays on record")
    }

    @Test("a tampered payment is examined by reconcile; the provider's proof completes it, a contradiction keeps it")
    func reconcileTampered() async throws {
        let harness = try Harness()
        let proven = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.handle(
            try SquareFixture.reply(to: proven.url, transactionID: "O5", endpoint: "evil-app://x/square_request")
        )
        harness.clock.advance(by: 1)
        let refuted = try harness.coordinator.prepare(SquareFixture.request())
        _ = try await harness.coordinator.handle(
            try SquareFixture.reply(to: refuted.url, transactionID: "O6", endpoint: "evil-app://x/square_request")
        )
        let verifier = AnsweringVerifier { request in
            if request.transactionID == "O5" {
                return PaymentVerification(
                    verdict: .confirmed,
                    reason: .matches,
                    message: "found",
                    provenOutcome: .approved,
                    evidence: ReconciliationTests.evidence(amount: request.amount, orderID: "O5", paymentID: "P5")
                )
            }
            return PaymentVerification(
                verdict: .contradicted,
                reason: .noSuchOrder,
                message: "no such order",
                evidence: PaymentVerificationEvidence(server: "http://stand-in.example", askedAt: Date())
            )
        }
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.map(\.before.state) == [.tampered, .tampered])
        #expect(results[0].after.state == .completed && results[0].after.outcome?.source == .provider)
        #expect(!results[0].after.needsReconciliation)
        #expect(results[1].after.state == .tampered && results[1].after.verification?.verdict == .contradicted)
        #expect(results[1].after.needsReconciliation)
    }

    @Test("a tampered answer after the payment ended is kept and flags it, the payment unchanged otherwise")
    func tamperedAfterRecorded() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let first = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.entry)
        let receipt = try #require(
            try await harness.coordinator.handle(
                try SquareFixture.reply(to: prepared.url, endpoint: "evil-app://payment-done/square_request")
            )
        )
        #expect(receipt.disposition == .tampered)
        #expect(receipt.entry?.state == .completed && receipt.entry?.outcome == first.outcome)
        #expect(receipt.entry?.needsReconciliation == true)
        #expect(try Self.history(harness, prepared.entry.id).map(\.kind) == ["begun", "recorded", "tampered"])
    }

    @Test("an answer after a resolution is kept in the history; the person's decision stands, unflagged")
    func answerAfterResolution() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        let resolved = try harness.coordinator.resolve(prepared.entry.id, as: .declined, note: "not taken")
        let receipt = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url)))
        #expect(receipt.disposition == .extraAnswer)
        #expect(receipt.entry == resolved)
        #expect(try Self.history(harness, prepared.entry.id).last?.kind == "extra_answer")
    }
}
