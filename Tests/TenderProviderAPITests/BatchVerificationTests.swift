import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// Many payments at once (issue 31, "Central reconciliation"): one copy of the matching rules, fed by batched
/// requests — BatchRetrieveOrders for up to 100 orders, one ListPayments walk per location and window shared by every
/// payment in it, webhooks' payments taken as they are — and a failed request is an error for the payments that
/// needed it, never a verdict.
@Suite("Many payments at once: batched requests, one copy of the rules", .serialized)
struct BatchVerificationTests {
    static let location = Fixture.location

    /// `count` sales of one location over the day before ``Fixture/now``, 8.64 s apart, amounts unique within any
    /// 997 sales in a row (so that each search has one match).
    static func day(_ count: Int) -> [SquareStandIn.Sale] {
        let start = Fixture.now.addingTimeInterval(-86_400)
        return (0..<count).map { index in
            SquareStandIn.Sale(
                orderID: "O\(index)",
                paymentID: "P\(index)",
                amount: 100 + (index % 997) * 5,
                locationID: location,
                createdAt: start.addingTimeInterval(Double(index) * 86_400 / Double(count))
            )
        }
    }

    /// What Tender knows of a sale: written 30 s before it, expiring a minute after; answered with its order when
    /// `answered`, unknown (no callback) otherwise.
    static func request(_ sale: SquareStandIn.Sale, answered: Bool) -> PaymentVerificationRequest {
        PaymentVerificationRequest(
            provider: .square,
            amount: Money(minorUnits: sale.amount, currency: .usd),
            writtenAheadAt: sale.createdAt.addingTimeInterval(-30),
            expiresAt: sale.createdAt.addingTimeInterval(60),
            reportedStatus: answered ? .approved : nil,
            transactionID: answered ? sale.orderID : nil,
            squareLocationID: location,
            squareTenderTypes: .card,
            idempotencyKey: Fixture.key
        )
    }

    static func verifier(_ server: ScriptedServer, retry: RetryPolicy = Fixture.retry()) throws -> SquarePaymentVerifier
    {
        try Fixture.squareVerifier(server, retry: retry)
    }

    @Test("10,000 Square payments of one day and one location are reconciled in at most 300 requests (issue 31)")
    func aDayOfPayments() async throws {
        let sales = Self.day(10_000)
        let standIn = SquareStandIn(sales)
        // Half answered by their callbacks (their orders looked up), half never answered (searched for).
        let requests = sales.enumerated().map { Self.request($1, answered: $0.isMultiple(of: 2)) }
        try await ScriptedServer.with(standIn.script) { server in
            let batch = try await Self.verifier(server).verify(requests)
            let sent = server.requests.count
            #expect(batch.providerRequests == sent, "the count is of the requests the server received")
            #expect(sent <= 300, "\(sent) requests")
            #expect(server.requests.filter { $0.path == "/v2/orders/batch-retrieve" }.count == 50)
            // One walk of the day by created_at, shared by all: 100 pages of 100; one by offline time, empty.
            #expect(server.requests.filter { $0.path == "/v2/payments" }.count == 101)
            #expect(
                !server.requests.contains { $0.path.hasPrefix("/v2/payments/") },
                "every payment came from the walk"
            )
            let verdicts = batch.results.map { try? $0.get() }
            #expect(verdicts.allSatisfy { $0?.verdict == .confirmed && $0?.provenOutcome == .approved })
            #expect(verdicts.enumerated().allSatisfy { $1?.evidence.recordIDs.contains("P\($0)") == true })
            #expect(verdicts[0]?.evidence.foundBy == .callback && verdicts[1]?.evidence.foundBy == .search)
        }
    }

    @Test("a batch gives each payment the verdict it gets alone: one copy of the rules, whatever fetched the records")
    func batchMatchesOneByOne() async throws {
        var sales = Self.day(40)
        sales[4].status = "FAILED"  // reported approved
        // Two sales of one amount a minute apart: the search for the first (never answered) is ambiguous.
        sales[13].amount = sales[12].amount
        sales[13].createdAt = sales[12].createdAt.addingTimeInterval(60)
        let standIn = SquareStandIn(sales)
        // Every third sale was never answered; the others were, with their orders.
        var requests = sales.enumerated().map { Self.request($1, answered: $0 % 3 != 0) }
        requests[7].transactionID = "O6"  // a forged approval naming an earlier sale's order
        requests[10].squareLocationID = "LOTHER"  // requested at another location than its order's
        let nowhere = SquareStandIn.Sale(
            orderID: "ONOWHERE",
            paymentID: "PX",
            amount: 5,
            locationID: Self.location,
            createdAt: Fixture.now
        )
        requests.append(Self.request(nowhere, answered: true))
        try await ScriptedServer.with(standIn.script) { server in
            let verifier = try Self.verifier(server)
            let batch = try await verifier.verify(requests)
            for (request, result) in zip(requests, batch.results) {
                let alone = try await verifier.verify(request)
                let together = try result.get()
                #expect(together.verdict == alone.verdict && together.reason == alone.reason, "\(together) / \(alone)")
                #expect(together.provenOutcome == alone.provenOutcome)
                #expect(together.evidence.recordIDs == alone.evidence.recordIDs)
            }
            let reasons = try batch.results.map { try $0.get().reason }
            #expect(reasons[4] == .statusMismatch)
            #expect(reasons[7] == .outsideWindow)
            #expect(reasons[10] == .locationMismatch)
            #expect(reasons[12] == .ambiguous)
            #expect(reasons.last == .noSuchOrder)
            #expect(reasons[1] == .matches && reasons[3] == .found)
        }
    }

    @Test("a failed request is an error for the payments that needed it, never a verdict; the others get theirs")
    func failuresStayWithTheirPayments() async throws {
        let sales = Self.day(4)
        let standIn = SquareStandIn(sales)
        let script: ScriptedServer.Script = { request, index in
            request.path.hasPrefix("/v2/orders/")
                ? .squareError(503, "SERVICE_UNAVAILABLE", category: "API_ERROR") : await standIn.script(request, index)
        }
        let requests = [
            Self.request(sales[0], answered: true), Self.request(sales[1], answered: false),
            Self.request(sales[2], answered: true), Self.request(sales[3], answered: false),
        ]
        try await ScriptedServer.with(script) { server in
            let batch = try await Self.verifier(server, retry: .never).verify(requests)
            for index in [0, 2] {
                #expect(throws: ProviderAPIError.self) { try batch.results[index].get() }
                if case .failure(let error as ProviderAPIError) = batch.results[index] {
                    #expect(error.code == .serviceUnavailable)
                }
            }
            for index in [1, 3] { #expect(try batch.results[index].get().verdict == .confirmed) }
        }
    }

    @Test("an order a batch leaves out is missing only when RetrieveOrder says Square's own NOT_FOUND")
    func leftOutOfABatch() async throws {
        let sales = Self.day(2)
        let standIn = SquareStandIn(sales)
        var forged = Self.request(sales[1], answered: true)
        forged.transactionID = "OFORGED"
        for (retrieve, expected) in [
            (ScriptedServer.Reply.squareError(404, "NOT_FOUND"), PaymentVerification.Reason.noSuchOrder),
            (ScriptedServer.Reply(status: 404, body: "<html>gone</html>"), nil),
        ] {
            let script: ScriptedServer.Script = { request, index in
                request.path == "/v2/orders/OFORGED" ? retrieve : await standIn.script(request, index)
            }
            try await ScriptedServer.with(script) { server in
                let batch = try await Self.verifier(server).verify([Self.request(sales[0], answered: true), forged])
                #expect(try batch.results[0].get().verdict == .confirmed)
                if let expected {
                    #expect(try batch.results[1].get().reason == expected)
                } else {
                    #expect(throws: ProviderAPIError.self) { try batch.results[1].get() }
                }
                #expect(server.requests.map(\.path).contains("/v2/orders/batch-retrieve"))
                #expect(server.requests.map(\.path).contains("/v2/orders/OFORGED"))
            }
        }
    }

    @Test("payments Square pushed by webhook stand for their order: nothing is asked, and the evidence says so")
    func pushedPayments() async throws {
        let sale = Self.day(1)[0]
        let webhook = Data(#"{"payment":\#(SquareStandIn.payment(sale))}"#.utf8)
        let object = try #require(
            (try JSONValue.parse(String(decoding: webhook, as: UTF8.self))).objectValue?["payment"]
        )
        let payment = try SquarePayment(squareJSON: Data(object.serialized(escapingSlashes: false).utf8))
        try await ScriptedServer.with(answering: .squareError(500, "INTERNAL_SERVER_ERROR")) { server in
            let verifier = try Self.verifier(server)
            let batch = try await verifier.verify([Self.request(sale, answered: true)], pushed: [payment])
            let verification = try batch.results[0].get()
            #expect(verification.verdict == .confirmed, "\(verification)")
            #expect(verification.evidence.foundBy == .callback)
            #expect(verification.evidence.records.first?.pushedByWebhook == true)
            #expect(batch.providerRequests == 0 && server.requests.isEmpty)
            // A payment of part of the amount: the rest of the order may still come. Nothing is proven yet.
            var part = payment
            part.amountMoney = Money(minorUnits: sale.amount - 1, currency: .usd)
            let partial = try await verifier.verify([Self.request(sale, answered: true)], pushed: [part])
            #expect(try partial.results[0].get().reason == .notFoundYet)
        }
        // A Payment object that is not Square's is refused as such.
        #expect(throws: ProviderAPIError.self) { try SquarePayment(squareJSON: Data(#"{"id":"P1"}"#.utf8)) }
    }

    @Test("the windows of nearby payments are merged into one walk; distant ones are walked apart")
    func mergedWindows() {
        let start = Fixture.now
        let windows = [
            DateInterval(start: start, duration: 600),
            DateInterval(start: start.addingTimeInterval(300), duration: 600),
            DateInterval(start: start.addingTimeInterval(900 + 3600), duration: 600),
            DateInterval(start: start.addingTimeInterval(4 * 3600 + 1), duration: 60),
        ]
        let merged = SquareBatchFetch.merged(windows)
        #expect(
            merged.map(\.0) == [
                DateInterval(start: start, end: start.addingTimeInterval(900 + 3600 + 600)),
                DateInterval(start: start.addingTimeInterval(4 * 3600 + 1), duration: 60),
            ]
        )
        #expect(merged.map(\.1.count) == [3, 1])
    }
}
