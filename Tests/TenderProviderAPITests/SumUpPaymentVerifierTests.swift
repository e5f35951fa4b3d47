import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// SumUpPaymentVerifier against a scripted SumUp (verification.md "SumUp"), over real HTTP on loopback.
///
/// SumUp's facts these tests pin, from its OpenAPI document (sumup/sumup-py `openapi.json`) and the `sumup` Python
/// SDK's `TransactionsResource.get`, which validates the answer as `TransactionFull`:
/// - `GET /v2.1/merchants/{merchant_code}/transactions`: "The transaction resource is identified by a query
///   parameter and *one* of following parameters is required: `id`, `transaction_code`, `foreign_transaction_id`,
///   `client_transaction_id`"; 401 "The request is not authorized", 404 "The requested resource does not exist"
///   (`{"error_code": "NOT_FOUND", "message": "Resource not found"}`);
/// - `amount`: "Total amount of the transaction" (a JSON number of major units, example `10.1`), `tip_amount`:
///   "Amount of the tip (out of the total transaction amount)";
/// - `simple_status`: `SUCCESSFUL`, `PAID_OUT`, `FAILED`, `CANCELLED`, `PENDING`, `REFUNDED`, `CHARGEBACK`, …;
///   `status`: `SUCCESSFUL`, `CANCELLED`, `FAILED`, `PENDING`, `REFUNDED`;
/// - `transaction_code`: "Transaction code returned by the acquirer/processing entity after processing the
///   transaction".
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("SumUp payment verifier", .serialized)
struct SumUpPaymentVerifierTests {
    static func verify(
        _ request: PaymentVerificationRequest,
        _ script: @escaping ScriptedServer.Script
    ) async throws -> (PaymentVerification, [ScriptedServer.Request]) {
        try await ScriptedServer.with(script) { server in
            let verification = try await Fixture.sumUpVerifier(server).verify(request)
            SecretScan.expectNoSecrets([Fixture.sumUpToken], in: [verification])
            return (verification, server.requests)
        }
    }

    static func answering(_ transaction: String) -> ScriptedServer.Script {
        { _, _ in .json(transaction) }
    }

    @Test("confirmed: looked up by foreign_transaction_id; SUCCESSFUL, 10.1 EUR, the callback's transaction code")
    func confirmed() async throws {
        let (verification, requests) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.answering(Fixture.sumUpTransaction())
        )
        #expect(verification.verdict == .confirmed && verification.reason == .matches)
        #expect(verification.provenOutcome == .approved)
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == "GET" && request.path == "/v2.1/merchants/MH4H92C7/transactions")
        #expect(request.parameter("foreign_transaction_id") == "order-1042")
        #expect(request.query.count == 1, "exactly one lookup key")
        #expect(request.headers["authorization"] == "Bearer " + Fixture.sumUpToken)
        #expect(!request.target.contains(Fixture.sumUpToken))
        let record = try #require(verification.evidence.records.first)
        #expect(record.kind == "sumup_transaction" && record.id == "410fc44a-5956-44e1-b5cc-19c6f8d727a4")
        #expect(record.transactionCode == "TEENSK4W2K" && record.foreignTransactionID == "order-1042")
        #expect(record.serverAmount == "10.1" && record.serverCurrency == "EUR")
        #expect(record.amount == Money(minorUnits: 1010, currency: .eur))
        #expect(verification.evidence.endpoints == ["GET /v2.1/merchants/{merchant_code}/transactions"])
        #expect(verification.evidence.server?.hasPrefix("http://127.0.0.1:") == true)
    }

    @Test("without a foreign-tx-id, the transaction code is the key")
    func byTransactionCode() async throws {
        let (verification, requests) = try await Self.verify(
            Fixture.sumUpRequest(foreignTransactionID: nil),
            Self.answering(Fixture.sumUpTransaction())
        )
        #expect(verification.verdict == .confirmed)
        #expect(requests.first?.parameter("transaction_code") == "TEENSK4W2K")
        #expect(requests.first?.parameter("foreign_transaction_id") == nil)
    }

    @Test(
        "amounts are major units, converted exactly with the currency's minor digits (0, 2 and 3)",
        arguments: [
            ("1000", "JPY", 1000, Currency.jpy), ("10.1", "EUR", 1010, .eur), ("10.10", "EUR", 1010, .eur),
            ("1.01e1", "EUR", 1010, .eur), ("1.234", "KWD", 1234, .kwd), ("12", "KWD", 12000, .kwd),
            ("0.29", "EUR", 29, .eur),
        ]
    )
    func majorUnits(amount: String, currency: String, minorUnits: Int, expected: Currency) async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(amount: minorUnits, currency: expected),
            Self.answering(Fixture.sumUpTransaction(amount: amount, currency: currency))
        )
        #expect(verification.verdict == .confirmed, "\(amount) \(currency)")
        #expect(verification.evidence.records.first?.amount == Money(minorUnits: minorUnits, currency: expected))
    }

    @Test("0.29 EUR is 29 cents, where Double would give 28 (0.29 × 100 = 28.999999999999996)")
    func noDouble() {
        #expect(Int(0.29 * 100.0) == 28, "the trap this avoids")
        #expect(Money(majorUnits: "0.29", currency: .eur) == Money(minorUnits: 29, currency: .eur))
        #expect(Money(majorUnits: "1.005", currency: .kwd) == Money(minorUnits: 1005, currency: .kwd))
        #expect(Money(majorUnits: "-2.5", currency: .eur) == Money(minorUnits: -250, currency: .eur))
        for text in [
            "10.005", "0.5", "1e-1", "01", "1.", ".5", "1e", "+1", "1,5", "NaN", "1e99999", "99999999999999999999",
        ] {
            let currency: Currency = text == "0.5" || text == "1e-1" ? .jpy : .eur
            #expect(Money(majorUnits: text, currency: currency) == nil, "\(text)")
        }
    }

    @Test("a tip is not counted: the amount less the tip is what was asked for")
    func tip() async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.answering(Fixture.sumUpTransaction(amount: "11.6", tip: "1.5"))
        )
        #expect(verification.verdict == .confirmed)
        #expect(verification.evidence.records.first?.tip == Money(minorUnits: 150, currency: .eur))
    }

    @Test("an amount less its tip beyond Int: unexpected_response naming tip_amount, no crash")
    func amountOverflow() async throws {
        // 92233720368547758.07 EUR is Int.max cents; a tip of -0.01 taken from it overflows.
        let script = Self.answering(Fixture.sumUpTransaction(amount: "92233720368547758.07", tip: "-0.01"))
        try await ScriptedServer.with(script) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest())
            }
            #expect(error?.code == .unexpectedResponse)
            #expect(error?.message.contains("tip_amount") == true)
        }
        // Built by hand, the transaction has no amount rather than a trap.
        let built = SumUpTransaction(amount: "92233720368547758.07", tipAmount: "-0.01", currencyCode: "EUR")
        #expect(built.amountMoney == nil)
    }

    @Test(
        "contradicted: another amount, a sub-cent amount, another currency (amount_mismatch)",
        arguments: [("10.0", "EUR"), ("10.105", "EUR"), ("10.1", "GBP")]
    )
    func wrongAmount(amount: String, currency: String) async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.answering(Fixture.sumUpTransaction(amount: amount, currency: currency))
        )
        #expect(verification.verdict == .contradicted && verification.reason == .amountMismatch)
        #expect(verification.provenOutcome == nil)
        #expect(verification.evidence.records.first?.serverAmount == amount)
    }

    @Test("contradicted: the transaction has another code than the callback's smp-tx-code")
    func otherCode() async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.answering(Fixture.sumUpTransaction(code: "TOTHERCODE"))
        )
        #expect(verification.verdict == .contradicted && verification.reason == .transactionCodeMismatch)
    }

    @Test(
        "statuses: simple_status first, then status; approved, failed, cancelled, or nothing proven",
        arguments: [
            (
                String?.some("SUCCESSFUL"), String?.some("PAID_OUT"), PaymentVerdict.confirmed,
                PaymentOutcome.Status?.some(.approved)
            ),
            ("SUCCESSFUL", nil, .confirmed, .approved), ("REFUNDED", "REFUNDED", .confirmed, .approved),
            ("FAILED", "FAILED", .contradicted, .failed), ("CANCELLED", "CANCELLED", .contradicted, .cancelled),
            ("PENDING", "PENDING", .unverifiable, nil), ("SUCCESSFUL", "SOMETHING_NEW", .confirmed, .approved),
            ("SOMETHING_NEW", nil, .unverifiable, nil),
        ]
    )
    func statuses(
        status: String?,
        simple: String?,
        verdict: PaymentVerdict,
        proven: PaymentOutcome.Status?
    ) async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(reported: .approved),
            Self.answering(Fixture.sumUpTransaction(status: status ?? "", simpleStatus: simple))
        )
        #expect(verification.verdict == verdict)
        #expect(verification.provenOutcome == proven)
        if verdict == .contradicted { #expect(verification.reason == .statusMismatch) }
        if simple == "PENDING" { #expect(verification.reason == .pending) }
    }

    @Test("a failure the POS app reported is confirmed by a FAILED transaction")
    func reportedFailure() async throws {
        let (verification, _) = try await Self.verify(
            Fixture.sumUpRequest(reported: .failed),
            Self.answering(Fixture.sumUpTransaction(status: "FAILED", simpleStatus: "FAILED"))
        )
        #expect(verification.verdict == .confirmed && verification.provenOutcome == .failed)
    }

    @Test("not found: by foreign-tx-id, then by the code; a reported success with an unknown code is contradicted")
    func notFound() async throws {
        // Neither key is known, and the POS app reported success with a transaction code: SumUp assigns codes when
        // it processes a payment, so this one never was.
        let (forged, requests) = try await Self.verify(Fixture.sumUpRequest(), { _, _ in Fixture.sumUpNotFound })
        #expect(forged.verdict == .contradicted && forged.reason == .noSuchTransaction)
        #expect(requests.map { $0.query.first?.name } == ["foreign_transaction_id", "transaction_code"])
        // No code (no callback, or a failure): not found yet, which proves nothing.
        let (noCode, _) = try await Self.verify(
            Fixture.sumUpRequest(reported: nil, transactionCode: nil),
            { _, _ in Fixture.sumUpNotFound }
        )
        #expect(noCode.verdict == .unverifiable && noCode.reason == .notFoundYet && noCode.provenOutcome == nil)
        // The foreign-tx-id is unknown (an app that does not send it), the code is found.
        let (fallback, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            { request, _ in
                request.parameter("transaction_code") == nil ? Fixture.sumUpNotFound : .json(Fixture.sumUpTransaction())
            }
        )
        #expect(fallback.verdict == .confirmed)
    }

    /// SumUp does not know the foreign-tx-id; the transaction code finds `transaction`.
    static func foundByCodeOnly(_ transaction: String) -> ScriptedServer.Script {
        { request, _ in request.parameter("transaction_code") == nil ? Fixture.sumUpNotFound : .json(transaction) }
    }

    @Test(
        "found by the code alone, another payment's transaction: another or no foreign_transaction_id is contradicted",
        arguments: [String?.some("order-9999"), nil]
    )
    func foreignIDMismatch(foreign: String?) async throws {
        let (verification, requests) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.foundByCodeOnly(Fixture.sumUpTransaction(foreign: foreign))
        )
        #expect(verification.verdict == .contradicted && verification.reason == .foreignIDMismatch)
        #expect(verification.reason.rawValue == "foreign_id_mismatch")
        #expect(verification.provenOutcome == nil)
        #expect(requests.map { $0.query.first?.name } == ["foreign_transaction_id", "transaction_code"])
        #expect(verification.evidence.records.first?.foreignTransactionID == foreign)
    }

    @Test("a transaction made before the payment was written is another sale's: contradicted (outside_window)")
    func codeOutsideWindow() async throws {
        let yesterday = InternetDate.rfc3339(Fixture.now.addingTimeInterval(-86_400))
        // Its foreign-tx-id is the payment's, but it was made a day before the hand-off.
        let (withForeign, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.foundByCodeOnly(Fixture.sumUpTransaction(timestamp: yesterday))
        )
        #expect(withForeign.verdict == .contradicted && withForeign.reason == .outsideWindow)
        // A payment without a foreign-tx-id (written before v8) is looked up by the code only.
        let (withoutForeign, requests) = try await Self.verify(
            Fixture.sumUpRequest(foreignTransactionID: nil),
            Self.answering(Fixture.sumUpTransaction(timestamp: yesterday))
        )
        #expect(withoutForeign.verdict == .contradicted && withoutForeign.reason == .outsideWindow)
        #expect(requests.count == 1)
        // The device clock allowance, 2 minutes: a minute before the payment was written is still this payment.
        let justBefore = InternetDate.rfc3339(Fixture.now.addingTimeInterval(-960))
        let (slack, _) = try await Self.verify(
            Fixture.sumUpRequest(foreignTransactionID: nil),
            Self.answering(Fixture.sumUpTransaction(timestamp: justBefore))
        )
        #expect(slack.verdict == .confirmed)
        // Found by the payment's own foreign-tx-id, it is judged by its time all the same (issue 32): a record made
        // before the payment was written is another sale's, whatever key found it.
        let (byForeign, _) = try await Self.verify(
            Fixture.sumUpRequest(),
            Self.answering(Fixture.sumUpTransaction(timestamp: yesterday))
        )
        #expect(byForeign.verdict == .contradicted && byForeign.reason == .outsideWindow)
        #expect(byForeign.evidence.foundBy == .paymentKey)
    }

    @Test("a failure SumUp still does not have 72 hours after the window is confirmed (no_record), not asked for ever")
    func noRecordAfterSettling() async throws {
        let settled = Fixture.sumUpRequest(
            reported: .failed,
            transactionCode: nil,
            expiredAt: Fixture.now.addingTimeInterval(-73 * 3600)
        )
        let (absent, _) = try await Self.verify(settled, { _, _ in Fixture.sumUpNotFound })
        #expect(absent.verdict == .confirmed && absent.reason == .noRecord && absent.provenOutcome == nil)
        // Before then it may still come: not found yet.
        let recent = Fixture.sumUpRequest(
            reported: .failed,
            transactionCode: nil,
            expiredAt: Fixture.now.addingTimeInterval(-71 * 3600)
        )
        let (notYet, _) = try await Self.verify(recent, { _, _ in Fixture.sumUpNotFound })
        #expect(notYet.verdict == .unverifiable && notYet.reason == .notFoundYet)
        // A payment no callback answered is never taken as absent.
        let unanswered = Fixture.sumUpRequest(
            reported: nil,
            transactionCode: nil,
            expiredAt: Fixture.now.addingTimeInterval(-73 * 3600)
        )
        let (unknown, _) = try await Self.verify(unanswered, { _, _ in Fixture.sumUpNotFound })
        #expect(unknown.verdict == .unverifiable && unknown.reason == .notFoundYet)
    }

    @Test("no key at all: unverifiable (no_lookup_key), nothing sent")
    func noKey() async throws {
        let (verification, requests) = try await Self.verify(
            Fixture.sumUpRequest(transactionCode: nil, foreignTransactionID: nil),
            Self.answering(Fixture.sumUpTransaction())
        )
        #expect(verification.verdict == .unverifiable && verification.reason == .noLookupKey)
        #expect(requests.isEmpty)
    }

    @Test("401, 403, 5xx: thrown (5xx after the retries), never a verdict; no token in any of it")
    func failures() async throws {
        let cases: [(ScriptedServer.Reply, ProviderAPIError.Code, Int)] = [
            (
                ScriptedServer.Reply(
                    status: 401,
                    body: #"{"detail":"Unauthorized.","status":401,"title":"Unauthorized"}"#
                ), .invalidAccessToken, 1
            ),
            (
                ScriptedServer.Reply(status: 403, body: #"{"error_code":"FORBIDDEN","message":"no"}"#),
                .insufficientScopes, 1
            ),
            (ScriptedServer.Reply(status: 502, body: "bad gateway"), .serviceUnavailable, 4),
        ]
        for (reply, code, attempts) in cases {
            let script: ScriptedServer.Script = { _, _ in reply }
            try await ScriptedServer.with(script) { server in
                let verifier = try Fixture.sumUpVerifier(server)
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await verifier.verify(Fixture.sumUpRequest())
                }
                #expect(error?.code == code)
                #expect(error?.provider == .sumUp)
                #expect(error?.attempts == attempts)
                #expect(server.requests.count == attempts)
                if code == .insufficientScopes { #expect(error?.requiredScope == "transactions.history") }
                SecretScan.expectNoSecrets([Fixture.sumUpToken], in: [error as Any, verifier, verifier.client])
            }
        }
    }

    @Test("a merchant code or key of the wrong shape is refused before any call")
    func badInput() async throws {
        let script: ScriptedServer.Script = { _, _ in .json(Fixture.sumUpTransaction()) }
        try await ScriptedServer.with(script) { server in
            let client = SumUpAPIClient(
                environment: try SumUpEnvironment(baseURL: server.baseURL),
                retryPolicy: Fixture.retry()
            )
            let token = SumUpAccessToken(Fixture.sumUpToken)
            for (merchant, lookup) in [
                ("MH4H/92C7", SumUpAPIClient.TransactionLookup.transactionCode("T1")),
                ("MH4H92C7", .transactionCode("T 1")),
                ("MH4H92C7", .foreignTransactionID(String(repeating: "x", count: 129))),
                ("MH4H92C7", .foreignTransactionID("line\nbreak")),
            ] {
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await client.transaction(merchantCode: merchant, lookup, accessToken: token)
                }
                #expect(error?.code == .invalidInput)
            }
            #expect(server.requests.isEmpty)
            // A foreign-tx-id with spaces and '&' is one percent-encoded query value.
            _ = try await client.transaction(
                merchantCode: "MH4H92C7",
                .foreignTransactionID("a b&c=d"),
                accessToken: token
            )
            #expect(server.requests.first?.parameter("foreign_transaction_id") == "a b&c=d")
            #expect(server.requests.first?.query.count == 1)
        }
    }
}
