import Foundation
import GRDB
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// A verifier that answers from a script and remembers what it was asked.
final class ScriptedVerifier: PaymentVerifier, @unchecked Sendable {
    private let lock = NSLock()
    private var answer: Result<PaymentVerdict, any Error>
    private var asked: [PaymentVerificationRequest] = []

    init(_ answer: Result<PaymentVerdict, any Error>) {
        self.answer = answer
    }

    var requests: [PaymentVerificationRequest] { lock.withLock { asked } }
    var keys: [UUID] { requests.map(\.idempotencyKey) }

    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        try lock.withLock {
            asked.append(request)
            let verdict = try answer.get()
            return .scripted(verdict, verdict == .contradicted ? "no such payment" : "scripted")
        }
    }
}

extension PaymentVerification {
    /// A verification with a verdict and a message, and no evidence.
    static func scripted(_ verdict: PaymentVerdict, _ message: String) -> PaymentVerification {
        PaymentVerification(
            verdict: verdict,
            reason: verdict == .confirmed ? .matches : verdict == .contradicted ? .noSuchOrder : .notFoundYet,
            message: message,
            evidence: PaymentVerificationEvidence(server: nil, askedAt: Date(timeIntervalSince1970: 0))
        )
    }
}

struct ServerUnreachable: Error {}

/// SEC-7: the outcome says whether it was only reported by the POS app or verified with the provider's
/// server, and a verifier hook exists.
@Suite("Verifying outcomes with the provider (SEC-7)")
struct VerificationTests {
    static func completedPayment(_ harness: Harness) async throws -> JournalEntry {
        let prepared = try harness.coordinator.prepare(SquareFixture.request())
        let receipt = try #require(try await harness.coordinator.handle(try SquareFixture.reply(to: prepared.url)))
        let entry = try #require(receipt.entry)
        #expect(entry.outcome?.assurance == .reportedByPOSApp, "a callback's outcome is only reported")
        return entry
    }

    @Test(
        "a confirmation raises the assurance to verified_with_provider; the verifier gets the idempotency key (REL-4)"
    )
    func confirmed() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        #expect(try harness.coordinator.acknowledge(entry))
        let verifier = ScriptedVerifier(.success(.confirmed))
        let verified = try await harness.coordinator.verify(entry.id, with: verifier)
        #expect(verified.outcome?.assurance == .verifiedWithProvider)
        #expect(verified.verification?.verdict == .confirmed)
        #expect(verified.state == .completed)
        #expect(!verified.needsReconciliation)
        #expect(verified.acknowledgedAt != nil, "a confirmation is not a new outcome to deliver")
        #expect(verifier.keys == [entry.idempotencyKey])
        // Verified once is enough: the server is not asked again.
        _ = try await harness.coordinator.verify(entry.id, with: verifier)
        #expect(verifier.keys.count == 1)
        #expect(harness.log.events.contains { $0.kind == .verified && $0.paymentID == entry.id })
    }

    @Test("a contradiction keeps the terminal state, flags reconciliation and delivers the payment again (REL-2)")
    func contradicted() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        #expect(try harness.coordinator.acknowledge(entry))
        let verified = try await harness.coordinator.verify(
            entry.id,
            with: ScriptedVerifier(.success(.contradicted))
        )
        #expect(verified.state == .completed)
        #expect(verified.outcome?.assurance == .reportedByPOSApp)
        #expect(verified.verification?.verdict == .contradicted)
        #expect(verified.verification?.note == "no such payment")
        #expect(verified.needsReconciliation)
        #expect(verified.isUndelivered)
        #expect(try harness.coordinator.recover().undelivered.map(\.id) == [entry.id])
        // Only a recorded manual resolution ends it.
        let resolved = try harness.coordinator.resolve(
            entry.id,
            as: .failed,
            note: "checked in the dashboard",
            overwritingCompleted: true
        )
        #expect(resolved.state == .resolved)
        #expect(!resolved.needsReconciliation)
    }

    @Test("a verifier that cannot reach the server changes nothing")
    func unavailable() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        let before = try harness.journal.dump()
        let error = await #expect(throws: HandoffError.self) {
            try await harness.coordinator.verify(entry.id, with: ScriptedVerifier(.failure(ServerUnreachable())))
        }
        #expect(error?.code == .verificationUnavailable)
        #expect(error?.underlyingError is ServerUnreachable, "the verifier's own error is kept")
        #expect(try harness.journal.dump() == before)
    }

    @Test("an unverifiable answer records nothing and returns the entry as it was")
    func unverifiable() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        let before = try harness.journal.dump()
        let verifier = ScriptedVerifier(.success(.unverifiable))
        let returned = try await harness.coordinator.verify(entry.id, with: verifier)
        #expect(returned == entry)
        #expect(try harness.journal.dump() == before)
        #expect(!harness.log.events.contains { $0.kind == .verified || $0.kind == .contradicted })
        // Not recorded, so it can be asked again.
        _ = try await harness.coordinator.verify(entry.id, with: verifier)
        #expect(verifier.keys.count == 2)
    }

    @Test(
        "the verifier is asked what the journal knows: provider, amount, window, report, key, and the lookup keys apart"
    )
    func requestFromEntry() async throws {
        let harness = try Harness()
        let entry = try await Self.completedPayment(harness)
        let verifier = ScriptedVerifier(.success(.confirmed))
        _ = try await harness.coordinator.verify(entry.id, with: verifier)
        let request = try #require(verifier.requests.first)
        #expect(request.provider == .square)
        #expect(request.amount == entry.amount)
        #expect(request.idempotencyKey == entry.idempotencyKey)
        #expect(request.reportedStatus == .approved)
        #expect(request.writtenAheadAt == entry.createdAt && request.expiresAt == entry.expiresAt)
        #expect(request.window.start == entry.createdAt.addingTimeInterval(-120))
        #expect(request.window.end == entry.expiresAt.addingTimeInterval(120))
        // Square's transaction_id (an order ID, looked up) and client_transaction_id (kept as evidence) stay apart
        // (square §2.3), from the callback to the journal to the verifier.
        #expect(entry.outcome?.transactionID == "TXN-1")
        #expect(entry.outcome?.clientTransactionID == "CLIENT-1")
        #expect(request.transactionID == "TXN-1")
        #expect(request.clientTransactionID == "CLIENT-1")
        #expect(request.foreignTransactionID == nil)
        // SumUp's smp-tx-code is its transaction ID; its foreign-tx-id is the payment's, from the journal.
        var sumUp = entry
        sumUp.provider = .sumUp
        sumUp.foreignTransactionID = "tender-abcdefghijklmnopqrstuvwxyz"
        let sumUpRequest = PaymentVerificationRequest(entry: sumUp, clockAllowance: .zero)
        #expect(sumUpRequest.transactionID == "TXN-1")
        #expect(sumUpRequest.foreignTransactionID == "tender-abcdefghijklmnopqrstuvwxyz")
        #expect(sumUpRequest.window == DateInterval(start: entry.createdAt, end: entry.expiresAt))
    }

    @Test("only completed payments with a callback's outcome can be verified")
    func notVerifiable() async throws {
        let harness = try Harness()
        let pending = try harness.coordinator.prepare(SquareFixture.request())
        let verifier = ScriptedVerifier(.success(.confirmed))
        let error = await #expect(throws: HandoffError.self) {
            try await harness.coordinator.verify(pending.entry.id, with: verifier)
        }
        #expect(error?.code == .notVerifiable)
        let resolved = try harness.coordinator.resolve(pending.entry.id, as: .approved, note: "by hand")
        let manual = await #expect(throws: HandoffError.self) {
            try await harness.coordinator.verify(resolved.id, with: verifier)
        }
        #expect(manual?.code == .notVerifiable)
        #expect(verifier.keys.isEmpty)
    }
}
