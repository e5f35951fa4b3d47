import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

/// The wall clock moved forward by hand: payments expire without waiting, while the sandbox's servers, which keep the
/// real time, still find them in their time window.
final class OffsetClock: HandoffClock, @unchecked Sendable {
    // @unchecked: the offset is guarded by its lock.
    private let offset = Locked<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now())
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000)) }
    }
}

/// An app's hand-off against the sandbox's seller: its journal, its coordinator, and the verifier of its Square and
/// SumUp accounts pointed at the sandbox's REST stand-ins.
struct SandboxShop {
    let directory: URL
    let clock = OffsetClock()
    let journal: PaymentJournal
    let coordinator: HandoffCoordinator
    let verifier: ProviderPaymentVerifier
    let seller: SellerSandbox

    init(_ seller: SellerSandbox, squareRetry: RetryPolicy = .standard, timeout: Duration = .seconds(30)) throws {
        self.seller = seller
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-shop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        journal = try PaymentJournal(path: directory.appendingPathComponent("journal.sqlite").path, clock: clock)
        coordinator = HandoffCoordinator(
            journal: journal,
            opener: SandboxOpener(baseURL: URL(string: seller.base)!, opener: NoOpener())
        )
        let base = URL(string: seller.base)!
        verifier = ProviderPaymentVerifier(
            square: SquarePaymentVerifier(
                client: SquareConnectClient(
                    environment: try SquareEnvironment(baseURL: base),
                    timeout: timeout,
                    retryPolicy: squareRetry
                ),
                accessToken: SquareAccessToken(SellerSandbox.accessToken)
            ),
            sumUp: SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: try SumUpEnvironment(baseURL: base)),
                merchantCode: SellerSandbox.merchantCode,
                accessToken: SumUpAccessToken(SellerSandbox.sumUpToken)
            )
        )
    }

    func close() {
        try? journal.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes the payment ahead, has the sandbox's POS app answer it with `outcome` (recording it on the provider's
    /// stand-in), and returns the payment and the callback URL the app would be opened with.
    func pay(
        _ request: some PaymentRequest,
        _ outcome: SimulatedOutcome
    ) async throws -> (entry: JournalEntry, callback: String) {
        let prepared = try coordinator.prepare(request)
        let answer = try await seller.server.posApps.simulate(prepared.url.absoluteString, outcome: outcome)
        return (prepared.entry, try #require(answer.callbackURL))
    }

    /// ``pay(_:_:)``, and the callback recorded.
    func payAndAnswer(_ request: some PaymentRequest, _ outcome: SimulatedOutcome) async throws -> JournalEntry {
        let (_, callback) = try await pay(request, outcome)
        let receipt = try #require(try await coordinator.handle(callback))
        #expect(receipt.disposition == .recorded)
        return try #require(receipt.entry)
    }

    static func square(amount: Int = 1250, tenders: SquareTenderTypes = [.card, .cash]) -> SquareRequest {
        SquareRequest(
            applicationID: SellerSandbox.applicationID,
            callbackURL: URL(string: "my-app://square-done")!,
            amount: Money(minorUnits: amount, currency: .usd),
            supportedTenderTypes: tenders
        )
    }

    static func sumUp(amount: Int = 450) -> SumUpRequest {
        SumUpRequest(
            amount: Money(minorUnits: amount, currency: .eur),
            affiliateKey: "KEY",
            title: "Flat white",
            callbackSuccess: URL(string: "my-app://sumup-done"),
            callbackFail: URL(string: "my-app://sumup-done")
        )
    }

    /// Runs `body` with a shop against a fresh seller sandbox.
    static func run(_ body: (SandboxShop) async throws -> Void) async throws {
        try await SellerSandbox.run { seller in
            let shop = try SandboxShop(seller)
            defer { shop.close() }
            try await body(shop)
        }
    }
}

/// An opener that opens nothing: the tests answer through the sandbox's API.
struct NoOpener: PaymentURLOpener {
    func open(_ url: URL) async -> Bool { true }
}

/// Verification and reconciliation end to end (issue 22): payments made through the sandbox's POS apps, checked with
/// the official verifiers against the sandbox's Square and SumUp REST stand-ins, recorded in a real journal.
// One test at a time: each starts an HTTP server (see ProviderServerLinkTests).
@Suite("Verification and reconciliation against the sandbox", .serialized)
struct ReconciliationSandboxTests {
    @Test("a Square card payment is confirmed by its order and payment (RetrieveOrder, GetPayment)")
    func squareCard() async throws {
        try await SandboxShop.run { shop in
            let entry = try await shop.payAndAnswer(SandboxShop.square(), .approve(tender: "card"))
            let orderID = try #require(entry.outcome?.transactionID)
            #expect(entry.outcome?.clientTransactionID != nil, "square §2.3: both IDs, kept apart")
            let result = try await shop.coordinator.reconcile(entry.id, using: shop.verifier)
            #expect(result.verification.verdict == .confirmed && result.verification.reason == .matches)
            #expect(result.verification.evidence.orderID == orderID)
            #expect(
                result.verification.evidence.endpoints == [
                    "GET /v2/orders/{order_id}", "GET /v2/payments/{payment_id}",
                ]
            )
            #expect(result.verification.evidence.records.first?.locationID == SellerSandbox.locationID)
            #expect(result.recorded && result.after.outcome?.assurance == .verifiedWithProvider)
            #expect(result.after.verification?.evidence.orderID == orderID)
            #expect(await shop.seller.square.requests.contains { $0.path == "/v2/orders/\(orderID)" })
        }
    }

    @Test(
        "Square cash and offline card payments, with only client_transaction_id, are found with ListPayments",
        arguments: [("cash", "CASH"), (SquarePointOfSaleApp.offlineCardTender, "CARD")]
    )
    func squareWithoutOrder(tender: String, sourceType: String) async throws {
        try await SandboxShop.run { shop in
            let entry = try await shop.payAndAnswer(SandboxShop.square(amount: 975), .approve(tender: tender))
            #expect(entry.outcome?.transactionID == nil)
            #expect(entry.outcome?.clientTransactionID != nil)
            let result = try await shop.coordinator.reconcile(entry.id, using: shop.verifier)
            #expect(result.verification.verdict == .confirmed, "\(result.verification)")
            // The request named no location: the seller's locations are listed first (it has one, which is searched).
            #expect(result.verification.evidence.endpoints == ["GET /v2/locations", "GET /v2/payments"])
            #expect(result.verification.evidence.candidateCount == 1)
            #expect(result.verification.evidence.records.first?.sourceType == sourceType)
            let searches = await shop.seller.square.requests.filter { $0.path == "/v2/payments" }
            // By created_at, and by the time the device took it (offline_payment_details.client_created_at).
            #expect(searches.contains { $0.queryNames.contains("offline_begin_time") })
            #expect(result.after.verification?.verdict == .confirmed)
        }
    }

    @Test("a SumUp payment is looked up by its foreign-tx-id, the key the hand-off generated and kept")
    func sumUpByForeignTransactionID() async throws {
        try await SandboxShop.run { shop in
            let entry = try await shop.payAndAnswer(SandboxShop.sumUp(), .approve(tender: nil))
            let foreignID = try #require(entry.foreignTransactionID)
            let result = try await shop.coordinator.reconcile(entry.id, using: shop.verifier)
            #expect(result.verification.verdict == .confirmed && result.verification.reason == .matches)
            #expect(result.verification.evidence.records.first?.foreignTransactionID == foreignID)
            #expect(result.verification.evidence.records.first?.transactionCode == entry.outcome?.transactionID)
            let lookups = await shop.seller.sumUp.requests.filter { $0.path.hasSuffix("/transactions") }
            #expect(lookups.map(\.queryNames) == [["foreign_transaction_id"]], "one lookup, by the foreign-tx-id")
        }
    }

    @Test("an unanswered Square payment, approved on the POS app, is reconciled to approved from the server")
    func unansweredReconciled() async throws {
        try await SandboxShop.run { shop in
            // The POS app approved it, but its callback never reached the app.
            let (entry, _) = try await shop.pay(SandboxShop.square(amount: 1999), .approve(tender: "card"))
            shop.clock.advance(by: 901)
            #expect(try shop.coordinator.recover().expired.map(\.id) == [entry.id])
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            try #require(results.count == 1)
            #expect(results[0].before.state == .unknown && results[0].after.state == .completed)
            let after = try #require(try shop.journal.entry(entry.id))
            #expect(after.isApproved && after.outcome?.source == .provider)
            #expect(after.verification?.reason == .found)
            #expect(try shop.coordinator.recover().undelivered.map(\.id) == [entry.id], "the app hears of it")
        }
    }

    @Test("a forged approval (right token, invented transaction ID) is contradicted: no such order")
    func forgedApproval() async throws {
        try await SandboxShop.run { shop in
            let prepared = try shop.coordinator.prepare(SandboxShop.square())
            let request = try SquareRequest(url: prepared.url)
            // An app that hijacked Point of Sale's scheme read the request, and answers with its token.
            let forged = try SquareResponse(transactionID: "FORGEDORDERBYANOTHERAPP", state: request.state)
                .callbackURLString(callbackURL: try request.wireCallbackURL())
            let receipt = try #require(try await shop.coordinator.handle(forged))
            #expect(receipt.disposition == .recorded, "the token is right: the callback alone cannot tell")
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            #expect(results.map(\.verification.verdict) == [.contradicted])
            #expect(results.first?.verification.reason == .noSuchOrder)
            let after = try #require(try shop.journal.entry(prepared.entry.id))
            #expect(after.state == .completed && after.needsReconciliation)
            #expect(try shop.coordinator.recover().undelivered.map(\.id) == [prepared.entry.id])
        }
    }

    @Test("5xx after the retries, and a time-out, are thrown and never recorded as a verdict")
    func serverFailures() async throws {
        try await SellerSandbox.run { seller in
            let shop = try SandboxShop(
                seller,
                squareRetry: RetryPolicy(maximumAttempts: 2, sleep: { _ in }),
                timeout: .seconds(2)
            )
            defer { shop.close() }
            let entry = try await shop.payAndAnswer(SandboxShop.square(), .approve(tender: "card"))
            let orderPath = "/v2/orders/" + (entry.outcome?.transactionID ?? "")
            for fault in [InjectedFault.status(503), .status(500), .stall(seconds: 20)] {
                await seller.square.injectFault(fault, path: orderPath, times: 2)
                do {
                    _ = try await shop.coordinator.reconcile(using: shop.verifier)
                    Issue.record("\(fault): a verdict was given")
                } catch let error as HandoffError {
                    #expect(error.code == .verificationUnavailable, "\(fault)")
                }
                #expect(try shop.journal.entry(entry.id) == entry, "\(fault): nothing recorded")
            }
            // Once the server answers, the same run records the verdict.
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            #expect(results.map(\.verification.verdict) == [.confirmed])
        }
    }

    @Test("a card-only payment with no answer is not confirmed by a cash payment of its amount that the search finds")
    func cashForCardOnly() async throws {
        try await SandboxShop.run { shop in
            // A sale that allowed cash, paid in cash: Square has a CASH payment of 6.40 USD, and no order.
            let cash = try await shop.payAndAnswer(SandboxShop.square(amount: 640), .approve(tender: "cash"))
            // A card-only sale of the same amount that Point of Sale never answered.
            let cardOnly = try shop.coordinator.prepare(SandboxShop.square(amount: 640, tenders: .card))
            #expect(cardOnly.entry.squareTenderTypes == .card)
            shop.clock.advance(by: 901)
            #expect(try shop.coordinator.recover().expired.map(\.id) == [cardOnly.entry.id])
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            #expect(results.map(\.before.id) == [cash.id, cardOnly.entry.id])
            #expect(results[0].verification.verdict == .confirmed, "the cash sale is its own payment's")
            let unanswered = results[1]
            #expect(unanswered.verification.verdict == .unverifiable, "\(unanswered.verification)")
            #expect(unanswered.verification.reason == .notFoundYet)
            #expect(unanswered.verification.evidence.examinedCount == 1)
            #expect(unanswered.verification.evidence.candidateCount == 0)
            #expect(try shop.journal.entry(cardOnly.entry.id)?.state == .unknown)
        }
    }

    @Test(
        "P1 timed out and its retry P2 was approved: P2's payment, found by P1's search and named by P2, is contested"
    )
    func retryClaimed() async throws {
        try await SandboxShop.run { shop in
            let first = try shop.coordinator.prepare(SandboxShop.square(amount: 2250))
            // The merchant tries again under a new payment ID, and Point of Sale approves it; the first times out.
            // (The retry comes before the clock moves: the sandbox's Square keeps the real time, and a record made
            // more than the device clock allowance before a payment was written is not that payment's.)
            let second = try await shop.payAndAnswer(SandboxShop.square(amount: 2250), .approve(tender: "card"))
            shop.clock.advance(by: 901)
            #expect(try shop.coordinator.recover().expired.map(\.id) == [first.entry.id])
            let orderID = try #require(second.outcome?.transactionID)
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            // Square's record cannot say which sale paid (the same amount, in both payments' time): it confirms
            // neither, both wait for a person, and P2 is not asked about.
            #expect(results.map(\.before.id) == [first.entry.id])
            let claimed = results[0]
            #expect(claimed.verification.reason == .contested, "\(claimed.verification)")
            #expect(claimed.verification.evidence.records.first?.orderID == orderID)
            #expect(claimed.recorded && claimed.after.state == .unknown && claimed.after.contestedAt != nil)
            let after = try #require(try shop.journal.entry(first.entry.id))
            #expect(after.state == .unknown && after.outcome == nil, "P1 is not proven approved with P2's money")
            let retry = try #require(try shop.journal.entry(second.id))
            #expect(retry.contestedAt != nil && retry.verification == nil && retry.needsReconciliation)
        }
    }

    @Test("two unanswered payments of one amount are ambiguous: neither changes, and none is picked")
    func ambiguous() async throws {
        try await SandboxShop.run { shop in
            let first = try await shop.pay(SandboxShop.square(amount: 500), .approve(tender: "card")).entry
            let second = try await shop.pay(SandboxShop.square(amount: 500), .approve(tender: "card")).entry
            shop.clock.advance(by: 901)
            _ = try shop.coordinator.recover()
            let before = try [first.id, second.id].map { try shop.journal.entry($0) }
            let results = try await shop.coordinator.reconcile(using: shop.verifier)
            #expect(results.map(\.verification.reason) == [.ambiguous, .ambiguous])
            #expect(results.allSatisfy { !$0.recorded })
            #expect(try [first.id, second.id].map { try shop.journal.entry($0) } == before)
        }
    }
}
