import Foundation
import GRDB
import Tender
import Testing

@testable import TenderHandoff

/// Hand-offs of the providers that carry the token on the callback URL (Swipe, SoftPOS, SumUp) through the same
/// coordinator (SEC-1, SEC-5); SumUp's `foreign-tx-id` is the payment's lookup key.
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

    static func sumUpRequest() -> SumUpRequest {
        var request = SumUpRequest(amount: Money(minorUnits: 450, currency: .eur), affiliateKey: "KEY")
        request.callbackSuccess = URL(string: "my-app://sumup-done")
        return request
    }

    /// What SumUp opens: the callback URL the request carried (with the token on its query), with `smp-status`,
    /// `smp-tx-code` and the echoed `foreign-tx-id` appended (sumup §2). `echo` replaces the echoed ID (`.some(nil)`
    /// leaves it out, as an app before 1.53.2 does).
    static func sumUpReply(to prepared: PreparedHandoff, echo: String?? = .none) throws -> String {
        let request = try SumUpRequest(url: prepared.url)
        let callback = try #require(request.callbackSuccess?.absoluteString)
        let echoed = echo ?? request.foreignTransactionID
        return try SumUpResponse(status: .success, transactionCode: "TX1", foreignTransactionID: echoed)
            .callbackURLString(callbackURL: callback)
    }

    @Test(
        "SumUp: a stable foreign-tx-id kept in clear, the token on the callback URL, which SumUp keeps (sumup §1, §2)"
    )
    func sumUp() async throws {
        let harness = try Harness()
        let prepared = try harness.coordinator.prepare(Self.sumUpRequest())
        let sent = try SumUpRequest(url: prepared.url)
        // The foreign-tx-id: generated by the hand-off, 33 printable ASCII characters (SumUp takes 128), on the row.
        let foreignID = try #require(sent.foreignTransactionID)
        #expect(foreignID.hasPrefix("tender-") && foreignID.count == 33)
        #expect(foreignID.dropFirst(7).allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
        #expect(prepared.entry.foreignTransactionID == foreignID)
        // The token: on the callback URL's own query, never in foreign-tx-id.
        let token = try Self.token(in: try #require(sent.callbackSuccess?.absoluteString))
        #expect(token != foreignID)
        let receipt = try #require(try await harness.coordinator.handle(try Self.sumUpReply(to: prepared)))
        #expect(receipt.disposition == .recorded)
        #expect(receipt.entry?.outcome?.status == .approved)
        #expect(receipt.entry?.outcome?.transactionID == "TX1")
        #expect(receipt.entry?.foreignTransactionID == foreignID)
        // The journal keeps the lookup key in clear, and the token only as its digest.
        let bytes = harness.journal.fileBytes()
        #expect(bytes.contains(foreignID))
        #expect(!bytes.contains(token))
    }

    @Test("SumUp: a reopened payment sends the same foreign-tx-id with a new token, so SumUp refuses a second charge")
    func sumUpReopened() throws {
        let harness = try Harness()
        let first = try harness.coordinator.prepare(Self.sumUpRequest())
        let again = try harness.coordinator.prepare(Self.sumUpRequest(), id: first.entry.id, reopening: true)
        let (one, two) = (try SumUpRequest(url: first.url), try SumUpRequest(url: again.url))
        #expect(one.foreignTransactionID == two.foreignTransactionID)
        #expect(again.entry.foreignTransactionID == first.entry.foreignTransactionID)
        #expect(
            try Self.token(in: one.callbackSuccess?.absoluteString ?? "")
                != Self.token(in: two.callbackSuccess?.absoluteString ?? "")
        )
        // Another payment gets another ID.
        let other = try harness.coordinator.prepare(Self.sumUpRequest())
        #expect(other.entry.foreignTransactionID != first.entry.foreignTransactionID)
    }

    @Test("SumUp: a callback echoing another foreign-tx-id is tampered (SEC-5); one echoing none is recorded")
    func sumUpEcho() async throws {
        let harness = try Harness()
        let forged = try harness.coordinator.prepare(Self.sumUpRequest())
        let tampered = try #require(
            try await harness.coordinator.handle(try Self.sumUpReply(to: forged, echo: "tender-someoneelse"))
        )
        #expect(tampered.disposition == .tampered)
        #expect(tampered.entry?.state == .tampered)
        // An app before 1.53.2 echoes nothing: only the token correlates the answer.
        let old = try harness.coordinator.prepare(Self.sumUpRequest())
        let recorded = try #require(
            try await harness.coordinator.handle(try Self.sumUpReply(to: old, echo: .some(nil)))
        )
        #expect(recorded.disposition == .recorded)
    }

    @Test("SumUp: a request with a foreign-tx-id of its own is refused before anything is written")
    func sumUpOwnForeignID() throws {
        let harness = try Harness()
        var request = Self.sumUpRequest()
        request.foreignTransactionID = "order-123"
        let before = try harness.journal.dump()
        expectError(.invalidRequest) { try harness.coordinator.prepare(request) }
        #expect(try harness.journal.dump() == before)
        // An empty one is none: the builder leaves it out (issue 26), and the hand-off gives the payment its own.
        request.foreignTransactionID = ""
        let prepared = try harness.coordinator.prepare(request)
        #expect(try SumUpRequest(url: prepared.url).foreignTransactionID == prepared.entry.foreignTransactionID)
        #expect(prepared.entry.foreignTransactionID?.hasPrefix("tender-") == true)
    }

    @Test("the foreign-tx-id generator: tender- and 26 base32 characters, every one of the alphabet reachable")
    func foreignTransactionIDForm() {
        var seen = Set<Character>()
        var ids = Set<String>()
        for _ in 0..<200 {
            let id = ForeignTransactionID.generate()
            #expect(SumUpRequest.isForeignTransactionID(id))
            #expect(id.hasPrefix("tender-") && id.count == 33)
            seen.formUnion(id.dropFirst(7))
            ids.insert(id)
        }
        #expect(ids.count == 200)
        #expect(seen == Set("abcdefghijklmnopqrstuvwxyz234567"))
    }
}
