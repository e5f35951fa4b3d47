import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("SoftPOS request (softpos §1)")
struct SoftPOSRequestTests {
    /// The vendor's examples, exactly as printed in source document 004 (the payload unencoded).
    static let vendorSaleURL =
        #"softpos://softpos/transaction?payload={"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}"#
    static let vendorSalePayload = #"{"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}"#
    static let vendorRefundPayload =
        #"{"amount":200,"type":"refund","originalTranId":"446655","currency":"EUR","responseUrl":"testapp://response"}"#

    static let sale = SoftPOSRequest.sale(
        amount: Money(minorUnits: 200, currency: .eur),
        responseURL: URL(string: "testapp://response")
    )
    static let refund = SoftPOSRequest.refund(
        amount: Money(minorUnits: 200, currency: .eur),
        originalTransactionID: "446655",
        responseURL: URL(string: "testapp://response")
    )

    @Test("the vendor's sale and refund payloads are built byte for byte (softpos §1)")
    func vendorPayloads() throws {
        #expect(try Self.sale.payloadJSON() == Self.vendorSalePayload)
        #expect(try Self.refund.payloadJSON() == Self.vendorRefundPayload)
        #expect(
            try Self.sale.urlString() == "softpos://softpos/transaction?payload="
                + PercentEncoding.encode(Self.vendorSalePayload)
        )
        #expect(
            try Self.sale.urlString()
                == "softpos://softpos/transaction?payload=%7B%22amount%22%3A200%2C%22type%22%3A%22sale%22%2C%22currency%22%3A%22EUR%22%2C%22responseUrl%22%3A%22testapp%3A%2F%2Fresponse%22%7D"
        )
    }

    @Test("the vendor's examples decode, unencoded as printed and encoded (softpos §1)")
    func vendorExamplesDecode() throws {
        #expect(try SoftPOSRequest(urlString: Self.vendorSaleURL) == Self.sale)
        let refundURL = "softpos://softpos/transaction?payload=" + Self.vendorRefundPayload
        #expect(try SoftPOSRequest(urlString: refundURL) == Self.refund)
        #expect(try SoftPOSRequest(url: try Self.refund.url()) == Self.refund)
        #expect(PaymentURLKind.detect(Self.vendorSaleURL) == PaymentURLKind(provider: .softPOS, direction: .request))
    }

    @Test("a refund needs the original transaction id (softpos §1)")
    func refundNeedsOriginal() {
        let request = SoftPOSRequest(kind: .refund, amount: Money(minorUnits: 200, currency: .eur))
        let error = #expect(throws: SoftPOSError.self) { try request.url() }
        #expect(error?.code == .missingOriginalTransactionID)
        let decoded = #expect(throws: SoftPOSError.self) {
            try SoftPOSRequest(
                urlString: #"softpos://softpos/transaction?payload={"amount":200,"type":"refund","currency":"EUR"}"#
            )
        }
        #expect(decoded?.code == .missingOriginalTransactionID)
    }

    @Test("a sale must not carry an original transaction id (softpos §1)")
    func saleCarriesNoOriginal() {
        let request = SoftPOSRequest(
            kind: .sale,
            amount: Money(minorUnits: 200, currency: .eur),
            originalTransactionID: "446655"
        )
        let error = #expect(throws: SoftPOSError.self) { try request.url() }
        #expect(error?.code == .unexpectedOriginalTransactionID)
        let decoded = #expect(throws: SoftPOSError.self) {
            try SoftPOSRequest(
                urlString:
                    #"softpos://softpos/transaction?payload={"amount":200,"type":"sale","originalTranId":"1","currency":"EUR"}"#
            )
        }
        #expect(decoded?.code == .unexpectedOriginalTransactionID)
    }

    @Test(
        "the original transaction id must look like one (softpos §1)",
        arguments: ["", "44 66", "a/b", String(repeating: "1", count: 65), "4111111111111111"]
    )
    func originalTransactionIDFormat(_ id: String) {
        let request = SoftPOSRequest.refund(amount: Money(minorUnits: 200, currency: .eur), originalTransactionID: id)
        let error = #expect(throws: SoftPOSError.self) { try request.url() }
        #expect(error?.code == .invalidOriginalTransactionID)
        #expect(error?.message.contains(id) == false || id.isEmpty)
    }

    @Test("EUR only (softpos §1)", arguments: [Currency.usd, .gbp, .jpy])
    func euroOnly(_ currency: Currency) {
        let error = #expect(throws: SoftPOSError.self) {
            try SoftPOSRequest.sale(amount: Money(minorUnits: 200, currency: currency)).url()
        }
        #expect(error?.code == .unsupportedCurrency)
        let decoded = #expect(throws: SoftPOSError.self) {
            try SoftPOSRequest(
                urlString:
                    #"softpos://softpos/transaction?payload={"amount":200,"type":"sale","currency":"\#(currency.code)"}"#
            )
        }
        #expect(decoded?.code == .unsupportedCurrency)
    }

    @Test("the amount is a positive number of minor units (softpos §1)", arguments: [0, -1, 10_000_000_000])
    func positiveMinorUnits(_ minorUnits: Int) {
        let error = #expect(throws: SoftPOSError.self) {
            try SoftPOSRequest.sale(amount: Money(minorUnits: minorUnits, currency: .eur)).url()
        }
        #expect(error?.code == .invalidAmount)
    }

    @Test(
        "the payload is strict JSON with the documented keys and types (softpos §1, SEC-6)",
        arguments: [
            (#"{"amount":"200","type":"sale","currency":"EUR"}"#, "invalid_amount"),
            (#"{"amount":2.5,"type":"sale","currency":"EUR"}"#, "invalid_amount"),
            (#"{"amount":200,"type":"Sale","currency":"EUR"}"#, "invalid_request"),
            (#"{"amount":200,"currency":"EUR"}"#, "invalid_request"),
            (#"{"amount":200,"type":"sale"}"#, "invalid_request"),
            (#"{"type":"sale","currency":"EUR"}"#, "invalid_request"),
            (#"{"amount":200,"type":"sale","currency":"EUR","responseURL":"a://b"}"#, "invalid_request"),
            (#"{"amount":200,"type":"sale","currency":"EUR","amount":300}"#, "invalid_request"),
            (#"{"amount":200,"type":"sale","currency":"EUR",}"#, "invalid_request"),
            (#"{"amount":200,"type":"sale","currency":"EUR","responseUrl":5}"#, "invalid_request"),
            (#"[200]"#, "invalid_request"),
            (#"{"amount":200,"type":"sale","currency":"EUR","responseUrl":"softpos://x"}"#, "invalid_response_url"),
        ]
    )
    func strictPayload(_ payload: String, _ code: String) {
        let url = "softpos://softpos/transaction?payload=" + PercentEncoding.encode(payload)
        let error = #expect(throws: SoftPOSError.self) { try SoftPOSRequest(urlString: url) }
        #expect(error?.code.rawValue == code)
    }

    @Test(
        "the URL has the documented scheme, host and path, and one payload (softpos §1)",
        arguments: [
            "softpos://softpos/sale?payload=%7B%7D", "softpos://other/transaction?payload=%7B%7D",
            "my-app://softpos/transaction?payload=%7B%7D",
            "softpos://softpos/transaction", "softpos://softpos/transaction?payload=",
            "softpos://softpos/transaction?payload=%7B%7D&payload=%7B%7D",
            "softpos://softpos/transaction?payload=%7B%7D&x=1",
            "softpos://softpos/transaction?payload=%7B%22amount%22%3A200%ZZ",
        ]
    )
    func strictURL(_ url: String) {
        let error = #expect(throws: SoftPOSError.self) { try SoftPOSRequest(urlString: url) }
        #expect(error?.code == .invalidRequest)
    }

    @Test("correlation: the token goes on responseUrl's query, which SoftPOS keeps (softpos §2)")
    func correlation() throws {
        let correlated = try Self.sale.correlated(with: "tok-1")
        #expect(correlated.responseURL?.absoluteString == "testapp://response?tender_token=tok-1")
        #expect(try correlated.payloadJSON().contains(#""responseUrl":"testapp://response?tender_token=tok-1""#))
        #expect(try correlated.callbackEndpoints() == ["testapp://response"])
        #expect(throws: CorrelationError.self) { try correlated.correlated(with: "tok-2") }
        #expect(throws: CorrelationError.self) {
            try SoftPOSRequest.sale(amount: Money(minorUnits: 200, currency: .eur)).correlated(with: "tok")
        }
        #expect(try SoftPOSRequest.sale(amount: Money(minorUnits: 1, currency: .eur)).callbackEndpoints() == [])
    }

    static let randomRequest = Generator<SoftPOSRequest, Shrink.None<SoftPOSRequest>>(run: { rng in
        let isRefund = Bool.random(using: &rng)
        var responseURL: URL?
        if Bool.random(using: &rng) {
            var text = RandomInput.callbackURL(&rng)
            if Bool.random(using: &rng) {
                text += (text.contains("?") ? "&" : "?") + "note=" + PercentEncoding.encode(RandomInput.text(&rng))
            }
            responseURL = URL(string: text)
        }
        return SoftPOSRequest(
            kind: isRefund ? .refund : .sale,
            amount: Money(minorUnits: Int.random(in: 1...SoftPOSRequest.maximumAmount, using: &rng), currency: .eur),
            originalTransactionID: isRefund ? RandomInput.identifier(&rng, length: 1...64, punctuation: "-_.") : nil,
            responseURL: responseURL
        )
    })

    @Test("round trip: decoding a built request gives it back (property, softpos §1)")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.randomRequest) { request in
            let url = try request.urlString()
            #expect(try SoftPOSRequest(urlString: url) == request)
        }
    }

    @Test("decoding any text never crashes")
    func decodingFuzz() async {
        await propertyCheck(count: 500, input: RandomInput.fuzzText) { text in
            _ = try? SoftPOSRequest(urlString: "softpos://softpos/transaction?payload=" + text)
            _ = try? SoftPOSRequest(urlString: text)
        }
    }
}
