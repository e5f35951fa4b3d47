import Foundation
import Tender
import TenderSandbox
import Testing

/// SumUp's transaction lookup, `GET /v2.1/merchants/{merchant_code}/transactions`, as SumUp's API reference and the
/// `sumup` Python SDK's `TransactionFull` model have it (issue 22).
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("SumUp stand-in: transaction lookup", .serialized)
struct SumUpSandboxTests {
    typealias Seller = SellerSandbox

    @Test("exactly one of id, transaction_code, foreign_transaction_id, client_transaction_id finds the transaction")
    func lookupKeys() async throws {
        try await Seller.run { seller in
            let recorded = try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 1010, currency: .eur),
                foreignTransactionID: "order-1010",
                clientTransactionID: "client-1010",
                productSummary: "Tea"
            )
            try await seller.sumUp.recordTransaction(amount: Money(minorUnits: 99, currency: .eur))
            for query in [
                "id=\(recorded.id)", "transaction_code=\(recorded.transactionCode)",
                "foreign_transaction_id=order-1010", "client_transaction_id=client-1010",
            ] {
                let found = try await seller.sumUpLookup(query)
                #expect(found.status == 200, "\(query): \(found)")
                #expect(found.header("Content-Type") == "application/json")
                #expect(found.string("id") == recorded.id)
                #expect(found.string("transaction_code") == recorded.transactionCode)
                #expect(found.value("amount") == .number("10.1"), "major units, as SumUp's example 10.1 for EUR 10.10")
                #expect(found.string("currency") == "EUR")
                #expect(found.string("status") == "SUCCESSFUL")
                #expect(found.string("simple_status") == "SUCCESSFUL")
                #expect(found.string("foreign_transaction_id") == "order-1010")
                #expect(found.string("client_transaction_id") == "client-1010")
                #expect(found.string("merchant_code") == Seller.merchantCode)
                #expect(found.string("product_summary") == "Tea")
                #expect(found.string("timestamp").flatMap(InternetDate.parseRFC3339) != nil)
            }
            #expect(recorded.transactionCode.utf8.count == 10 && recorded.transactionCode.hasPrefix("T"))
        }
    }

    @Test(
        "amounts in major units, exactly, for 0, 2 and 3 minor digits",
        arguments: [
            (Money(minorUnits: 1250, currency: .jpy), "1250"), (Money(minorUnits: 1250, currency: .usd), "12.5"),
            (Money(minorUnits: 1200, currency: .usd), "12"), (Money(minorUnits: 5, currency: .usd), "0.05"),
            (Money(minorUnits: 1234, currency: try! Currency(code: "KWD")), "1.234"),
        ]
    )
    func majorUnits(amount: Money, text: String) async throws {
        try await Seller.run { seller in
            try await seller.sumUp.recordTransaction(amount: amount, foreignTransactionID: "order-amount")
            let found = try await seller.sumUpLookup("foreign_transaction_id=order-amount")
            #expect(found.value("amount") == .number(text))
            #expect(found.string("currency") == amount.currency.code)
        }
    }

    @Test("no match: 404 with SumUp's error object; another merchant code: 404 too")
    func notFound() async throws {
        try await Seller.run { seller in
            try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 100, currency: .eur),
                foreignTransactionID: "mine"
            )
            for answer in [
                try await seller.sumUpLookup("foreign_transaction_id=nobodys"),
                try await seller.sumUpLookup("foreign_transaction_id=mine", merchantCode: "MOTHER"),
            ] {
                #expect(answer.status == 404)
                #expect(answer.string("error_code") == "NOT_FOUND")
                #expect(answer.string("message") == "Resource not found")
            }
        }
    }

    @Test(
        "without the bearer token: 401 with a problem object (application/problem+json)",
        arguments: [nil, "not-the-token", ""] as [String?]
    )
    func unauthorized(bearer: String?) async throws {
        try await Seller.run { seller in
            try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 100, currency: .eur),
                foreignTransactionID: "x"
            )
            let answer = try await seller.sumUpLookup("foreign_transaction_id=x", bearer: bearer)
            #expect(answer.status == 401)
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(answer.string("type") == "https://developer.sumup.com/problem/unauthorized")
            #expect(answer.int("status") == 401)
            #expect(answer.string("detail") != nil)
        }
    }

    @Test(
        "not exactly one key: 400 with a problem object",
        arguments: ["", "id=a&transaction_code=b", "foreign_transaction_id=", "order=desc", "id=a&id=b"]
    )
    func badQuery(query: String) async throws {
        try await Seller.run { seller in
            let answer = try await seller.sumUpLookup(query)
            #expect(answer.status == 400, "\(query)")
            #expect(answer.string("type") == "https://developer.sumup.com/problem/bad-request")
            #expect(answer.int("status") == 400)
        }
    }

    @Test("transaction codes and foreign IDs stay unique per merchant; a status can change later")
    func uniquenessAndStatus() async throws {
        try await Seller.run { seller in
            let sumUp = seller.sumUp
            let first = try await sumUp.recordTransaction(
                amount: Money(minorUnits: 100, currency: .eur),
                transactionCode: "TCODE12345",
                foreignTransactionID: "unique"
            )
            await #expect(throws: SandboxError.self) {
                try await sumUp.recordTransaction(
                    amount: Money(minorUnits: 100, currency: .eur),
                    foreignTransactionID: "unique"
                )
            }
            await #expect(throws: SandboxError.self) {
                try await sumUp.recordTransaction(
                    amount: Money(minorUnits: 100, currency: .eur),
                    transactionCode: "TCODE12345"
                )
            }
            try await sumUp.setStatus(.refunded, ofTransaction: first.id)
            let found = try await seller.sumUpLookup("transaction_code=TCODE12345")
            #expect(found.string("status") == "REFUNDED")
            #expect(found.string("simple_status") == "REFUNDED")
            await #expect(throws: SandboxError.self) { try await sumUp.setStatus(.failed, ofTransaction: "nope") }
        }
    }

    @Test("injected faults: a 503 problem, then the answer; requests are recorded without tokens or query values")
    func faults() async throws {
        try await Seller.run { seller in
            try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 100, currency: .eur),
                foreignTransactionID: "f"
            )
            await seller.sumUp.injectFault(.status(503), path: "/v2.1/merchants/*/transactions", times: 1)
            let failed = try await seller.sumUpLookup("foreign_transaction_id=f")
            #expect(failed.status == 503)
            #expect(failed.header("Content-Type") == "application/problem+json")
            #expect(try await seller.sumUpLookup("foreign_transaction_id=f").status == 200)
            let requests = await seller.sumUp.requests
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.queryNames == ["foreign_transaction_id"] && $0.hasBearerToken })
            #expect(requests.first?.path == "/v2.1/merchants/\(Seller.merchantCode)/transactions")
        }
    }
}

/// SumUp's refund in the stand-in (issue 41 item 6): `POST /v1.0/merchants/{merchant_code}/payments/{transaction_id}/
/// refunds`, as the `sumup` SDK's `TransactionsResource.refund` documents it ("Omit the request body to request a full
/// refund, or provide `amount` for a partial refund"; 400 invalid, 404 not the merchant's, 409 not refundable).
@Suite("SumUp stand-in: refunds", .serialized)
struct SumUpRefundTests {
    typealias Seller = SellerSandbox

    static func refund(
        _ seller: Seller,
        _ id: String,
        json: String? = nil,
        merchantCode: String = Seller.merchantCode,
        bearer: String? = Seller.sumUpToken
    ) async throws -> RESTProbe.Answer {
        try await RESTProbe.call(
            "POST",
            seller.base + "/v1.0/merchants/\(merchantCode)/payments/\(id)/refunds",
            bearer: bearer,
            squareVersion: nil,
            json: json
        )
    }

    @Test("a part in major units, then the rest without a body: 201 each, the transaction REFUNDED with two events")
    func partThenRest() async throws {
        try await Seller.run { seller in
            let transaction = try await seller.sumUp.recordTransaction(amount: Money(minorUnits: 1000, currency: .eur))
            let part = try await Self.refund(seller, transaction.id, json: #"{"amount": 3.3}"#)
            #expect(part.status == 201, "\(part)")
            let rest = try await Self.refund(seller, transaction.id)
            #expect(rest.status == 201, "\(rest)")
            let held = try #require(await seller.sumUp.transaction(id: transaction.id))
            #expect(held.status == .refunded && held.refunds.map(\.amount.minorUnits) == [330, 670])
            let found = try await seller.sumUpLookup("id=\(transaction.id)")
            #expect(found.status == 200 && found.response.body.contains(#""type":"REFUND""#), "\(found)")
            let again = try await Self.refund(seller, transaction.id)
            #expect(again.status == 409 && again.response.body.contains("refunded in full"), "\(again)")
        }
    }

    @Test(
        "refused, nothing refunded: another token 401, another merchant or transaction 404, a failed one 409, bad amounts 400",
        arguments: [
            ("token", 401), ("merchant", 404), ("unknown", 404), ("failed", 409), (#"{"amount": 0}"#, 400),
            (#"{"amount": 10.005}"#, 400), (#"{"amount": 10.01}"#, 400), (#"{"amount": "5"}"#, 400),
            (#"{"other": 1}"#, 400), ("[1]", 400),
        ]
    )
    func refused(kind: String, status: Int) async throws {
        try await Seller.run { seller in
            let transaction = try await seller.sumUp.recordTransaction(
                amount: Money(minorUnits: 1000, currency: .eur),
                status: kind == "failed" ? .failed : .successful
            )
            let answer: RESTProbe.Answer
            switch kind {
            case "token": answer = try await Self.refund(seller, transaction.id, bearer: "not-the-token")
            case "merchant": answer = try await Self.refund(seller, transaction.id, merchantCode: "MOTHER000")
            case "unknown": answer = try await Self.refund(seller, "no-such-transaction")
            case "failed": answer = try await Self.refund(seller, transaction.id)
            default: answer = try await Self.refund(seller, transaction.id, json: kind)
            }
            #expect(answer.status == status, "\(kind): \(answer)")
            #expect(answer.header("Content-Type") == "application/problem+json", "\(kind)")
            #expect(await seller.sumUp.transaction(id: transaction.id)?.refunds.isEmpty == true)
        }
    }

    @Test("POST /api/refunds with provider sumup refunds what remains, or the amount in minor units")
    func outsideTender() async throws {
        try await Seller.run { seller in
            let transaction = try await seller.sumUp.recordTransaction(amount: Money(minorUnits: 1000, currency: .eur))
            let url = seller.base + "/api/refunds"
            let part = try await HTTPProbe.send(
                "POST",
                url,
                contentType: "application/json",
                body: #"{"provider":"sumup","payment_id":"\#(transaction.id)","amount_minor_units":125}"#
            )
            #expect(part.status == 200 && part.body.contains(#""amount_minor_units":125"#), "\(part.body)")
            let rest = try await HTTPProbe.send(
                "POST",
                url,
                contentType: "application/json",
                body: #"{"provider":"sumup","payment_id":"\#(transaction.id)"}"#
            )
            #expect(rest.status == 200 && rest.body.contains(#""amount_minor_units":875"#), "\(rest.body)")
            let none = try await HTTPProbe.send(
                "POST",
                url,
                contentType: "application/json",
                body: #"{"provider":"sumup","payment_id":"\#(transaction.id)"}"#
            )
            #expect(none.status == 409, "\(none.body)")
        }
    }
}
