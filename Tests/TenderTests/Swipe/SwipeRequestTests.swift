import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("Swipe request (swipe §1)")
struct SwipeRequestTests {
    /// The vendor's sample request, exactly as printed in source document 003.
    static let vendorSample =
        "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=john%40example.com&returnURL=com-companyname-demoapp%3A%2F%2Faction%2F&returnAppName=DemoApp"

    static let sampleRequest = SwipeRequest(
        amount: Money(minorUnits: 1099, currency: .usd),
        returnURL: URL(string: "com-companyname-demoapp://action/"),
        returnAppName: "DemoApp",
        email: "john@example.com"
    )

    @Test("the vendor's sample request is built byte for byte (swipe §1)")
    func vendorSampleIsBuilt() throws {
        #expect(try Self.sampleRequest.urlString() == Self.vendorSample)
        #expect(try Self.sampleRequest.url().absoluteString == Self.vendorSample)
    }

    @Test("the vendor's sample request decodes to its fields (swipe §1)")
    func vendorSampleDecodes() throws {
        let request = try SwipeRequest(urlString: Self.vendorSample)
        #expect(request == Self.sampleRequest)
        #expect(request.amount.decimalString == "10.99")
        #expect(request.returnURL?.absoluteString == "com-companyname-demoapp://action/")
    }

    @Test("every parameter goes out under its wire name, in a fixed order (swipe §1)")
    func everyParameter() throws {
        let request = SwipeRequest(
            amount: Money(minorUnits: 500, currency: .usd),
            returnURL: URL(string: "my-app://done"),
            returnAppName: "My App",
            usesFileMakerResponses: true,
            email: "jane+x@example.com",
            firstName: "Jane",
            lastName: "Doe",
            address: "1 Main St",
            city: "Columbus",
            state: "OH",
            zip: "43004",
            phone: "+1 614 555 0100",
            country: "US",
            invoiceNumber: "INV-42",
            purchaseDescription: "Coffee & cake"
        )
        let url = try request.urlString()
        #expect(
            url
                == "com-appninjas-iswipe://charge/1.0.0/?amount=5.00&email=jane%2Bx%40example.com&firstName=Jane"
                + "&lastName=Doe&address=1%20Main%20St&city=Columbus&state=OH&zip=43004&phone=%2B1%20614%20555%200100"
                + "&country=US&invoiceNumber=INV-42&description=Coffee%20%26%20cake&returnURL=my-app%3A%2F%2Fdone"
                + "&returnAppName=My%20App&fm=1"
        )
        #expect(try SwipeRequest(urlString: url) == request)
    }

    @Test(
        "the amount always has exactly two decimals (swipe §1)",
        arguments: [(5, "0.05"), (500, "5.00"), (1099, "10.99")]
    )
    func amountFormat(_ minorUnits: Int, _ wire: String) throws {
        let request = SwipeRequest(amount: Money(minorUnits: minorUnits, currency: .usd))
        #expect(try request.wireAmount() == wire)
        #expect(try request.urlString() == "com-appninjas-iswipe://charge/1.0.0/?amount=\(wire)")
    }

    @Test("the amount must be positive and fit the format (swipe §1)", arguments: [0, -100, 1_000_000_000_000])
    func amountBounds(_ minorUnits: Int) {
        let error = #expect(throws: SwipeError.self) {
            try SwipeRequest(amount: Money(minorUnits: minorUnits, currency: .usd)).url()
        }
        #expect(error?.code == .invalidAmount)
    }

    @Test("a currency without two decimal places cannot be sent (swipe §1: two decimals, no currency)")
    func currencyExponent() {
        for currency in [Currency.jpy, .kwd] {
            let error = #expect(throws: SwipeError.self) {
                try SwipeRequest(amount: Money(minorUnits: 1000, currency: currency)).url()
            }
            #expect(error?.code == .unsupportedCurrency)
            #expect(error?.message.contains(currency.code) == true)
        }
        #expect(throws: SwipeError.self) {
            try SwipeRequest(urlString: "com-appninjas-iswipe://charge/1.0.0/?amount=1.00", currency: .jpy)
        }
    }

    @Test("returnAppName is required whenever returnURL is sent (swipe §1)", arguments: [nil, ""] as [String?])
    func returnAppNameRequired(_ name: String?) {
        let request = SwipeRequest(
            amount: Money(minorUnits: 100, currency: .usd),
            returnURL: URL(string: "my-app://done"),
            returnAppName: name
        )
        let error = #expect(throws: SwipeError.self) { try request.url() }
        #expect(error?.code == .missingReturnAppName)
    }

    @Test(
        "returnURL needs a scheme that is not a POS app's own (SEC-12)",
        arguments: ["done", "com-appninjas-iswipe://x", "softpos://response", "sumupmerchant://x"]
    )
    func returnURLRules(_ text: String) throws {
        let request = SwipeRequest(
            amount: Money(minorUnits: 100, currency: .usd),
            returnURL: URL(string: text),
            returnAppName: "App"
        )
        let error = #expect(throws: SwipeError.self) { try request.url() }
        #expect(error?.code == .invalidReturnURL)
        #expect(throws: SwipeError.self) { try request.callbackEndpoints() }
    }

    @Test("values are percent-encoded with the unreserved set only: never + for space (swipe §1)")
    func encoding() throws {
        var request = SwipeRequest(amount: Money(minorUnits: 100, currency: .usd))
        request.email = "a+b c@x.io"
        request.purchaseDescription = "Crème brûlée ~ 2 × €3"
        let url = try request.urlString()
        #expect(url.contains("email=a%2Bb%20c%40x.io"))
        #expect(url.contains("description=Cr%C3%A8me%20br%C3%BBl%C3%A9e%20~%202%20%C3%97%20%E2%82%AC3"))
        #expect(!url.dropFirst("com-appninjas-iswipe://charge/1.0.0/?".count).contains("+"))
    }

    @Test("decoding accepts returnUrl as well as returnURL, but not both (swipe §1)")
    func returnURLSpellings() throws {
        let lower = "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&returnUrl=my-app%3A%2F%2Fdone&returnAppName=A"
        #expect(try SwipeRequest(urlString: lower).returnURL?.absoluteString == "my-app://done")
        let both = lower + "&returnURL=my-app%3A%2F%2Fdone"
        let error = #expect(throws: SwipeError.self) { try SwipeRequest(urlString: both) }
        #expect(error?.code == .invalidRequest)
    }

    @Test(
        "decoding is strict (swipe §1)",
        arguments: [
            ("com-appninjas-iswipe://charge/1.0.0?amount=1.00", "invalid_request"),  // no final slash
            ("com-appninjas-iswipe://pay/1.0.0/?amount=1.00", "invalid_request"),
            ("my-app://charge/1.0.0/?amount=1.00", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?email=a%40b.c", "invalid_request"),  // no amount
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&amount=2.00", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&currency=USD", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&Email=a", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&fm=yes", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&email", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&email=%ZZ", "invalid_request"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.0", "invalid_amount"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=-1.00", "invalid_amount"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=0.00", "invalid_amount"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=1.00&returnURL=my-app%3A%2F%2Fx", "missing_return_app_name"),
            (
                "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&returnURL=softpos%3A%2F%2Fx&returnAppName=A",
                "invalid_return_url"
            ),
        ]
    )
    func strictDecoding(_ url: String, _ code: String) {
        let error = #expect(throws: SwipeError.self) { try SwipeRequest(urlString: url) }
        #expect(error?.code.rawValue == code)
    }

    @Test("an unknown parameter is named with a hint, and a card number in it is masked")
    func unknownParameterMessages() {
        let hint = #expect(throws: SwipeError.self) {
            try SwipeRequest(urlString: "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&return_url=x")
        }
        #expect(hint?.message.contains("returnURL") == true)
        let card = #expect(throws: SwipeError.self) {
            try SwipeRequest(urlString: "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&4111111111111111=1")
        }
        #expect(card?.message.contains("4111111111111111") == false)
    }

    @Test("fm=1 asks for FileMaker answers; fm=0 is the default (swipe §3)")
    func fileMaker() throws {
        var request = SwipeRequest(amount: Money(minorUnits: 100, currency: .usd))
        request.usesFileMakerResponses = true
        #expect(try request.urlString().hasSuffix("&fm=1"))
        let decoded = try SwipeRequest(urlString: "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&fm=0")
        #expect(decoded.usesFileMakerResponses == false)
    }

    @Test("correlation: the token goes on returnURL's query, which Swipe keeps (swipe §2)")
    func correlation() throws {
        let correlated = try Self.sampleRequest.correlated(with: "tok_ABC-123")
        #expect(correlated.returnURL?.absoluteString == "com-companyname-demoapp://action/?tender_token=tok_ABC-123")
        var withQuery = Self.sampleRequest
        withQuery.returnURL = URL(string: "my-app://done?order=7#top")
        #expect(
            try withQuery.correlated(with: "t1").returnURL?.absoluteString
                == "my-app://done?order=7&tender_token=t1#top"
        )
        #expect(try correlated.callbackEndpoints() == ["com-companyname-demoapp://action/"])
        #expect(try SwipeRequest(urlString: try correlated.urlString()) == correlated)
    }

    @Test("correlation throws without returnURL, with the parameter already there, or with a bad token")
    func correlationErrors() throws {
        #expect(throws: CorrelationError.self) {
            try SwipeRequest(amount: Money(minorUnits: 100, currency: .usd)).correlated(with: "t")
        }
        let once = try Self.sampleRequest.correlated(with: "t")
        #expect(throws: CorrelationError.self) { try once.correlated(with: "u") }
        for token in ["", "has space", String(repeating: "a", count: 129), "4111111111111111", "é"] {
            #expect(throws: CorrelationError.self) { try Self.sampleRequest.correlated(with: token) }
        }
        #expect(try SwipeRequest(amount: Money(minorUnits: 100, currency: .usd)).callbackEndpoints() == [])
    }

    static let randomRequest = Generator<SwipeRequest, Shrink.None<SwipeRequest>>(run: { rng in
        let hasReturn = Bool.random(using: &rng)
        return SwipeRequest(
            amount: Money(
                minorUnits: Int.random(in: 1...999_999_999_999, using: &rng),
                currency: [Currency.usd, .eur, .cad, .gbp].randomElement(using: &rng)!
            ),
            returnURL: hasReturn ? URL(string: RandomInput.callbackURL(&rng)) : nil,
            returnAppName: hasReturn ? RandomInput.text(&rng) : RandomInput.optionalText(&rng),
            usesFileMakerResponses: Bool.random(using: &rng),
            email: RandomInput.optionalText(&rng),
            firstName: RandomInput.optionalText(&rng),
            lastName: RandomInput.optionalText(&rng),
            address: RandomInput.optionalText(&rng),
            city: RandomInput.optionalText(&rng),
            state: RandomInput.optionalText(&rng),
            zip: RandomInput.optionalText(&rng),
            phone: RandomInput.optionalText(&rng),
            country: RandomInput.optionalText(&rng),
            invoiceNumber: RandomInput.optionalText(&rng),
            purchaseDescription: RandomInput.optionalText(&rng)
        )
    })

    @Test("round trip: decoding a built request gives it back (property, swipe §1)")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.randomRequest) { request in
            let url = try request.urlString()
            #expect(try SwipeRequest(urlString: url, currency: request.amount.currency) == request)
            #expect(try SwipeRequest(url: try request.url(), currency: request.amount.currency) == request)
        }
    }

    @Test("decoding any text never crashes")
    func decodingFuzz() async {
        await propertyCheck(count: 500, input: RandomInput.fuzzText) { text in
            _ = try? SwipeRequest(urlString: "com-appninjas-iswipe://charge/1.0.0/?" + text)
            _ = try? SwipeRequest(urlString: text)
        }
    }
}
