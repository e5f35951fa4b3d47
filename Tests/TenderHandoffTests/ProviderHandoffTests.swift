import Foundation
import Tender
import Testing

@testable import TenderHandoff

/// Hand-offs of the providers that carry the token on the callback URL (Swipe, SoftPOS) or in
/// `foreign-tx-id` (SumUp), through the same coordinator (SEC-1, SEC-5).
@Suite("Hand-off with every provider")
struct ProviderHandoffTests {
    static func token(in callbackURL: String) throws -> String {
        try #require(try QueryParameters(urlString: callbackURL).value(named: Correlation.parameterName))
    }

    static func swipeRequest() throws -> SwipeRequest {
        var request = SwipeRequest(amount: Money(minorUnits: 1099, currency: .usd))
        request.returnURL = URL(string: "my-app://swipe-done")
        request.returnAppName = "Demo"
        return request
    }

    /// What Swipe opens: the return URL (with the token it was given) and the `ifcc_` result.
    static func swipeReply(to prepared: PreparedHandoff, amount: String = "10.99") throws -> String {
        let returnURL = try #require(try SwipeRequest(url: prepared.url).returnURL?.absoluteString)
        return returnURL
            + "&ifcc_responseType=approved&ifcc_amount=\(amount)&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa"
    }

    @Test("Swipe: the token rides on returnURL and the approved callback is recorded")
    func swipe() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(try Self.swipeRequest())
        let receipt = try #require(try await harness.coordinator.handle(try Self.swipeReply(to: prepared)))
        #expect(receipt.disposition == .recorded)
        #expect(receipt.entry?.outcome?.status == .approved)
        #expect(receipt.entry?.outcome?.amount == Money(minorUnits: 1099, currency: .usd))
    }

    @Test("Swipe: an echoed amount that differs is tampered, even without ifcc_currency (SEC-5)")
    func swipeAmountTampered() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(try Self.swipeRequest())
        let receipt = try #require(
            try await harness.coordinator.handle(try Self.swipeReply(to: prepared, amount: "0.99"))
        )
        #expect(receipt.disposition == .tampered)
        #expect(receipt.entry?.state == .tampered)
        #expect(receipt.entry?.outcome == nil || receipt.entry?.state != .completed)
    }

    @Test("Swipe: the right token on another endpoint is tampered (SEC-5)")
    func swipeWrongEndpoint() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(try Self.swipeRequest())
        let reply = try Self.swipeReply(to: prepared).replacingOccurrences(
            of: "my-app://swipe-done",
            with: "my-app://elsewhere"
        )
        #expect(try await harness.coordinator.handle(reply)?.disposition == .tampered)
    }

    @Test("SoftPOS: the token rides on responseUrl; a refused sale is recorded as declined")
    func softPOS() async throws {
        let harness = try Harness()
        var request = SoftPOSRequest(kind: .sale, amount: Money(minorUnits: 200, currency: .eur))
        request.responseURL = URL(string: "my-app://softpos-done")
        let prepared = try harness.coordinator.prepare(request)
        let responseURL = try #require(try SoftPOSRequest(url: prepared.url).responseURL?.absoluteString)
        let result = PercentEncoding.encode(
            #"{"result":{"refusalCode":"05","transactionId":"449334","customMessage":{}}}"#
        )
        let receipt = try #require(try await harness.coordinator.handle(responseURL + "&result=" + result))
        #expect(receipt.disposition == .recorded)
        #expect(receipt.entry?.outcome?.status == .declined)
        #expect(receipt.entry?.outcome?.errorCode == "05")
    }

    @Test("SumUp: the token rides in foreign-tx-id and comes back in the same parameter")
    func sumUp() async throws {
        let harness = try Harness()
        var request = SumUpRequest(amount: Money(minorUnits: 450, currency: .eur), affiliateKey: "KEY")
        request.callbackSuccess = URL(string: "my-app://sumup-done")
        let prepared = try harness.coordinator.prepare(request)
        let token = try #require(try SumUpRequest(url: prepared.url).foreignTransactionID)
        let reply =
            "my-app://sumup-done?smp-status=success&smp-tx-code=TX1&foreign-tx-id=" + PercentEncoding.encode(token)
        let receipt = try #require(try await harness.coordinator.handle(reply))
        #expect(receipt.disposition == .recorded)
        #expect(receipt.entry?.outcome?.status == .approved)
        #expect(!harness.journal.fileBytes().contains(token))
    }
}
