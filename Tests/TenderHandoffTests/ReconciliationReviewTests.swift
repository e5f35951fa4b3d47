import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// What a review of the reconciler found (issue 22): a record a search found that is another payment's, one bad payment
/// stopping every run, tender types lost, stale verdicts, late callbacks never compared.
@Suite("Reconciliation: records claimed by another payment, failures, stale verdicts, late answers")
struct ReconciliationReviewTests {
    /// Evidence of a ListPayments search that found one `COMPLETED` card payment `paymentID` of `amount`, on order
    /// `orderID`.
    static func searchEvidence(amount: Money, paymentID: String, orderID: String?) -> PaymentVerificationEvidence {
        PaymentVerificationEvidence(
            server: "http://stand-in.example",
            endpoints: ["GET /v2/payments"],
            askedAt: Date(timeIntervalSince1970: 1_800_000_100),
            searchWindow: DateInterval(start: Date(timeIntervalSince1970: 1_799_999_000), duration: 3600),
            examinedCount: 1,
            candidateCount: 1,
            records: [
                PaymentVerificationEvidence.Record(
                    kind: PaymentVerificationEvidence.Record.squarePayment,
                    id: paymentID,
                    status: "COMPLETED",
                    amount: amount,
                    locationID: "L1",
                    sourceType: "CARD",
                    orderID: orderID
                )
            ]
        )
    }

    /// A confirmation with `evidence`, proving approved.
    static func confirmed(_ evidence: PaymentVerificationEvidence, reported: Bool) -> PaymentVerification {
        PaymentVerification(
            verdict: .confirmed,
            reason: reported ? .matches : .found,
            message: "scripted",
            provenOutcome: .approved,
            evidence: evidence
        )
    }

    // MARK: Claimed by another payment (2b)

    @Test("P1 timed out, its retry P2 was approved: the search finds P2's payment, which P2 names: both contested")
    func retryClaimsItsPayment() async throws {
        let harness = try Harness()
        let first = try ReconciliationTests.unknownPayment(harness)
        harness.clock.advance(by: 60)
        let retry = try harness.coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: retry.url, transactionID: "ORDER-2")
        let second = try #require(try await harness.coordinator.handle(reply)?.entry)
        let verifier = AnsweringVerifier { request in
            // P2 has its order ID, looked up directly; P1 has none, and the search finds P2's payment of order ORDER-2.
            guard request.transactionID == nil else {
                return Self.confirmed(
                    ReconciliationTests.evidence(amount: request.amount, orderID: "ORDER-2", paymentID: "PAY-2"),
                    reported: true
                )
            }
            return Self.confirmed(
                Self.searchEvidence(amount: request.amount, paymentID: "PAY-2", orderID: "ORDER-2"),
                reported: false
            )
        }
        let results = try await harness.coordinator.reconcile(using: verifier)
        // P1 first (the oldest): the only match is P2's order, which P2's answer names. Which sale paid cannot be told
        // from Square's record (the same amount, in both payments' time): a person decides, and P2 is not asked.
        #expect(results.map(\.before.id) == [first.id])
        let claimed = results[0]
        #expect(claimed.verification.verdict == .unverifiable)
        #expect(claimed.verification.reason == .contested)
        #expect(claimed.verification.reason.rawValue == "contested")
        #expect(claimed.verification.message.contains(second.id.rawValue))
        #expect(claimed.recorded && claimed.after.state == .unknown && claimed.after.contestedAt != nil)
        #expect(try harness.journal.entry(first.id)?.outcome == nil, "P1 is not proven approved with P2's money")
        #expect(try harness.journal.entry(second.id)?.contestedAt != nil)
        #expect(try harness.journal.entry(second.id)?.verification == nil, "P2 is not confirmed by it either")
        // Neither is asked about again: the contest waits for a person.
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty)
    }

    @Test("two unanswered payments that a search each ties to one payment: the first takes it, then both are contested")
    func oneRecordOnePayment() async throws {
        let harness = try Harness()
        let (first, second) = try ReconciliationTests.twoUnknownPayments(harness)
        let verifier = AnsweringVerifier { request in
            Self.confirmed(
                Self.searchEvidence(amount: request.amount, paymentID: "PAY-9", orderID: nil),
                reported: false
            )
        }
        let results = try await harness.coordinator.reconcile(using: verifier)
        #expect(results.map(\.recorded) == [true, true])
        #expect(results[0].verification.reason == .found)
        #expect(try harness.journal.entry(first.id)?.outcome?.transactionID == "PAY-9")
        #expect(results[1].verification.reason == .contested)
        #expect(
            try harness.journal.entry(first.id)?.contestedAt != nil,
            "the first is flagged when the second names it"
        )
        let after = try #require(try harness.journal.entry(second.id))
        #expect(after.state == .unknown && after.outcome == nil && after.contestedAt != nil)
    }

    @Test("SumUp: another payment's answer naming the genuine payment's code is contradicted, in either order")
    func sumUpCodeClaimed() async throws {
        for replayFirst in [false, true] {
            let harness = try Harness()
            // The genuine payment, answered with transaction code TX1.
            let genuine = try harness.coordinator.prepare(ProviderHandoffTests.sumUpRequest())
            let answered = try #require(
                try await harness.coordinator.handle(try ProviderHandoffTests.sumUpReply(to: genuine))?.entry
            )
            #expect(answered.outcome?.transactionID == "TX1")
            // Another payment answered with the same code (an app that replays a code it saw), echoing no
            // foreign-tx-id.
            harness.clock.advance(by: 1)
            let other = try harness.coordinator.prepare(ProviderHandoffTests.sumUpRequest())
            let replayed = try #require(
                try await harness.coordinator.handle(try ProviderHandoffTests.sumUpReply(to: other, echo: .some(nil)))?
                    .entry
            )
            #expect(replayed.state == .completed && replayed.outcome?.transactionID == "TX1")
            let foreign = try #require(answered.foreignTransactionID)
            let verifier = AnsweringVerifier { request in
                // SumUp's transaction TX1 is the genuine payment's: it carries its foreign-tx-id, as SumUp's verifier
                // finds it; asked for the other payment, it names another foreign-tx-id than that payment's.
                let record = PaymentVerificationEvidence.Record(
                    kind: PaymentVerificationEvidence.Record.sumUpTransaction,
                    id: "410fc44a",
                    status: "SUCCESSFUL",
                    amount: request.amount,
                    transactionCode: "TX1",
                    foreignTransactionID: foreign
                )
                var evidence = PaymentVerificationEvidence(
                    server: "http://stand-in.example",
                    endpoints: ["GET /v2.1/merchants/{merchant_code}/transactions"],
                    askedAt: Date(timeIntervalSince1970: 1_800_000_100),
                    records: [record]
                )
                guard request.foreignTransactionID == foreign else {
                    return PaymentVerification(
                        verdict: .contradicted,
                        reason: .foreignIDMismatch,
                        message: "scripted: another foreign-tx-id",
                        evidence: evidence
                    )
                }
                evidence.recordIDs = ["410fc44a", "TX1"]
                return Self.confirmed(evidence, reported: true)
            }
            let order = replayFirst ? [other.entry.id, genuine.entry.id] : [genuine.entry.id, other.entry.id]
            for id in order { _ = try await harness.coordinator.reconcile(id, using: verifier) }
            let genuineAfter = try #require(try harness.journal.entry(genuine.entry.id))
            #expect(genuineAfter.verification?.verdict == .confirmed, "replay first: \(replayFirst)")
            #expect(genuineAfter.contestedAt == nil && !genuineAfter.needsReconciliation)
            let otherAfter = try #require(try harness.journal.entry(other.entry.id))
            #expect(otherAfter.verification?.verdict == .contradicted && otherAfter.needsReconciliation)
            #expect(otherAfter.verification?.reason == .foreignIDMismatch)
        }
    }

    // MARK: Failures (3)

    @Test(
        "a failure of one payment that is not the network's is reported with it; the run goes on",
        arguments: [ProviderAPIError.Code.unexpectedResponse, .invalidInput, .notConfigured]
    )
    func perPaymentFailure(code: ProviderAPIError.Code) async throws {
        let harness = try Harness()
        let (failing, fine) = try ReconciliationTests.twoUnknownPayments(harness)
        let verifier = AnsweringVerifier { request in
            guard request.idempotencyKey != failing.idempotencyKey else {
                throw ProviderAPIError(code, "Square said no.", provider: .square, httpStatusCode: 401)
            }
            return Self.confirmed(ReconciliationTests.evidence(amount: request.amount), reported: false)
        }
        var seen: [PaymentReconciliation] = []
        try await harness.coordinator.reconcile(using: verifier) { seen.append($0) }
        #expect(seen.map(\.before.id) == [failing.id, fine.id])
        let failure = try #require(seen.first?.failure)
        #expect(failure.code == .verificationFailed && failure.underlyingError is ProviderAPIError)
        #expect(failure.message.contains("Square said no.") && !failure.message.contains("Try again later"))
        #expect(seen[0].verification.verdict == .unverifiable && seen[0].verification.reason == .verificationFailed)
        #expect(!seen[0].recorded && seen[0].after == failing)
        #expect(try harness.journal.entry(failing.id) == failing)
        #expect(seen[1].failure == nil && seen[1].recorded && seen[1].after.state == .completed)
        // The one payment is thrown as such when asked about alone.
        await expectError(.verificationFailed) {
            try await harness.coordinator.reconcile(failing.id, using: verifier)
        }
    }

    @Test(
        "after a refused token or scope, that provider's server is not asked again in the run; its payments get the failure",
        arguments: [ProviderAPIError.Code.invalidAccessToken, .insufficientScopes, .forbidden]
    )
    func credentialFailureAsksOnce(code: ProviderAPIError.Code) async throws {
        let harness = try Harness()
        let (first, second) = try ReconciliationTests.twoUnknownPayments(harness)
        let verifier = AnsweringVerifier { _ in
            throw ProviderAPIError(code, "Square refused the token.", provider: .square, httpStatusCode: 401)
        }
        var seen: [PaymentReconciliation] = []
        try await harness.coordinator.reconcile(using: verifier) { seen.append($0) }
        #expect(seen.map(\.before.id) == [first.id, second.id])
        #expect(seen.allSatisfy { $0.failure?.code == .verificationFailed && !$0.recorded })
        #expect(verifier.requests.count == 1, "only the first payment was asked about")
        #expect(try harness.journal.entry(second.id) == second)
    }

    @Test(
        "a forged Square approval whose transaction_id is no Square ID ('.', ':') is refused by the parser, as the verifier would refuse it (one Square ID rule, issue 33)"
    )
    func forgedIDRefused() async throws {
        let harness = try Harness()
        let forged = try harness.coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: forged.url, transactionID: "FORGED.ORDER:1")
        let before = try harness.journal.entry(forged.entry.id)
        await expectError(.malformedCallback) { try await harness.coordinator.handle(reply) }
        #expect(try harness.journal.entry(forged.entry.id) == before, "the payment still waits for its answer")
    }

    @Test("a Square location that is not a Square ID is refused before any payment is asked about")
    func badLocation() async throws {
        let harness = try Harness()
        _ = try ReconciliationTests.unknownPayment(harness)
        let verifier = AnsweringVerifier(.confirmed, .found, proven: .approved)
        await expectError(.invalidRequest) {
            try await harness.coordinator.reconcile(using: verifier, squareLocationID: "L.1")
        }
        #expect(verifier.requests.isEmpty)
        let results = try await harness.coordinator.reconcile(using: verifier, squareLocationID: "L88917AVBK2S5")
        #expect(verifier.requests.map(\.squareLocationID) == ["L88917AVBK2S5"] && results.count == 1)
    }

    // MARK: Tender types (5)

    @Test("a Square request's tender types are kept with the payment and reach the verifier; a reopen widens them")
    func tenderTypes() async throws {
        let harness = try Harness()
        var request = SquareFixture.request()
        request.supportedTenderTypes = .card
        let prepared = try harness.coordinator.prepare(request)
        #expect(prepared.entry.squareTenderTypes == .card)
        #expect(try harness.journal.entry(prepared.entry.id)?.squareTenderTypes == .card)
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        let verifier = AnsweringVerifier(.unverifiable, .notFoundYet)
        _ = try await harness.coordinator.reconcile(using: verifier)
        #expect(verifier.requests.map(\.squareTenderTypes) == [.card], "a cash payment is no match for it")
        // Handed off again allowing cash: either hand-off may be the one taken.
        request.supportedTenderTypes = [.card, .cash]
        let reopened = try harness.coordinator.prepare(request, id: prepared.entry.id, reopening: true)
        #expect(reopened.entry.squareTenderTypes == [.card, .cash])
        #expect(try harness.journal.entry(prepared.entry.id) == reopened.entry)
        // A SumUp payment has none.
        let sumUp = try harness.coordinator.prepare(ProviderHandoffTests.sumUpRequest())
        #expect(sumUp.entry.squareTenderTypes == nil)
    }

    // MARK: Stale verdicts (6)

    @Test(
        "an unknown payment contradicted, then answered by its callback: the verdict is cleared and the answer checked"
    )
    func contradictedThenAnswered() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        let contradicting = AnsweringVerifier(.contradicted, .locationMismatch)
        #expect(try await harness.coordinator.reconcile(using: contradicting).map(\.recorded) == [true])
        #expect(try harness.journal.entry(prepared.entry.id)?.verification?.verdict == .contradicted)
        // Its genuine callback comes: the verdict was about the payment without an answer.
        let answered = try #require(
            try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url))?.entry
        )
        #expect(answered.state == .completed && answered.verification == nil && !answered.needsReconciliation)
        #expect(try harness.journal.entry(prepared.entry.id) == answered)
        // The answer is checked: in the reconciler's index, and verify asks.
        #expect(try harness.journal.unreconciledEntries(after: nil, limit: 10).map(\.id) == [prepared.entry.id])
        let confirming = AnsweringVerifier(.confirmed, .matches, proven: .approved)
        let verified = try await harness.coordinator.verify(prepared.entry.id, with: confirming)
        #expect(confirming.requests.map(\.transactionID) == ["TXN-1"])
        #expect(verified.verification?.verdict == .confirmed && verified.outcome?.assurance == .verifiedWithProvider)
        // The contradiction stays in the history.
        #expect(try ReconciliationTests.notes(harness, prepared.entry.id, kind: "contradicted").count == 1)
    }

    @Test("an unknown payment contradicted, then reopened: the new hand-off starts without the old verdict")
    func contradictedThenReopened() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        _ = try await harness.coordinator.reconcile(using: AnsweringVerifier(.contradicted, .locationMismatch))
        let reopened = try harness.coordinator.prepare(SquareFixture.request(), id: prepared.entry.id, reopening: true)
        #expect(reopened.entry.state == .pending && reopened.entry.verification == nil)
        #expect(try harness.journal.entry(prepared.entry.id) == reopened.entry)
        harness.clock.advance(by: 901)
        #expect(try harness.journal.unreconciledEntries(after: nil, limit: 10).map(\.id) == [prepared.entry.id])
    }

    // MARK: Late answers (7)

    /// A Square payment that timed out, then completed by the reconciler with the server's approval: the hand-off,
    /// and the payment as the server left it.
    static func provenApproved(_ harness: Harness) async throws -> (PreparedHandoff, JournalEntry) {
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        _ = try harness.journal.markTimedOut(prepared.entry.id, handoff: 1)
        _ = try await harness.coordinator.reconcile(using: AnsweringVerifier(.confirmed, .found, proven: .approved))
        let proven = try #require(try harness.journal.entry(prepared.entry.id))
        #expect(proven.outcome?.source == .provider && proven.isApproved)
        return (prepared, proven)
    }

    @Test("a callback after the server completed the payment, reporting otherwise, flags it; the state stays (REL-2)")
    func lateAnswerContradicts() async throws {
        let harness = try Harness()
        let (prepared, proven) = try await Self.provenApproved(harness)
        #expect(try harness.coordinator.acknowledge(proven))
        // Point of Sale's own answer arrives now: cancelled.
        let reply = try SquareFixture.reply(to: prepared.url, errorCode: "payment_canceled")
        let receipt = try #require(try await harness.coordinator.handle(reply))
        #expect(receipt.disposition == .extraAnswer)
        let flagged = try #require(receipt.entry)
        #expect(flagged == (try harness.journal.entry(prepared.entry.id)))
        #expect(flagged.state == .completed && flagged.outcome == proven.outcome, "the state is kept (REL-2)")
        #expect(flagged.needsReconciliation && flagged.isUndelivered)
        #expect(flagged.verification?.verdict == .contradicted && flagged.verification?.reason == .statusMismatch)
        #expect(flagged.verification?.evidence == proven.verification?.evidence, "the server's evidence is kept")
        #expect(try harness.coordinator.recover().undelivered.map(\.id) == [prepared.entry.id])
        #expect(try ReconciliationTests.notes(harness, prepared.entry.id, kind: "extra_answer").count == 1)
        let note = try #require(try ReconciliationTests.notes(harness, prepared.entry.id, kind: "contradicted").last)
        #expect(PaymentVerification(journalJSON: note)?.provenOutcome == .approved)
        // Its replay is a duplicate and changes nothing more.
        #expect(try await harness.coordinator.handle(reply)?.disposition == .duplicate)
        #expect(try harness.journal.entry(prepared.entry.id) == flagged)
    }

    @Test("a late callback that agrees with what the server proved changes nothing but the history")
    func lateAnswerAgrees() async throws {
        let harness = try Harness()
        let (prepared, proven) = try await Self.provenApproved(harness)
        let receipt = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url)))
        #expect(receipt.disposition == .extraAnswer && receipt.entry == proven)
        #expect(try harness.journal.entry(prepared.entry.id) == proven)
        #expect(!proven.needsReconciliation)
    }

    // MARK: Reported failures the server never had

    @Test("a cancelled payment the verifier confirms absent (no_record) is recorded and not asked about again")
    func confirmedAbsent() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let reply = try SquareFixture.reply(to: prepared.url, errorCode: "payment_canceled")
        _ = try await harness.coordinator.handle(reply)
        let verifier = AnsweringVerifier(.confirmed, .noRecord)
        #expect(try await harness.coordinator.reconcile(using: verifier).map(\.recorded) == [true])
        let after = try #require(try harness.journal.entry(prepared.entry.id))
        #expect(after.verification?.reason == .noRecord && after.outcome?.status == .cancelled)
        #expect(try await harness.coordinator.reconcile(using: verifier).isEmpty)
        #expect(verifier.requests.count == 1)
    }
}
