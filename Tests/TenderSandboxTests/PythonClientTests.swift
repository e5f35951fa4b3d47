import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

/// Every REST endpoint the sandbox serves, read by the providers' own official clients: Square's `squareup`
/// (46.0.0.20260916) and SumUp's `sumup` (0.4.0) Python SDKs, installed by `scripts/python-clients`. Each answer is
/// checked strictly against the SDK's models (every key a field, every enum value one of the model's; see
/// `PythonClients/conformance.py`) and the values the SDK read are compared here with what was recorded.
///
/// CI sets `TENDER_REQUIRE_PYTHON_CLIENTS=1`, so there the tests fail when the clients are missing; elsewhere they
/// are skipped, naming the script to run.
@Suite("The providers' official Python clients read the sandbox")
struct PythonClientTests {
    typealias Seller = SellerSandbox

    /// A JSON number as a Double.
    static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text)? = value else { return nil }
        return Double(text)
    }

    @Test(
        "squareup reads locations, OAuth, orders, batch-retrieve, payments, every ListPayments page and refunds",
        .enabled(
            if: PythonClients.shouldRun,
            "the official Python clients are not installed: run scripts/python-clients (.ci/run does)"
        )
    )
    func square() async throws {
        try await Seller.run { seller in
            // A card, a cash and an offline payment approved by the sandbox's Point of Sale, over its API.
            let card = try await seller.approveSquare(try Seller.squareRequest(amount: 1250), "approve:card")
            let cash = try await seller.approveSquare(try Seller.squareRequest(amount: 1250), "approve:cash")
            let offline = try await seller.approveSquare(try Seller.squareRequest(amount: 1250), "approve:offline")
            let second = try await seller.approveSquare(try Seller.squareRequest(amount: 300), "approve:card")
            let payments = await seller.square.allPayments
            func payment(_ response: SquareResponse) throws -> SquareConnectSandbox.Payment {
                try #require(payments.first { $0.clientTransactionID == response.clientTransactionID })
            }
            let cardPayment = try payment(card)
            let orderID = try #require(card.transactionID)
            // Seven payments of one amount for pagination (pages of 3), and 130 more for Square's page size.
            let start = Date().addingTimeInterval(-7200)
            var listed: [SquareConnectSandbox.Payment] = []
            for minute in 0..<7 {
                listed.append(
                    try await seller.square.recordPayment(
                        amount: Money(minorUnits: 4242, currency: .usd),
                        locationID: Seller.locationID,
                        createdAt: start.addingTimeInterval(Double(minute) * 60)
                    )
                )
            }
            for _ in 0..<130 {
                try await seller.square.recordPayment(
                    amount: Money(minorUnits: 5151, currency: .usd),
                    locationID: Seller.locationID
                )
            }

            let input: JSONObject = [
                "base_url": .string(seller.base),
                "access_token": .string(Seller.accessToken),
                "narrow_token": .string(Seller.narrowToken),
                "refresh_token": .string(Seller.refreshToken),
                "location_id": .string(Seller.locationID),
                "client_id": .string(SquareConnectSandbox.Configuration.sellerClientID),
                "client_secret": .string(SquareConnectSandbox.Configuration.sellerApplicationSecret),
                "card": .object(["order_id": .string(orderID), "payment_id": .string(cardPayment.id)]),
                "second_order_id": .string(try #require(second.transactionID)),
                "refund": .object(["payment_id": .string(try payment(second).id), "amount": .integer(120)]),
                "cash": .object(["payment_id": .string(try payment(cash).id)]),
                "offline": .object(["payment_id": .string(try payment(offline).id)]),
                "list": .object([
                    "total": .integer(4242), "limit": .integer(3), "page_size_total": .integer(5151),
                    "begin_time": .string(InternetDate.rfc3339(start.addingTimeInterval(-1))),
                    "end_time": .string(InternetDate.rfc3339(Date().addingTimeInterval(60))),
                ]),
            ]
            let result = try await PythonClients.run("square_client.py", input: input)
            #expect(result.status == 0, "squareup could not read the sandbox: \(result.stderr) \(result.stdout)")
            let read = try result.answer()

            #expect(read.string("location.id") == Seller.locationID)
            #expect(read.string("location.status") == "ACTIVE")
            #expect(read.string("location.currency") == "USD")
            #expect(read.string("location.merchant_id") == SquareConnectSandbox.Configuration.sellerMerchantID)
            #expect(
                read.array("token_status.scopes").compactMap(\.stringValue)
                    == SquareConnectSandbox.Configuration.sellerScopes.map(\.rawValue)
            )
            #expect(read.string("order.id") == orderID)
            #expect(read.string("order.state") == "COMPLETED")
            #expect(read.int("order.total.amount") == 1250)
            #expect(read.string("order.tenders.0.id") == cardPayment.id)
            #expect(read.string("order.tenders.0.payment_id") == cardPayment.id)
            #expect(read.string("order.tenders.0.type") == "CARD")
            #expect(read.string("order.tenders.0.card_status") == "CAPTURED")
            #expect(
                read.array("batch_order_ids").compactMap(\.stringValue) == [orderID, second.transactionID!].sorted()
            )

            #expect(read.string("payments.card.status") == "COMPLETED")
            #expect(read.int("payments.card.amount.amount") == 1250)
            #expect(read.string("payments.card.amount.currency") == "USD")
            #expect(read.string("payments.card.order_id") == orderID)
            #expect(read.string("payments.card.location_id") == Seller.locationID)
            #expect(read.string("payments.card.source_type") == "CARD")
            #expect(read.string("payments.card.card_last4") == "1111")
            #expect(read.string("payments.cash.source_type") == "CASH")
            #expect(read.value("payments.cash.order_id") == .null)
            #expect(read.int("payments.cash.cash_supplied.amount") == 1250)
            #expect(read.value("payments.offline.is_offline_payment") == .bool(true))
            #expect(read.value("payments.offline.order_id") == .null)

            let newestFirst = listed.reversed().map(\.id)
            let pages = read.array("list_pages").map { $0.arrayValue?.compactMap(\.stringValue) ?? [] }
            #expect(pages == [Array(newestFirst[0..<3]), Array(newestFirst[3..<6]), Array(newestFirst[6...])])
            #expect(read.array("list_default_pages").compactMap(\.integerValue) == [100, 30])

            #expect(read.int("errors.not_found.status") == 404)
            #expect(read.string("errors.not_found.code") == "NOT_FOUND")
            #expect(read.int("errors.orders_scope.status") == 403)
            #expect(read.string("errors.orders_scope.code") == "INSUFFICIENT_SCOPES")
            #expect(read.string("errors.orders_scope.detail")?.hasSuffix("ORDERS_READ") == true)
            #expect(read.string("errors.payments_scope.detail")?.hasSuffix("PAYMENTS_READ") == true)
            #expect(read.string("errors.unknown_token.code") == "UNAUTHORIZED")
            #expect(read.int("errors.unknown_token.status") == 401)
            #expect(read.string("errors.bad_version.code") == "INVALID_SQUARE_VERSION_FORMAT")
            #expect(read.string("errors.bad_cursor.code") == "INVALID_CURSOR")

            // Square's Refunds API (issue 41 item 6), as squareup reads it.
            let refundID = try #require(read.string("refunds.made.id"))
            #expect(read.string("refunds.made.status") == "PENDING")
            #expect(read.int("refunds.made.amount.amount") == 120)
            #expect(read.string("refunds.made.payment_id") == (try payment(second).id))
            #expect(read.string("refunds.made.reason") == "py")
            #expect(read.string("refunds.again_id") == refundID, "the same key and request: the same refund")
            #expect(
                read.string("refunds.fetched.id") == refundID && read.string("refunds.fetched.status") == "COMPLETED"
            )
            #expect(read.array("refunds.listed").compactMap(\.stringValue) == [refundID])
            #expect(read.string("refunds.reused") == "IDEMPOTENCY_KEY_REUSED")
            #expect(read.string("refunds.too_much") == "REFUND_AMOUNT_INVALID")
            #expect(read.array("refunds.payment.refund_ids").compactMap(\.stringValue) == [refundID])
            #expect(read.int("refunds.payment.refunded_money.amount") == 120)

            #expect(read.value("obtained.short_lived") == .bool(true))
            #expect(read.int("obtained.lifetime_hours") == 24)
            #expect(read.array("obtained.scopes").compactMap(\.stringValue) == ["ORDERS_READ", "PAYMENTS_READ"])
            #expect(read.value("obtained.rotated") == .bool(true))
            #expect(read.value("revoked.success") == .bool(true))
            #expect(read.string("revoked.revoked_code") == "ACCESS_TOKEN_REVOKED")
            #expect(read.value("revoked.others_still_valid") == .bool(true))
        }
    }

    @Test(
        "sumup reads the transaction lookup by every key into TransactionFull, and its errors into Error and Problem",
        .enabled(
            if: PythonClients.shouldRun,
            "the official Python clients are not installed: run scripts/python-clients (.ci/run does)"
        )
    )
    func sumUp() async throws {
        try await Seller.run(profile: Seller.profile { $0.sumUp.currency = .eur }) { seller in
            let approved = try await seller.simulate(
                try Seller.sumUpRequest(amount: 1250, currency: .eur, foreignTransactionID: "order-py-1"),
                "approve"
            )
            let callback = try #require(approved.string("callback_url"))
            let code = try #require(try SumUpResponse(callbackURLString: callback).transactionCode)
            // Chilean pesos have no minor unit (ISO 4217), and are one of the currencies SumUp's API lists.
            let recorded = try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 1234, currency: try Currency(code: "CLP")),
                foreignTransactionID: "order-py-2",
                clientTransactionID: "client-py-2"
            )
            // 10.00 EUR to refund: 2.50, then the rest.
            let refundable = try await seller.sumUp.recordTransaction(amount: Money(minorUnits: 1000, currency: .eur))
            let input: JSONObject = [
                "base_url": .string(seller.base),
                "access_token": .string(Seller.sumUpToken),
                "merchant_code": .string(Seller.merchantCode),
                "transactions": .array([
                    .object(["foreign_transaction_id": .string("order-py-1")]),
                    .object(["foreign_transaction_id": .string("order-py-2")]),
                ]),
                "refund": .object(["id": .string(refundable.id), "part": .number("2.5")]),
            ]
            let result = try await PythonClients.run("sumup_client.py", input: input)
            #expect(result.status == 0, "sumup could not read the sandbox: \(result.stderr) \(result.stdout)")
            let read = try result.answer()
            let first = try #require(read.value("by_foreign_id")?.objectValue?["order-py-1"]?.objectValue)
            #expect(first["transaction_code"]?.stringValue == code)
            // What the SDK read as a Python float: 12.5, exactly (a binary fraction), and 1234.
            #expect(Self.number(first["amount"]) == 12.5)
            #expect(first["currency"]?.stringValue == "EUR")
            #expect(first["status"]?.stringValue == "SUCCESSFUL")
            #expect(first["simple_status"]?.stringValue == "SUCCESSFUL")
            #expect(first["foreign_transaction_id"]?.stringValue == "order-py-1")
            #expect(first["merchant_code"]?.stringValue == Seller.merchantCode)
            #expect(first["product_summary"]?.stringValue == "Coffee beans")
            let second = try #require(read.value("by_foreign_id")?.objectValue?["order-py-2"]?.objectValue)
            #expect(Self.number(second["amount"]) == 1234)
            #expect(second["currency"]?.stringValue == "CLP")
            #expect(second["id"]?.stringValue == recorded.id)
            // The same transaction by its ID, its code and its client ID.
            #expect(read.value("by_id")?.objectValue?[recorded.id]?.objectValue == second)
            #expect(read.value("by_code")?.objectValue?[recorded.transactionCode]?.objectValue == second)
            #expect(read.value("by_client_id")?.objectValue?["client-py-2"]?.objectValue == second)
            #expect(read.value("by_code")?.objectValue?[code]?.objectValue == first)

            #expect(read.int("errors.not_found.status") == 404)
            #expect(read.string("errors.not_found.body_type") == "Error")
            #expect(read.string("errors.not_found.code") == "NOT_FOUND")
            #expect(read.int("errors.other_merchant.status") == 404)
            #expect(read.int("errors.wrong_token.status") == 401)
            #expect(read.string("errors.wrong_token.body_type") == "Problem")
            #expect(read.string("errors.wrong_token.content_type") == "application/problem+json")
            #expect(read.int("errors.two_keys.status") == 400)
            #expect(read.int("errors.no_key.status") == 400)

            // SumUp's refund (issue 41 item 6), as the sumup SDK calls it: 201 each time; the transaction REFUNDED
            // with a REFUND event per refund; a refund of nothing left 409, of an unknown transaction 404.
            #expect(read.array("refunds.statuses").compactMap(\.integerValue) == [201, 201])
            #expect(read.string("refunds.status") == "REFUNDED")
            let events = read.array("refunds.events").compactMap(\.objectValue)
            #expect(events.map { $0["type"]?.stringValue } == ["REFUND", "REFUND"])
            #expect(events.map { Self.number($0["amount"]) } == [2.5, 7.5])
            #expect(read.int("refunds.again.status") == 409)
            #expect(read.int("refunds.unknown.status") == 404)
            let held = try #require(await seller.sumUp.transaction(id: refundable.id))
            #expect(held.refunds.map(\.amount.minorUnits) == [250, 750] && held.refundable.minorUnits == 0)
        }
    }
}
