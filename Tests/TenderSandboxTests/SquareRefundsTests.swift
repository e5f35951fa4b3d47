import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// Square's Refunds API, client and stand-in together over HTTP (issue 41 item 6). Square's rules these pin, from its
/// Refunds API reference: "You cannot refund more than what was originally collected"; "You can refund only payments
/// with status COMPLETED. You cannot refund an APPROVED payment; however, you can cancel an approved payment";
/// `amount_money` "cannot be more than the `total_money` value of the payment minus the total amount of all
/// previously completed refunds"; refunds are `PENDING` "until the funds are secured", then `COMPLETED`, `REJECTED`
/// or `FAILED`; an idempotency key (at most 45 characters) answers the same refund again, and with other values
/// `IDEMPOTENCY_KEY_REUSED`. The error codes are the ones of Square's `ErrorCode` enum, as the official `squareup`
/// Python SDK lists them.
@Suite("Square refunds: RefundPayment, GetPaymentRefund, ListPaymentRefunds", .serialized)
struct SquareRefundsTests {
    typealias Harness = SandboxHarness
    static let token = SquareAccessToken(Harness.accessToken)

    /// A completed card payment of `cents` USD at the harness's location.
    static func payment(
        _ harness: Harness,
        cents: Int = 1_000,
        status: SquareConnectSandbox.PaymentStatus = .completed
    ) async throws -> SquareConnectSandbox.Payment {
        try await harness.square.recordPayment(
            amount: Money(minorUnits: cents, currency: .usd),
            locationID: Harness.locationID,
            status: status,
            orderID: "ORDER" + String(UUID().uuidString.prefix(8))
        )
    }

    /// The error `body` throws, which must be a ``ProviderAPIError``.
    static func refusal(_ body: () async throws -> Void) async -> ProviderAPIError? {
        do {
            try await body()
            Issue.record("expected Square to refuse")
            return nil
        } catch let error as ProviderAPIError {
            return error
        } catch {
            Issue.record("expected a ProviderAPIError, got \(error)")
            return nil
        }
    }

    @Test("a refund is PENDING when made, COMPLETED once settled; the payment lists it and adds it to refunded_money")
    func refundSettles() async throws {
        try await Harness.run { harness in
            let payment = try await Self.payment(harness)
            let client = harness.client()
            let refund = try await client.refundPayment(
                payment.id,
                amount: Money(minorUnits: 400, currency: .usd),
                idempotencyKey: "refund-1",
                reason: "Cold soup",
                accessToken: Self.token
            )
            #expect(refund.status == .pending)
            #expect(refund.paymentID == payment.id && refund.orderID == payment.orderID)
            #expect(refund.locationID == Harness.locationID && refund.reason == "Cold soup")
            #expect(refund.amountMoney == Money(minorUnits: 400, currency: .usd))
            #expect(refund.id.hasPrefix(payment.id + "_"))
            let read = try await client.paymentRefund(refund.id, accessToken: Self.token)
            #expect(read.status == .completed && read.id == refund.id)
            let request = try #require(await harness.square.requests.first { $0.path == "/v2/refunds" })
            #expect(request.method == "POST" && request.contentType == "application/json")
            let paid = try await client.getPayment(payment.id, accessToken: Self.token)
            #expect(paid.refundIDs == [refund.id])
            #expect(paid.refundedMoney == Money(minorUnits: 400, currency: .usd))
            let page = try await client.paymentRefunds(SquareRefundQuery(), accessToken: Self.token)
            #expect(page.refunds.map(\.id) == [refund.id] && page.cursor == nil)
            return []
        }
    }

    @Test("the same idempotency key and request answer the same refund; the key with another amount is refused")
    func idempotency() async throws {
        try await Harness.run { harness in
            let payment = try await Self.payment(harness)
            let client = harness.client()
            let amount = Money(minorUnits: 300, currency: .usd)
            let first = try await client.refundPayment(
                payment.id,
                amount: amount,
                idempotencyKey: "k1",
                accessToken: Self.token
            )
            let again = try await client.refundPayment(
                payment.id,
                amount: amount,
                idempotencyKey: "k1",
                accessToken: Self.token
            )
            #expect(again.id == first.id)
            #expect(await harness.square.allRefunds.count == 1, "one refund for one key")
            let reused = await Self.refusal {
                _ = try await client.refundPayment(
                    payment.id,
                    amount: Money(minorUnits: 301, currency: .usd),
                    idempotencyKey: "k1",
                    accessToken: Self.token
                )
            }
            #expect(reused?.code == .badRequest && reused?.providerErrorCode == "IDEMPOTENCY_KEY_REUSED")
            #expect(reused?.message.contains("Square refused the refund (IDEMPOTENCY_KEY_REUSED)") == true)
            #expect(await harness.square.allRefunds.count == 1)
            return []
        }
    }

    @Test("no more than remains: two partial refunds, then one cent too many is REFUND_AMOUNT_INVALID")
    func moreThanRemains() async throws {
        try await Harness.run { harness in
            let payment = try await Self.payment(harness, cents: 1_000)
            let client = harness.client()
            for (key, cents) in [("a", 600), ("b", 400)] {
                _ = try await client.refundPayment(
                    payment.id,
                    amount: Money(minorUnits: cents, currency: .usd),
                    idempotencyKey: key,
                    accessToken: Self.token
                )
            }
            let tooMuch = await Self.refusal {
                _ = try await client.refundPayment(
                    payment.id,
                    amount: Money(minorUnits: 1, currency: .usd),
                    idempotencyKey: "c",
                    accessToken: Self.token
                )
            }
            #expect(tooMuch?.providerErrorCode == "REFUND_AMOUNT_INVALID" && tooMuch?.httpStatusCode == 400)
            #expect(tooMuch?.message.contains("exceeds the amount available to refund (0 of 1000)") == true)
            // A rejected refund gives its amount back.
            let first = try #require(await harness.square.allRefunds.first { $0.amount.minorUnits == 600 })
            try await harness.square.setStatus(.rejected, ofRefund: first.id)
            let again = try await client.refundPayment(
                payment.id,
                amount: Money(minorUnits: 600, currency: .usd),
                idempotencyKey: "d",
                accessToken: Self.token
            )
            #expect(again.status == .pending)
            return []
        }
    }

    @Test(
        "Square's refusals: unknown payment, not completed, cancelled, another currency",
        arguments: ["unknown", "approved", "canceled", "currency"]
    )
    func refusals(kind: String) async throws {
        try await Harness.run { harness in
            let client = harness.client()
            let status: SquareConnectSandbox.PaymentStatus =
                kind == "approved" ? .approved : kind == "canceled" ? .canceled : .completed
            let payment = try await Self.payment(harness, status: status)
            let error = await Self.refusal {
                _ = try await client.refundPayment(
                    kind == "unknown" ? "NOSUCHPAYMENT" : payment.id,
                    amount: Money(minorUnits: 100, currency: kind == "currency" ? .eur : .usd),
                    idempotencyKey: "refusal-\(kind)",
                    accessToken: Self.token
                )
            }
            switch kind {
            case "unknown":
                #expect(error?.code == .notFound && error?.httpStatusCode == 404)
            case "approved":
                #expect(error?.providerErrorCode == "REFUND_ERROR_PAYMENT_NEEDS_COMPLETION")
            case "canceled":
                #expect(error?.providerErrorCode == "PAYMENT_NOT_REFUNDABLE")
            default:
                #expect(error?.providerErrorCode == "CURRENCY_MISMATCH")
            }
            #expect(await harness.square.allRefunds.isEmpty, "a refusal makes no refund")
            return []
        }
    }

    @Test("ListPaymentRefunds: newest first, pages with a cursor bound to the query, filtered by status")
    func list() async throws {
        try await Harness.run { harness in
            let client = harness.client()
            var made: [String] = []
            for index in 0..<5 {
                let payment = try await Self.payment(harness)
                harness.clock.advance(seconds: 1)
                made.append(
                    try await client.refundPayment(
                        payment.id,
                        amount: Money(minorUnits: 100 + index, currency: .usd),
                        idempotencyKey: "list-\(index)",
                        accessToken: Self.token
                    ).id
                )
            }
            try await harness.square.setStatus(.failed, ofRefund: made[2])
            var seen: [String] = []
            var query = SquareRefundQuery(limit: 2)
            repeat {
                let page = try await client.paymentRefunds(query, accessToken: Self.token)
                #expect(page.refunds.count <= 2)
                seen += page.refunds.map(\.id)
                query.cursor = page.cursor
            } while query.cursor != nil
            #expect(seen == made.reversed(), "newest first, each once")
            let failed = try await client.paymentRefunds(SquareRefundQuery(status: .failed), accessToken: Self.token)
            #expect(failed.refunds.map(\.id) == [made[2]])
            let oldest = try await client.paymentRefunds(
                SquareRefundQuery(oldestFirst: true, limit: 1),
                accessToken: Self.token
            )
            #expect(oldest.refunds.map(\.id) == [made[0]] && oldest.cursor != nil)
            // Cash is refunded as cash: its destination, and the source_type filter.
            let cash = try await harness.square.recordPayment(
                amount: Money(minorUnits: 500, currency: .usd),
                locationID: Harness.locationID,
                tender: .cash
            )
            let back = try await harness.square.refundOutsideTender(paymentID: cash.id)
            #expect(back.destinationType == "CASH" && back.amount.minorUnits == 500)
            let asked = try await RESTProbe.call(
                "GET",
                harness.baseURL.absoluteString + "/v2/refunds?source_type=CASH",
                bearer: Harness.accessToken
            )
            #expect(asked.value("refunds.0.id")?.stringValue == back.id && asked.value("refunds.1") == nil)
            return []
        }
    }
}

/// `POST /api/refunds`: a refund made outside Tender, as in Square Point of Sale or the Dashboard (issue 41 item 6).
@Suite("POST /api/refunds: a refund made outside Tender", .serialized)
struct OutsideRefundTests {
    typealias Harness = SandboxHarness

    static func post(
        _ harness: Harness,
        _ body: String,
        contentType: String = "application/json"
    ) async throws
        -> HTTPProbe.Response
    {
        try await HTTPProbe.send(
            "POST",
            harness.baseURL.absoluteString + "/api/refunds",
            contentType: contentType,
            body: body
        )
    }

    @Test("without an amount, what remains is refunded; with one, that much; Square's record lists it")
    func refundsWhatRemains() async throws {
        try await Harness.run { harness in
            let payment = try await SquareRefundsTests.payment(harness, cents: 900)
            let part = try await Self.post(
                harness,
                #"{"provider":"square","payment_id":"\#(payment.id)","amount_minor_units":200}"#
            )
            #expect(part.status == 200, "\(part.body)")
            let rest = try await Self.post(harness, #"{"provider":"square","payment_id":"\#(payment.id)"}"#)
            #expect(rest.status == 200, "\(rest.body)")
            let object = try #require(try JSONValue.parse(rest.body).objectValue)
            #expect(object["amount_minor_units"]?.integerValue == 700)
            #expect(object["currency"]?.stringValue == "USD" && object["provider"]?.stringValue == "square")
            #expect(object["payment_id"]?.stringValue == payment.id && object["status"]?.stringValue == "PENDING")
            let paid = try await harness.client().getPayment(payment.id, accessToken: SquareRefundsTests.token)
            #expect(paid.refundedMoney == Money(minorUnits: 900, currency: .usd) && paid.refundIDs.count == 2)
            let nothing = try await Self.post(harness, #"{"provider":"square","payment_id":"\#(payment.id)"}"#)
            #expect(nothing.status == 409 && nothing.body.contains("Nothing remains to refund"), "\(nothing.body)")
            return []
        }
    }

    @Test(
        "a body that is not a refund is 400, an unknown payment 404, Square's refusal 409; nothing is refunded",
        arguments: [
            (#"{"provider":"square","payment_id":"NOSUCH"}"#, 404, "no payment"),
            (#"{"provider":"paypal","payment_id":"X"}"#, 400, "provider must be"),
            (#"{"provider":"sumup","payment_id":"X"}"#, 404, "no transaction"),
            (#"{"provider":"square"}"#, 400, "payment_id must"),
            (#"{"provider":"square","payment_id":"P","amount_minor_units":0}"#, 400, "at least 1"),
            (#"{"provider":"square","payment_id":"P","extra":1}"#, 400, "Unknown key 'extra'"),
            (#"not json"#, 400, "not valid JSON"),
            (#"{"provider":"square","payment_id":"PAYMENT","amount_minor_units":5000}"#, 409, "exceeds the amount"),
        ]
    )
    func refused(body: String, status: Int, words: String) async throws {
        try await Harness.run { harness in
            let payment = try await SquareRefundsTests.payment(harness, cents: 900)
            let answer = try await Self.post(harness, body.replacingOccurrences(of: "PAYMENT", with: payment.id))
            #expect(answer.status == status, "\(answer.body)")
            #expect(answer.body.contains(words), "\(answer.body)")
            #expect(await harness.square.allRefunds.isEmpty)
            return []
        }
    }

    @Test("only JSON is read: a form post is 415")
    func jsonOnly() async throws {
        try await Harness.run { harness in
            let answer = try await Self.post(
                harness,
                "provider=square",
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(answer.status == 415)
            return []
        }
    }
}
