import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

/// The simulated POS apps and the providers' server stand-ins are one merchant: what an app approves is on the
/// server before its callback goes back (issue 22).
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Sandbox: POS answers recorded on the providers' servers", .serialized)
struct ProviderServerLinkTests {
    typealias Seller = SellerSandbox

    @Test("Point of Sale is logged in at the seller's location: a request for it is approved, not location_id_mismatch")
    func oneSeller() async throws {
        try await Seller.run { seller in
            let response = try await seller.approveSquare(try Seller.squareRequest(locationID: Seller.locationID))
            #expect(response.isSuccess)
            #expect(response.transactionID != nil)
            // A request for another location is refused as Point of Sale refuses it (square §2.4).
            let other = try await seller.approveSquare(try Seller.squareRequest(locationID: "LOTHER"))
            #expect(other.errorCode == .locationIDMismatch)
            #expect(await seller.square.allPayments.count == 1, "a refused request leaves nothing on the server")
        }
    }

    @Test("a card approval on the page: an order whose ID is transaction_id, its tender a COMPLETED payment (issue 22)")
    func cardOnThePage() async throws {
        try await Seller.run { seller in
            let requestURL = try Seller.squareRequest(amount: 4321)
            let page = try await HTTPProbe.get(
                try POSAppsSandbox.pageURL(for: requestURL, baseURL: URL(string: seller.base)!).absoluteString
            )
            let nonce = try #require(page.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
            let id = try #require(page.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
            let answered = try await HTTPProbe.postForm(
                seller.base + "/requests/\(id)/answer",
                [("nonce", nonce), ("outcome", "approve"), ("tender", "card")]
            )
            #expect(answered.status == 303)
            let response = try SquareResponse(callbackURLString: try #require(answered.header("Location")))
            let orderID = try #require(response.transactionID)

            let order = try await seller.square("GET", "/v2/orders/\(orderID)")
            #expect(order.status == 200, "\(order)")
            #expect(order.string("order.id") == orderID)
            #expect(order.string("order.location_id") == Seller.locationID)
            #expect(order.string("order.state") == "COMPLETED")
            #expect(order.array("order.tenders").count == 1)
            #expect(order.string("order.tenders.0.type") == "CARD")
            #expect(order.int("order.tenders.0.amount_money.amount") == 4321)
            let paymentID = try #require(order.string("order.tenders.0.id"))
            #expect(order.string("order.tenders.0.payment_id") == paymentID)

            let payment = try await seller.square("GET", "/v2/payments/\(paymentID)")
            #expect(payment.status == 200, "\(payment)")
            #expect(payment.string("payment.status") == "COMPLETED")
            #expect(payment.int("payment.amount_money.amount") == 4321)
            #expect(payment.string("payment.amount_money.currency") == "USD")
            #expect(payment.int("payment.total_money.amount") == 4321)
            #expect(payment.string("payment.location_id") == Seller.locationID)
            #expect(payment.string("payment.order_id") == orderID)
            #expect(payment.string("payment.source_type") == "CARD")
            #expect(payment.string("payment.card_details.status") == "CAPTURED")
            #expect(payment.string("payment.application_details.application_id") == Seller.applicationID)

            let stored = try #require(await seller.square.payment(id: paymentID))
            #expect(stored.clientTransactionID == response.clientTransactionID)
            #expect(seller.capture.all.contains { $0.contains("square payment \(paymentID) in order \(orderID)") })
        }
    }

    @Test(
        "cash, other tenders and an offline card: only client_transaction_id, and a payment with no order",
        arguments: [
            ("approve:cash", "CASH", false), ("approve:other", "EXTERNAL", false), ("approve:offline", "CARD", true),
        ]
    )
    func paymentsWithoutOrder(outcome: String, sourceType: String, isOffline: Bool) async throws {
        try await Seller.run { seller in
            let response = try await seller.approveSquare(
                try Seller.squareRequest(amount: 777, tenders: [.card, .cash, .other]),
                outcome
            )
            #expect(response.isSuccess)
            #expect(response.transactionID == nil, "no server ID comes back (square §2.3, offline-mode cookbook)")
            let clientID = try #require(response.clientTransactionID)
            let stored = try #require(await seller.square.allPayments.first { $0.clientTransactionID == clientID })
            #expect(stored.orderID == nil)
            #expect(stored.isOffline == isOffline)

            let payment = try await seller.square("GET", "/v2/payments/\(stored.id)")
            #expect(payment.status == 200)
            #expect(payment.string("payment.source_type") == sourceType)
            #expect(payment.value("payment.order_id") == nil)
            #expect(payment.int("payment.amount_money.amount") == 777)
            #expect(payment.value("payment.is_offline_payment")?.boolValue == (isOffline ? true : nil))
            #expect((payment.value("payment.offline_payment_details.client_created_at") != nil) == isOffline)
            if sourceType == "CASH" {
                #expect(payment.int("payment.cash_details.buyer_supplied_money.amount") == 777)
            }
            // Only ListPayments finds it: by location, time and amount.
            let listed = try await seller.square("GET", "/v2/payments?total=777")
            #expect(listed.array("payments").compactMap { $0.objectValue?["id"]?.stringValue } == [stored.id])
        }
    }

    @Test("the page offers a card taken offline: its callback has only client_transaction_id, its payment no order")
    func offlineOnThePage() async throws {
        try await Seller.run { seller in
            let requestURL = try Seller.squareRequest(amount: 880, tenders: [.card])
            let pageURL = try POSAppsSandbox.pageURL(for: requestURL, baseURL: try #require(URL(string: seller.base)))
            let page = try await HTTPProbe.get(pageURL.absoluteString)
            #expect(page.body.contains(#"<option value="offline">card, offline</option>"#))
            let nonce = try #require(page.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
            let id = try #require(page.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
            let answered = try await HTTPProbe.postForm(
                seller.base + "/requests/\(id)/answer",
                [("nonce", nonce), ("outcome", "approve"), ("tender", "offline")]
            )
            #expect(answered.status == 303)
            let response = try SquareResponse(callbackURLString: try #require(answered.header("Location")))
            #expect(response.isSuccess)
            #expect(response.transactionID == nil)
            let payment = try #require(await seller.square.allPayments.first)
            #expect(payment.isOffline && payment.orderID == nil && payment.tender == .card)
            #expect(payment.clientTransactionID == response.clientTransactionID)
            // A request that allows no card offers no offline card.
            let cashOnly = try POSAppsSandbox.pageURL(
                for: try Seller.squareRequest(tenders: [.cash]),
                baseURL: try #require(URL(string: seller.base))
            )
            #expect(!(try await HTTPProbe.get(cashOnly.absoluteString).body.contains("offline")))
        }
    }

    @Test("cancel and errors leave nothing on Square's server; approve:offline needs a card tender")
    func nothingRecorded() async throws {
        try await Seller.run { seller in
            let requestURL = try Seller.squareRequest(tenders: [.cash])
            for outcome in ["cancel", "error:could_not_perform"] {
                let response = try await seller.approveSquare(requestURL, outcome)
                #expect(!response.isSuccess)
            }
            let offline = try await seller.simulate(requestURL, "approve:offline")
            #expect(offline.status == 400)
            #expect(offline.string("error.code") == "impossible_outcome")
            #expect(await seller.square.allPayments.isEmpty)
        }
    }

    @Test("Point of Sale logged in at a location the REST stand-in does not know: the callback still comes, unrecorded")
    func unknownLocation() async throws {
        try await Seller.run(profile: Seller.profile { $0.locationID = "LNOTONSERVER" }) { seller in
            let response = try await seller.approveSquare(try Seller.squareRequest(locationID: nil))
            #expect(response.isSuccess)
            #expect(await seller.square.allPayments.isEmpty)
            #expect(
                seller.capture.all.contains {
                    $0.contains("square payment not recorded") && $0.contains("LNOTONSERVER")
                }
            )
        }
    }

    @Test(
        "the sandbox API takes the journal's outcome words too: approved, declined, cancelled, canceled (issue 24)",
        arguments: [
            ("approved", "ok"), ("approved:cash", "ok"), ("cancelled", "error"), ("canceled", "error"),
            ("approve", "ok"), ("cancel", "error"),
        ]
    )
    func outcomeWords(word: String, status: String) async throws {
        try await Seller.run { seller in
            let answer = try await seller.simulate(try Seller.squareRequest(), word)
            #expect(answer.status == 200, "\(answer)")
            let response = try SquareResponse(callbackURLString: try #require(answer.string("callback_url")))
            #expect(response.isSuccess == (status == "ok"))
            if status == "error" { #expect(response.errorCode == .paymentCanceled) }
        }
    }

    @Test("declined means decline (SumUp reports it); an unknown word is still refused with the accepted forms")
    func outcomeWordsDeclineAndUnknown() async throws {
        try await Seller.run { seller in
            let declined = try await seller.simulate(
                try Seller.sumUpRequest(foreignTransactionID: "order-d"),
                "declined"
            )
            #expect(declined.status == 200)
            let callback = try #require(declined.string("callback_url"))
            #expect(try SumUpResponse(callbackURLString: callback).status == .failed)
            let unknown = try await seller.simulate(try Seller.squareRequest(), "approvedd")
            #expect(unknown.status == 400)
            #expect(unknown.string("error.code") == "invalid_outcome")
        }
    }

    @Test("a SumUp approval is a SUCCESSFUL transaction with smp-tx-code and the request's foreign-tx-id")
    func sumUpApproval() async throws {
        try await Seller.run { seller in
            let answer = try await seller.simulate(
                try Seller.sumUpRequest(amount: 1050, foreignTransactionID: "order-1050"),
                "approve"
            )
            let response = try SumUpResponse(callbackURLString: try #require(answer.string("callback_url")))
            let code = try #require(response.transactionCode)
            let found = try await seller.sumUpLookup("foreign_transaction_id=order-1050")
            #expect(found.status == 200, "\(found)")
            #expect(found.string("transaction_code") == code)
            #expect(found.string("status") == "SUCCESSFUL")
            #expect(found.string("simple_status") == "SUCCESSFUL")
            #expect(found.value("amount") == .number("10.5"))
            #expect(found.string("currency") == "USD")
            #expect(found.string("foreign_transaction_id") == "order-1050")
            #expect(found.string("product_summary") == "Coffee beans")
            #expect(found.string("merchant_code") == Seller.merchantCode)
        }
    }

    @Test("a SumUp decline is a FAILED transaction; a cancel (no transaction code) leaves nothing")
    func sumUpDeclineAndCancel() async throws {
        try await Seller.run { seller in
            _ = try await seller.simulate(try Seller.sumUpRequest(foreignTransactionID: "order-declined"), "decline")
            _ = try await seller.simulate(try Seller.sumUpRequest(foreignTransactionID: "order-cancelled"), "cancel")
            let declined = try await seller.sumUpLookup("foreign_transaction_id=order-declined")
            #expect(declined.string("status") == "FAILED")
            #expect(declined.string("simple_status") == "FAILED")
            let cancelled = try await seller.sumUpLookup("foreign_transaction_id=order-cancelled")
            #expect(cancelled.status == 404)
            #expect(await seller.sumUp.allTransactions.count == 1)
        }
    }

    @Test("an app older than 1.53.2 does not echo foreign-tx-id, but SumUp's server still has it")
    func sumUpOldApp() async throws {
        try await Seller.run(profile: Seller.profile { $0.sumUp.appVersion = "1.53" }) { seller in
            let answer = try await seller.simulate(
                try Seller.sumUpRequest(foreignTransactionID: "order-old"),
                "approve"
            )
            let response = try SumUpResponse(callbackURLString: try #require(answer.string("callback_url")))
            #expect(response.foreignTransactionID == nil)
            let found = try await seller.sumUpLookup("foreign_transaction_id=order-old")
            #expect(found.status == 200)
            #expect(found.string("transaction_code") == response.transactionCode)
        }
    }

    @Test("without a SumUp merchant the stand-in is off: nothing is recorded and every lookup is 401")
    func sumUpOff() async throws {
        try await Seller.run(sumUp: SumUpSandbox.Configuration()) { seller in
            let answer = try await seller.simulate(
                try Seller.sumUpRequest(foreignTransactionID: "order-off"),
                "approve"
            )
            #expect(answer.status == 200)
            #expect(await seller.sumUp.allTransactions.isEmpty)
            let lookup = try await seller.sumUpLookup("foreign_transaction_id=order-off")
            #expect(lookup.status == 401)
            await #expect(throws: SandboxError.self) {
                try await seller.sumUp.recordTransaction(amount: Money(minorUnits: 100, currency: .eur))
            }
        }
    }
}
