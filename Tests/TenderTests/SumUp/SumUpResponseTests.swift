import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("SumUp callback (sumup §2)")
struct SumUpResponseTests {
    static let base = "samplepaymentapp://?"

    func parse(_ query: String) throws -> SumUpResponse {
        try SumUpResponse(callbackURLString: Self.base + query)
    }

    func expectError(_ query: String, _ code: SumUpError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: SumUpError.self, sourceLocation: sourceLocation) { try parse(query) }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test("a success carries the transaction code and echoes foreign-tx-id (sumup §2)")
    func success() throws {
        let response = try parse("smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123")
        #expect(
            response
                == SumUpResponse(status: .success, transactionCode: "TEENSK4W2K", foreignTransactionID: "order-123")
        )
        // No token on the callback URL: an answer to a request that carried it in foreign-tx-id (before issue 22).
        #expect(response.callbackToken == nil)
        #expect(response.correlationToken == "order-123")
        let outcome = response.outcome
        #expect(outcome.status == .approved)
        #expect(outcome.provider == .sumUp)
        #expect(outcome.transactionID == "TEENSK4W2K")
        #expect(outcome.errorCode == nil)
        #expect(outcome.amount == nil)
        #expect(outcome.details == .sumUp(response))
    }

    @Test(
        "the hand-off's token comes back on the callback URL's own query, before the smp- parameters (sumup §2)"
    )
    func tokenOnCallbackURL() throws {
        let token = "hT8_gelUtkPWKGeFjWFGvVAFDnRknAk-HcjKiNQB_SE"
        // SumUp opens the callback URL "with these query parameters appended" (sumup §2): the URL's own query stays.
        let response = try SumUpResponse(
            callbackURLString: "my-app://ok?\(Correlation.parameterName)=\(token)&smp-status=success"
                + "&smp-tx-code=T965CNVMK5&foreign-tx-id=tender-iwoe6svuhndqykr4qq4t5qyz73"
        )
        #expect(response.callbackToken == token)
        #expect(response.correlationToken == token, "the token, not the foreign-tx-id, correlates the answer")
        #expect(response.foreignTransactionID == "tender-iwoe6svuhndqykr4qq4t5qyz73")
        // The token is redacted from the description; the foreign-tx-id is a lookup key and shown.
        #expect(!response.description.contains(token))
        #expect(response.description.contains("tender-iwoe6svuhndqykr4qq4t5qyz73"))
        // Twice, or not a token: refused, naming the parameter, never the value (SEC-6).
        for query in [
            "\(Correlation.parameterName)=\(token)&\(Correlation.parameterName)=\(token)&smp-status=success",
            "\(Correlation.parameterName)=a%20b&smp-status=success",
        ] {
            let error = #expect(throws: SumUpError.self) { try parse(query) }
            #expect(error?.code == .invalidCorrelationToken)
            #expect(error?.message.contains(Correlation.parameterName) == true)
            #expect(error?.message.contains(token) == false)
        }
    }

    @Test(
        "statuses map onto the outcome model (sumup §2)",
        arguments: [
            ("smp-status=success", PaymentOutcome.Status.approved, nil as String?),
            ("smp-status=failed", .failed, "failed"),
            ("smp-status=failed&smp-message=Transaction%20failed", .failed, "failed"),
            ("smp-status=failed&smp-message=Card%20declined", .declined, "failed"),
            ("smp-status=failed&smp-message=DECLINED%20by%20issuer", .declined, "failed"),
            ("smp-status=invalidstate&smp-message=Not%20logged%20in", .failed, "invalidstate"),
            ("smp-status=invalidstate&smp-message=declined", .failed, "invalidstate"),
        ]
    )
    func statuses(_ query: String, _ status: PaymentOutcome.Status, _ errorCode: String?) throws {
        let outcome = try parse(query).outcome
        #expect(outcome.status == status)
        #expect(outcome.errorCode == errorCode)
    }

    @Test(
        "smp-status comes from an allow-list (sumup §2, SEC-6)",
        arguments: ["SUCCESS", "ok", "invalidState", "cancelled", ""]
    )
    func statusAllowList(_ status: String) {
        expectError("smp-status=\(status)", .invalidStatus)
    }

    @Test("a callback without smp-status is refused")
    func missingStatus() {
        expectError("smp-tx-code=ABC", .invalidStatus)
        expectError("smp-status", .invalidField)
    }

    @Test(
        "each parameter appears once (SEC-6)",
        arguments: [
            "smp-status", "smp-tx-code", "foreign-tx-id", "smp-message", "smp-failure-cause", "smp-receipt-sent",
        ]
    )
    func duplicates(_ name: String) {
        let query =
            "smp-status=failed&smp-tx-code=A1&foreign-tx-id=t&smp-message=m&smp-failure-cause=c&smp-receipt-sent=true"
            + "&\(name)=x"
        expectError(query, .duplicateParameter)
    }

    @Test(
        "identifiers and the message have their documented form (sumup §2)",
        arguments: [
            "smp-tx-code=has%20space", "smp-tx-code=" + String(repeating: "A", count: 65), "smp-tx-code=a%2Fb",
            "foreign-tx-id=" + String(repeating: "a", count: 129), "foreign-tx-id=caf%C3%A9", "foreign-tx-id=a%0Ab",
            "smp-message=a%00b", "smp-message=" + String(repeating: "m", count: 1025),
            "smp-failure-cause=has%20space", "smp-failure-cause=" + String(repeating: "c", count: 65),
            "smp-failure-cause=a%2Fb", "smp-receipt-sent=TRUE", "smp-receipt-sent=1", "smp-receipt-sent=yes",
        ]
    )
    func fieldForms(_ field: String) {
        expectError("smp-status=success&" + field, .invalidField)
    }

    @Test("an empty text or code counts as absent: SumUp sends smp-tx-code= on a failure")
    func emptyValues() throws {
        #expect(
            try parse("smp-status=failed&smp-tx-code=&foreign-tx-id=&smp-message=&smp-failure-cause=")
                == SumUpResponse(status: .failed)
        )
    }

    @Test(
        "a typed parameter whose value is not of its type is refused, never read as absent (issue 32; sumup §2)",
        arguments: [
            "smp-receipt-sent=", "smp-receipt-sent", "smp-receipt-sent=0", "smp-receipt-sent=%20true",
            "smp-status=success&smp-status", "smp-tx-code", "smp-failure-cause",
        ]
    )
    func wrongTypeIsMalformed(_ field: String) {
        // A Boolean is `true` or `false`: an empty one would be a receipt the app cannot say was sent or not.
        let error = #expect(throws: SumUpError.self) { try parse("smp-status=success&" + field) }
        #expect(error?.code == .invalidField || error?.code == .duplicateParameter, "\(field)")
    }

    @Test("card numbers: refused in identifiers, masked in the message (SEC-9)")
    func cardNumbers() throws {
        for field in [
            "smp-tx-code=4111111111111111", "foreign-tx-id=card%204111%201111%201111%201111",
            "smp-failure-cause=4111111111111111",
        ] {
            let error = #expect(throws: SumUpError.self) { try parse("smp-status=success&" + field) }
            #expect(error?.code == .cardNumberRefused)
            #expect(error?.message.contains("1111") == false)
        }
        let masked = try parse("smp-status=failed&smp-message=Card%205555555555554444%20declined")
        #expect(masked.message == "Card XXXXXXXXXXXX4444 declined")
        #expect(masked.outcome.status == .declined)
    }

    @Test("a message may be localized, with line breaks (sumup §2)")
    func localizedMessage() throws {
        let response = try parse(
            "smp-status=failed&smp-message=Zahlung%20abgelehnt%0AErneut%20versuchen%20%E2%80%93%20%C3%BC"
        )
        #expect(response.message == "Zahlung abgelehnt\nErneut versuchen – ü")
    }

    @Test("unreadable and oversized callbacks are refused (SEC-6)")
    func unreadable() {
        expectError("smp-status=success%ZZ", .unreadableCallback)
        let huge = Self.base + "smp-status=success&pad=" + String(repeating: "a", count: 17_000)
        #expect(throws: SumUpError.self) { try SumUpResponse(callbackURLString: huge) }
    }

    /// The examples of SumUp's Android API README (`sumup/sumup-android-api`, `README.md` at commit 7fb77f6, "URI
    /// Call"), word for word: the same `sumupmerchant://pay/1.0` contract answers with these parameters.
    static let androidSuccess =
        "mycallbackscheme://result?smp-status=success&smp-message=Transaction%20successful.&smp-receipt-sent=false&smp-tx-code=123ABC&foreign-tx-id=0558637a-b73c-43ad-b358-f93cb909251x"
    static let androidFailure =
        "mycallbackscheme://result?smp-status=failed&smp-failure-cause=transaction-failed&smp-message=Transaction%20failed.&smp-receipt-sent=false&smp-tx-code=123ABC&foreign-tx-id=05c14c86-a7a0-49c5-a1ec-acb168f5198x"

    @Test("the Android README's failure example: cause and receipt read, kept in the outcome's details")
    func androidFailureExample() throws {
        let response = try SumUpResponse(callbackURLString: Self.androidFailure)
        let expected = SumUpResponse(
            status: .failed,
            transactionCode: "123ABC",
            foreignTransactionID: "05c14c86-a7a0-49c5-a1ec-acb168f5198x",
            message: "Transaction failed.",
            failureCause: .transactionFailed,
            receiptSent: false
        )
        #expect(response == expected)
        #expect(response.outcome.status == .failed)
        #expect(response.outcome.errorCode == "failed")
        #expect(response.outcome.details == .sumUp(expected))
        // Written back in the README's order, byte for byte.
        #expect(try expected.callbackURLString(callbackURL: "mycallbackscheme://result") == Self.androidFailure)
    }

    @Test("the Android README's success example, byte for byte both ways")
    func androidSuccessExample() throws {
        let response = try SumUpResponse(callbackURLString: Self.androidSuccess)
        #expect(response.status == .success && response.receiptSent == false && response.failureCause == nil)
        #expect(response.outcome.status == .approved)
        #expect(try response.callbackURLString(callbackURL: "mycallbackscheme://result") == Self.androidSuccess)
    }

    @Test(
        "smp-failure-cause is an open set: the documented causes and others parse, keeping their wire string",
        arguments: ["transaction-failed", "geolocation-required", "invalid-param", "invalid-token", "card_expired"]
    )
    func failureCauses(_ cause: String) throws {
        let response = try parse("smp-status=failed&smp-failure-cause=\(cause)&smp-receipt-sent=true")
        #expect(response.failureCause?.rawValue == cause)
        #expect(response.receiptSent == true)
        let documented = SumUpResponse.FailureCause.documented.map(\.rawValue)
        #expect(documented == ["transaction-failed", "geolocation-required", "invalid-param", "invalid-token"])
    }

    static let randomResponse = Generator<SumUpResponse, Shrink.None<SumUpResponse>>(run: { rng in
        SumUpResponse(
            status: SumUpResponse.Status.allCases.randomElement(using: &rng)!,
            transactionCode: Bool.random(using: &rng)
                ? RandomInput.identifier(&rng, length: 1...64, punctuation: "-_") : nil,
            foreignTransactionID: Bool.random(using: &rng)
                ? RandomInput.identifier(&rng, length: 1...128, punctuation: " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
                : nil,
            message: RandomInput.optionalText(&rng),
            failureCause: Bool.random(using: &rng)
                ? SumUpResponse.FailureCause(
                    rawValue: RandomInput.identifier(&rng, length: 1...64, punctuation: "-_")
                ) : nil,
            receiptSent: [true, false, nil].randomElement(using: &rng)!
        )
    })

    @Test("round trip: a callback built for a response parses back to it (property, sumup §2)")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.randomResponse) { response in
            let url = try response.callbackURLString(callbackURL: "my-app://sumup?order=1")
            #expect(try SumUpResponse(callbackURLString: url) == response)
            #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: .sumUp, direction: .response))
        }
    }

    @Test("the parser survives random SumUp-shaped queries (SEC-6, SEC-9)")
    func structuredFuzz() async {
        let fields: [(name: String, values: [String])] = [
            ("smp-status", ["success", "failed", "invalidstate", "SUCCESS"]),
            ("smp-tx-code", ["TEENSK4W2K", "a b"]),
            ("foreign-tx-id", ["order-123", String(repeating: "a", count: 129)]),
            ("smp-message", ["Card declined", "card 4111 1111 1111 1111 declined", "a\nb"]),
            ("smp-failure-cause", ["transaction-failed", "4111111111111111", "a b"]),
            ("smp-receipt-sent", ["true", "false", "TRUE"]),
            ("other", ["x"]),
        ]
        await propertyCheck(count: 3000, input: RandomInput.query(fields)) { query in
            guard let response = try? SumUpResponse(callbackURLString: Self.base + query) else { return }
            #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
            #expect(response.correlationToken == response.foreignTransactionID)
        }
    }

    @Test("the parser survives arbitrary input, and what it keeps holds no card number (SEC-6, SEC-9)")
    func fuzz() async {
        await propertyCheck(count: 1000, input: RandomInput.fuzzText) { text in
            for candidate in [text, Self.base + text, Self.base + "smp-status=success&" + text] {
                if let response = try? SumUpResponse(callbackURLString: candidate) {
                    #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
                }
            }
        }
        let seed = Self.base + "smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123&smp-message=OK"
        await propertyCheck(count: 1000, input: RandomInput.mutating([seed])) { text in
            if let response = try? SumUpResponse(callbackURLString: text) {
                #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
            }
        }
    }
}
