import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("SumUp request (sumup §1)")
struct SumUpRequestTests {
    /// The README example, exactly as the spec quotes it.
    static let readmeExample =
        "sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=YOUR-AFFILIATE-KEY&title=Coffee%20beans&callbacksuccess=samplepaymentapp%3A%2F%2F&callbackfail=samplepaymentapp%3A%2F%2F&foreign-tx-id=order-123"

    static let readmeRequest = SumUpRequest(
        amount: Money(minorUnits: 1000, currency: .eur),
        affiliateKey: "YOUR-AFFILIATE-KEY",
        title: "Coffee beans",
        callbackSuccess: URL(string: "samplepaymentapp://"),
        callbackFail: URL(string: "samplepaymentapp://"),
        foreignTransactionID: "order-123"
    )

    @Test("the README example is built byte for byte and decodes back (sumup §1)")
    func readmeExample() throws {
        #expect(try Self.readmeRequest.urlString() == Self.readmeExample)
        #expect(try SumUpRequest(urlString: Self.readmeExample) == Self.readmeRequest)
        #expect(PaymentURLKind.detect(Self.readmeExample) == PaymentURLKind(provider: .sumUp, direction: .request))
    }

    @Test("every parameter goes out under its wire name; + reaches the wire as %2B (sumup §1)")
    func everyParameter() throws {
        let request = SumUpRequest(
            amount: Money(minorUnits: 450, currency: .gbp),
            affiliateKey: "sup_afk_123",
            title: "Flat white + cake",
            callbackSuccess: URL(string: "my-app://ok"),
            callbackFail: URL(string: "my-app://fail"),
            receiptEmail: "jane+receipts@example.com",
            receiptMobilePhone: "+44 7700 900123",
            foreignTransactionID: "order 42/7",
            skipsSuccessScreen: true
        )
        let url = try request.urlString()
        #expect(
            url
                == "sumupmerchant://pay/1.0?amount=4.50&currency=GBP&affiliate-key=sup_afk_123&title=Flat%20white%20%2B%20cake"
                + "&callbacksuccess=my-app%3A%2F%2Fok&callbackfail=my-app%3A%2F%2Ffail&receipt-email=jane%2Breceipts%40example.com"
                + "&receipt-mobilephone=%2B44%207700%20900123&foreign-tx-id=order%2042%2F7&skip-screen-success=true"
        )
        #expect(try SumUpRequest(urlString: url) == request)
    }

    @Test(
        "the amount has exactly two decimals, whatever the currency's exponent (sumup §1)",
        arguments: [
            (Money(minorUnits: 1000, currency: .eur), "10.00"), (Money(minorUnits: 1, currency: .usd), "0.01"),
            (Money(minorUnits: 1000, currency: .jpy), "1000.00"), (Money(minorUnits: 2500, currency: .kwd), "2.50"),
        ]
    )
    func amountFormat(_ money: Money, _ wire: String) throws {
        let request = SumUpRequest(amount: money, affiliateKey: "K")
        #expect(try request.wireAmount() == wire)
        #expect(try SumUpRequest(urlString: try request.urlString()) == request)
    }

    @Test(
        "the amount must be positive and writable with two decimals (sumup §1)",
        arguments: [
            Money(minorUnits: 0, currency: .eur), Money(minorUnits: -5, currency: .eur),
            Money(minorUnits: 2505, currency: .kwd), Money(minorUnits: 1_000_000_000_000, currency: .eur),
        ]
    )
    func amountRules(_ money: Money) {
        let error = #expect(throws: SumUpError.self) { try SumUpRequest(amount: money, affiliateKey: "K").url() }
        #expect(error?.code == .invalidAmount)
    }

    @Test(
        "an affiliate key is required (sumup §1), and never repeated in the error",
        arguments: ["", "has space", "tab\tkey"]
    )
    func affiliateKey(_ key: String) {
        let error = #expect(throws: SumUpError.self) {
            try SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: key).url()
        }
        #expect(error?.code == .missingAffiliateKey)
        #expect(key.isEmpty || error?.message.contains(key) == false)
    }

    @Test(
        "foreign-tx-id: at most 128 printable ASCII characters (sumup §1)",
        arguments: [String(repeating: "a", count: 129), "caf\u{E9}", "a\u{7}b", "tab\tid", "4111111111111111"]
    )
    func foreignTransactionIDLimits(_ id: String) {
        var request = SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K")
        request.foreignTransactionID = id
        let error = #expect(throws: SumUpError.self) { try request.url() }
        #expect(error?.code == .invalidForeignTransactionID)
    }

    @Test("foreign-tx-id may be exactly 128 printable characters, spaces included (sumup §1)")
    func foreignTransactionIDMaximum() throws {
        let printable = String((0x20...0x7E).map { Character(UnicodeScalar($0)) })
        var request = SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K")
        request.foreignTransactionID = String((printable + printable).prefix(128))
        #expect(try SumUpRequest(urlString: try request.urlString()) == request)
    }

    @Test("callback URLs need a scheme that is not a POS app's (SEC-12)")
    func callbackRules() {
        for url in ["done", "sumupmerchant://x", "square-commerce-v1://x"] {
            let request = SumUpRequest(
                amount: Money(minorUnits: 100, currency: .eur),
                affiliateKey: "K",
                callbackFail: URL(string: url)
            )
            let error = #expect(throws: SumUpError.self) { try request.url() }
            #expect(error?.code == .invalidCallbackURL)
            // Beside a valid callbacksuccess, the bad callbackfail is still checked; the same bad URL for both is
            // reported for callbacksuccess, checked first.
            var both = request
            both.callbackSuccess = URL(string: "my-app://ok")
            let failOnly = #expect(throws: SumUpError.self) { try both.url() }
            #expect(failOnly?.code == .invalidCallbackURL && failOnly?.message.contains("callbackfail") == true)
            both.callbackSuccess = URL(string: url)
            let same = #expect(throws: SumUpError.self) { try both.url() }
            #expect(same?.code == .invalidCallbackURL && same?.message.contains("callbacksuccess") == true)
        }
    }

    @Test(
        "decoding is strict (sumup §1)",
        arguments: [
            ("sumupmerchant://pay/2.0?amount=1.00&currency=EUR&affiliate-key=K", "invalid_request"),
            ("sumupmerchant://charge/1.0?amount=1.00&currency=EUR&affiliate-key=K", "invalid_request"),
            ("sumupmerchant://pay/1.0?currency=EUR&affiliate-key=K", "invalid_request"),
            ("sumupmerchant://pay/1.0?amount=1.00&affiliate-key=K", "invalid_request"),
            ("sumupmerchant://pay/1.0?amount=1.00&currency=eur&affiliate-key=K", "invalid_request"),
            ("sumupmerchant://pay/1.0?amount=1.00&currency=EUR", "missing_affiliate_key"),
            ("sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&affiliate-key=K", "invalid_request"),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&callbackSuccess=a%3A%2F%2Fb",
                "invalid_request"
            ),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=1",
                "invalid_request"
            ),
            ("sumupmerchant://pay/1.0?amount=1.50&currency=JPY&affiliate-key=K", "invalid_amount"),
            ("sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&smp-status=success", "invalid_request"),
            // Tags: the helper's reader matches the prefix in lower case (hasPrefix:), so another case is no tag.
            ("sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&SMPPRTAG-a=1", "invalid_request"),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&smpprtag-a=1&smpprtag-a=2",
                "invalid_request"
            ),
            // Every smpprtag- is taken out of a key, as the helper does: both are the tag `a`, given twice.
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&smpprtag-a=1&smpprtag-smpprtag-a=2",
                "invalid_request"
            ),
        ]
    )
    func strictDecoding(_ url: String, _ code: String) {
        let error = #expect(throws: SumUpError.self) { try SumUpRequest(urlString: url) }
        #expect(error?.code.rawValue == code)
    }

    @Test(
        "correlation: the token goes on both callback URLs' query, which SumUp keeps; foreign-tx-id is left as it is (sumup §2)"
    )
    func correlation() throws {
        let correlated = try Self.readmeRequest.correlated(with: "tok_abc")
        // The README's own foreign-tx-id travels unchanged: it is the payment's lookup key, not the token's carrier.
        #expect(correlated.foreignTransactionID == "order-123")
        #expect(correlated.callbackSuccess?.absoluteString == "samplepaymentapp://?tender_token=tok_abc")
        #expect(correlated.callbackFail?.absoluteString == "samplepaymentapp://?tender_token=tok_abc")
        #expect(
            try correlated.url().absoluteString.contains(
                "callbacksuccess=samplepaymentapp%3A%2F%2F%3Ftender_token%3Dtok_abc"
            )
        )
        // A callback URL with a query of its own keeps it, with the token after it; two URLs each get the token.
        var request = Self.readmeRequest
        request.callbackSuccess = URL(string: "my-app://ok?x=1")
        request.callbackFail = URL(string: "my-app://fail")
        let both = try request.correlated(with: "tok_abc")
        #expect(both.callbackSuccess?.absoluteString == "my-app://ok?x=1&tender_token=tok_abc")
        #expect(both.callbackFail?.absoluteString == "my-app://fail?tender_token=tok_abc")
        #expect(try both.callbackEndpoints() == ["my-app://ok", "my-app://fail"], "the endpoints do not change")
        // What SumUp opens on success keeps the token, ahead of the smp- parameters.
        let answer = try SumUpResponse(
            status: .success,
            transactionCode: "TEENSK4W2K",
            foreignTransactionID: "order-123"
        )
        .callbackURLString(callbackURL: both.callbackSuccess?.absoluteString ?? "")
        #expect(try SumUpResponse(callbackURLString: answer).correlationToken == "tok_abc")

        #expect(throws: CorrelationError.self) { try both.correlated(with: "tok") }  // the parameter is there already
        #expect(throws: CorrelationError.self) { try request.correlated(with: String(repeating: "a", count: 129)) }
        #expect(throws: CorrelationError.self) {
            try SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K").correlated(with: "tok")
        }
    }

    @Test("callback endpoints: success then fail, without repeats")
    func endpoints() throws {
        #expect(try Self.readmeRequest.callbackEndpoints() == ["samplepaymentapp://"])
        var request = Self.readmeRequest
        request.callbackSuccess = URL(string: "my-app://ok?x=1")
        request.callbackFail = URL(string: "my-app://fail#f")
        #expect(try request.callbackEndpoints() == ["my-app://ok", "my-app://fail"])
        request.callbackSuccess = nil
        request.callbackFail = nil
        #expect(try request.callbackEndpoints() == [])
    }

    static let randomRequest = Generator<SumUpRequest, Shrink.None<SumUpRequest>>(run: { rng in
        let currency = [Currency.eur, .gbp, .usd, .chf, .jpy].randomElement(using: &rng)!
        let maximum = currency.exponent == 0 ? 9_999_999_999 : 999_999_999_999
        return SumUpRequest(
            amount: Money(minorUnits: Int.random(in: 1...maximum, using: &rng), currency: currency),
            affiliateKey: RandomInput.identifier(&rng, length: 1...40, punctuation: "-_."),
            title: RandomInput.optionalText(&rng),
            callbackSuccess: Bool.random(using: &rng) ? URL(string: RandomInput.callbackURL(&rng)) : nil,
            callbackFail: Bool.random(using: &rng) ? URL(string: RandomInput.callbackURL(&rng)) : nil,
            receiptEmail: RandomInput.optionalText(&rng),
            receiptMobilePhone: RandomInput.optionalText(&rng),
            foreignTransactionID: Bool.random(using: &rng)
                ? RandomInput.identifier(&rng, length: 1...128, punctuation: " +/=&%?#-_.~") : nil,
            skipsSuccessScreen: Bool.random(using: &rng),
            tags: Dictionary(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                    (RandomInput.identifier(&rng, length: 1...12, punctuation: "_. "), RandomInput.text(&rng))
                },
                uniquingKeysWith: { first, _ in first }
            )
        )
    })

    @Test("round trip: decoding a built request gives it back (property, sumup §1)")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.randomRequest) { request in
            let url = try request.urlString()
            #expect(try SumUpRequest(urlString: url) == request)
        }
    }

    @Test("decoding any text never crashes")
    func decodingFuzz() async {
        await propertyCheck(count: 500, input: RandomInput.fuzzText) { text in
            _ = try? SumUpRequest(urlString: "sumupmerchant://pay/1.0?" + text)
            _ = try? SumUpRequest(urlString: text)
        }
    }
}
