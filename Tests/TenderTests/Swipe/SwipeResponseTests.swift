import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("Swipe callback (swipe §2, §3)")
struct SwipeResponseTests {
    /// The vendor's sample response, exactly as printed in source document 003.
    static let vendorSample =
        "com-companyname-demoapp://action/?ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa"
    static let base = "my-app://swipe-done?"

    func parse(_ query: String) throws -> SwipeResponse {
        try SwipeResponse(callbackURLString: Self.base + query)
    }

    func expectError(_ query: String, _ code: SwipeError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: SwipeError.self, sourceLocation: sourceLocation) { try parse(query) }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test("the vendor's sample response parses, and is rebuilt byte for byte (swipe §2)")
    func vendorSample() throws {
        let response = try SwipeResponse(callbackURLString: Self.vendorSample)
        #expect(response.responseType == .approved)
        #expect(response.amount == "10.99")
        #expect(response.redactedCardNumber == "XXXXXXXXXXXX1111")
        #expect(response.cardLastFour == "1111")
        #expect(response.cardType == .visa)
        #expect(response.currency == nil)
        #expect(response.isFileMakerFormat == false)
        #expect(response.correlationToken == nil)
        #expect(try response.money(in: .usd) == Money(minorUnits: 1099, currency: .usd))
        #expect(try response.callbackURLString(returnURL: "com-companyname-demoapp://action/") == Self.vendorSample)

        let outcome = response.outcome
        #expect(outcome.status == .approved)
        #expect(outcome.provider == .swipe)
        #expect(outcome.amount == nil)  // no currency on the wire
        #expect(outcome.errorCode == nil)
        #expect(outcome.assurance == .reportedByPOSApp)
        #expect(outcome.details == .swipe(response))
        #expect(response.outcome(assumingCurrency: .usd).amount == Money(minorUnits: 1099, currency: .usd))
    }

    @Test(
        "response types map onto the outcome model (swipe §2)",
        arguments: [
            ("cancelled", PaymentOutcome.Status.cancelled), ("declined", .declined), ("error", .failed),
        ]
    )
    func responseTypes(_ wire: String, _ status: PaymentOutcome.Status) throws {
        let response = try parse("ifcc_responseType=\(wire)&ifcc_transactionId=T-1")
        #expect(response.outcome.status == status)
        #expect(response.outcome.errorCode == wire)
        #expect(response.outcome.transactionID == "T-1")
        #expect(response.outcome.amount == nil)
    }

    @Test(
        "ifcc_responseType comes from an allow-list (swipe §2, SEC-6)",
        arguments: ["success", "APPROVED", "Approved", "", "approved ", "ok"]
    )
    func responseTypeAllowList(_ wire: String) {
        expectError("ifcc_responseType=\(wire)&ifcc_amount=1.00&ifcc_redactedCardNumber=XXXX1111", .invalidResponseType)
    }

    @Test("a callback without ifcc_responseType is refused (swipe §2)")
    func missingResponseType() {
        expectError("ifcc_amount=1.00", .invalidResponseType)
        expectError("", .invalidResponseType)
    }

    @Test(
        "a typed result parameter whose value is not of its type is refused, never read as absent (issue 32; swipe §2)",
        arguments: [
            "ifcc_amount=ten", "ifcc_amount=", "ifcc_amount", "ifcc_amount=10", "ifcc_currency=840",
            "ifcc_currency=", "ifcc_cardType=4", "ifcc_cardType=", "ifcc_redactedCardNumber=", "ifcc_taxAmount=x",
            "ifcc_taxAmount=", "ifcc_taxRate=high", "ifcc_taxRate=", "ifcc_tipAmount=1", "ifcc_transactionId=",
            "ifcc_transactionId",
        ]
    )
    func wrongTypeIsMalformed(_ field: String) {
        // Each field replaces its own in an approval that is otherwise whole, so that it alone is wrong.
        let name = String(field.prefix { $0 != "=" })
        var items = [
            "ifcc_responseType=approved", "ifcc_amount=10.99", "ifcc_redactedCardNumber=XXXX1111",
            "ifcc_cardType=Visa",
        ]
        items.removeAll { $0.hasPrefix(name + "=") }
        let error = #expect(throws: SwipeError.self) { try parse((items + [field]).joined(separator: "&")) }
        #expect(
            [.invalidField, .unmaskedCardNumber].contains(error?.code ?? .invalidRequest),
            "\(field): \(String(describing: error))"
        )
    }

    @Test("approved needs amount and card number (swipe §2)")
    func approvedNeedsAmountAndCard() {
        expectError("ifcc_responseType=approved&ifcc_redactedCardNumber=XXXX1111", .missingApprovalField)
        expectError("ifcc_responseType=approved&ifcc_amount=1.00", .missingApprovalField)
        expectError("ifcc_responseType=approved&ifcc_amount=1.00&ifcc_cardType=Visa", .missingApprovalField)
    }

    @Test(
        "a non-approved callback carries no amount, currency or card data (swipe §2)",
        arguments: [
            "ifcc_amount=1.00", "ifcc_currency=USD", "ifcc_cardType=Visa", "ifcc_redactedCardNumber=XXXX1111",
        ]
    )
    func nonApprovedCarriesNoCardData(_ field: String) {
        for type in ["declined", "cancelled", "error"] {
            expectError("ifcc_responseType=\(type)&\(field)", .unexpectedField)
        }
    }

    @Test(
        "a card number that is not masked is refused and never echoed (swipe §2, SEC-9)",
        arguments: [
            "4111111111111111", "411111XXXXXX1111", "XXXXXXXXXXXX111", "XXXXXXXXXXXX11111", "xxxxxxxxxxxx1111",
            "************1111", "1111", "XXXX 1111", "XXXXXXXXXXXXXXXXXX1111", "XXXX-1111", "X4111111111111111",
            "XXXX111a",
        ]
    )
    func unmaskedCardRefused(_ card: String) {
        for type in ["approved", "declined"] {
            let query =
                "ifcc_responseType=\(type)&ifcc_amount=1.00&ifcc_redactedCardNumber="
                + PercentEncoding.encode(card)
            let error = #expect(throws: SwipeError.self) { try parse(query) }
            #expect(error?.code == .unmaskedCardNumber)
            #expect(error?.message.contains(card) == false)
            #expect(error.map { CardNumberScreen.containsCardNumber($0.message) } == false)
            #expect(error.map { CardNumberScreen.containsCardNumber(String(describing: $0)) } == false)
        }
    }

    @Test("masked card numbers of every card length are accepted (swipe §2)", arguments: [1, 9, 12, 15])
    func maskedCardAccepted(_ xs: Int) throws {
        let card = String(repeating: "X", count: xs) + "0005"
        let response = try parse("ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=\(card)")
        #expect(response.redactedCardNumber == card)
        #expect(response.cardLastFour == "0005")
    }

    @Test("a card number hidden in the transaction id is refused too (SEC-9)")
    func cardInTransactionID() {
        let error = #expect(throws: SwipeError.self) {
            try parse("ifcc_responseType=declined&ifcc_transactionId=ref-4111%201111%201111%201111")
        }
        #expect(error?.code == .unmaskedCardNumber)
        #expect(error?.message.contains("1111") == false)
    }

    @Test("each result parameter appears once, with or without FileMaker's $ (SEC-6)")
    func duplicates() {
        expectError(
            "ifcc_responseType=approved&ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=X1111",
            .duplicateParameter
        )
        expectError(
            "ifcc_responseType=approved&ifcc_amount=1.00&ifcc_amount=2.00&ifcc_redactedCardNumber=X1111",
            .duplicateParameter
        )
        expectError("ifcc_responseType=declined&$ifcc_responseType=approved", .duplicateParameter)
        expectError("ifcc_responseType=declined&%24ifcc_responseType=declined", .duplicateParameter)
    }

    @Test(
        "FileMaker answers: $ before the name, literal or %24, or before the value (swipe §3)",
        arguments: [
            "$ifcc_responseType=approved&$ifcc_amount=10.99&$ifcc_redactedCardNumber=XXXXXXXXXXXX1111&$ifcc_cardType=Visa",
            "%24ifcc_responseType=approved&%24ifcc_amount=10.99&%24ifcc_redactedCardNumber=XXXXXXXXXXXX1111&%24ifcc_cardType=Visa",
            "ifcc_responseType=$approved&ifcc_amount=$10.99&ifcc_redactedCardNumber=$XXXXXXXXXXXX1111&ifcc_cardType=$Visa",
            "ifcc_responseType=%24approved&ifcc_amount=%2410.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa",
        ]
    )
    func fileMaker(_ query: String) throws {
        let response = try parse(query)
        #expect(response.isFileMakerFormat)
        #expect(response.responseType == .approved)
        #expect(response.amount == "10.99")
        #expect(response.redactedCardNumber == "XXXXXXXXXXXX1111")
        #expect(response.cardType == .visa)
    }

    @Test("the vendor's FileMaker example uses 'success', which is not a response type (swipe §3)")
    func vendorFileMakerExample() throws {
        let error = #expect(throws: SwipeError.self) { try parse("$ifcc_responseType=success") }
        #expect(error?.code == .invalidResponseType)
        let detected = try #require(PaymentURLKind.detect(Self.base + "$ifcc_responseType=success"))
        #expect(detected == PaymentURLKind(provider: .swipe, direction: .response))
    }

    @Test("a $ on a value is kept outside FileMaker form, so it fails the field's pattern (swipe §3)")
    func dollarOutsideFileMaker() {
        expectError("ifcc_responseType=approved&ifcc_amount=$10.99&ifcc_redactedCardNumber=X1111", .invalidField)
    }

    @Test(
        "field formats (swipe §2)",
        arguments: [
            "ifcc_amount=10.9", "ifcc_amount=10", "ifcc_amount=-1.00", "ifcc_amount=1%2C000.00",
            "ifcc_amount=12345678901.00",
            "ifcc_amount=1.00&ifcc_currency=XYZ", "ifcc_amount=1.00&ifcc_currency=usd",
            "ifcc_amount=10.50&ifcc_currency=JPY",
            "ifcc_amount=1.00&ifcc_cardType=Vi5a", "ifcc_amount=1.00&ifcc_cardType=",
            "ifcc_amount=1.00&ifcc_taxAmount=1", "ifcc_amount=1.00&ifcc_tipAmount=x",
            "ifcc_amount=1.00&ifcc_taxRate=8.",
            "ifcc_amount=1.00&ifcc_taxRate=1234", "ifcc_amount=1.00&ifcc_transactionId=",
            "ifcc_amount=1.00&ifcc_transactionId=a%0Ab", "ifcc_amount=1.00&ifcc_cardType",
        ]
    )
    func fieldFormats(_ fields: String) {
        expectError("ifcc_responseType=approved&ifcc_redactedCardNumber=XXXX1111&" + fields, .invalidField)
    }

    @Test("the transaction id may be up to 255 characters of untrusted text (swipe §2)")
    func transactionIDBounds() throws {
        let long = String(repeating: "é", count: 255)
        let response = try parse("ifcc_responseType=error&ifcc_transactionId=" + PercentEncoding.encode(long))
        #expect(response.transactionID == long)
        expectError("ifcc_responseType=error&ifcc_transactionId=" + PercentEncoding.encode(long + "e"), .invalidField)
    }

    @Test("an echoed currency makes the amount Money; otherwise the account currency applies (swipe §2)")
    func currencyEcho() throws {
        let euro = try parse(
            "ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=X1111&ifcc_currency=EUR"
        )
        #expect(euro.currency == .eur)
        #expect(euro.outcome.amount == Money(minorUnits: 1099, currency: .eur))
        #expect(euro.outcome(assumingCurrency: .usd).amount == Money(minorUnits: 1099, currency: .eur))
        let yen = try parse(
            "ifcc_responseType=approved&ifcc_amount=1000.00&ifcc_redactedCardNumber=X1111&ifcc_currency=JPY"
        )
        #expect(yen.outcome.amount == Money(minorUnits: 1000, currency: .jpy))
        let plain = try parse("ifcc_responseType=approved&ifcc_amount=10.50&ifcc_redactedCardNumber=X1111")
        #expect(try plain.money(in: .cad) == Money(minorUnits: 1050, currency: .cad))
        #expect(throws: SwipeError.self) { try plain.money(in: .jpy) }
        #expect(plain.outcome(assumingCurrency: .jpy).amount == nil)
    }

    @Test("Inner Fence extensions are read: transaction id, tax and tip (swipe §2)")
    func extensions() throws {
        let response = try parse(
            "ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXX4242&ifcc_cardType=MasterCard"
                + "&ifcc_transactionId=40012345%2Fab&ifcc_taxAmount=0.85&ifcc_taxRate=8.5&ifcc_tipAmount=2.00"
                + "&ifcc_somethingNew=1"
        )
        #expect(response.transactionID == "40012345/ab")
        #expect(response.taxAmount == "0.85")
        #expect(response.taxRate == "8.5")
        #expect(response.tipAmount == "2.00")
        #expect(response.cardType == .masterCard)
        #expect(response.cardType?.isDocumented == true)
        #expect(response.outcome.transactionID == "40012345/ab")
    }

    @Test("the caller's own query parameters come back untouched and carry the token (swipe §2)")
    func correlationToken() throws {
        let response = try SwipeResponse(
            callbackURLString: "my-app://done?order=7&tender_token=tok_1&ifcc_responseType=cancelled"
        )
        #expect(response.correlationToken == "tok_1")
        #expect(response.outcome.status == .cancelled)
    }

    @Test("the token appears exactly once and looks like a token (SEC-6)")
    func correlationTokenStrict() {
        expectError("tender_token=a&tender_token=a&ifcc_responseType=cancelled", .invalidCorrelationToken)
        expectError("tender_token=&ifcc_responseType=cancelled", .invalidCorrelationToken)
        expectError("tender_token=4111111111111111&ifcc_responseType=cancelled", .invalidCorrelationToken)
    }

    @Test("unreadable URLs and oversized input are refused (SEC-6)")
    func unreadable() {
        expectError("ifcc_responseType=approved%ZZ", .unreadableCallback)
        expectError("ifcc_responseType=%FF", .unreadableCallback)
        let error = #expect(throws: SwipeError.self) {
            try SwipeResponse(callbackURLString: "no scheme?ifcc_responseType=cancelled")
        }
        #expect(error?.code == .unreadableCallback)
        let huge = Self.base + "ifcc_responseType=cancelled&pad=" + String(repeating: "a", count: 20_000)
        #expect(throws: SwipeError.self) { try SwipeResponse(callbackURLString: huge) }
    }

    static let randomResponse = Generator<SwipeResponse, Shrink.None<SwipeResponse>>(run: { rng in
        let type = SwipeResponse.ResponseType.allCases.randomElement(using: &rng)!
        let approved = type == .approved
        func amount(_ rng: inout any SeededRandomNumberGenerator) -> String {
            TwoDecimalAmount.text(hundredths: Int.random(in: 0...999_999_999_999, using: &rng))
        }
        return SwipeResponse(
            responseType: type,
            amount: approved ? amount(&rng) : nil,
            currency: approved && Bool.random(using: &rng) ? [.usd, .eur, .gbp].randomElement(using: &rng)! : nil,
            cardType: approved ? SwipeCardType.documented.randomElement(using: &rng)! : nil,
            redactedCardNumber: approved
                ? String(repeating: "X", count: Int.random(in: 1...15, using: &rng))
                    + String(format: "%04d", Int.random(in: 0...9999, using: &rng)) : nil,
            transactionID: Bool.random(using: &rng) ? RandomInput.text(&rng) : nil,
            taxAmount: Bool.random(using: &rng) ? amount(&rng) : nil,
            taxRate: Bool.random(using: &rng) ? "\(Int.random(in: 0...99, using: &rng)).25" : nil,
            tipAmount: Bool.random(using: &rng) ? amount(&rng) : nil,
            isFileMakerFormat: Bool.random(using: &rng),
            correlationToken: Bool.random(using: &rng)
                ? RandomInput.identifier(&rng, length: 1...40, punctuation: "-_") : nil
        )
    })

    @Test("round trip: a callback built for a response parses back to it (property, swipe §2, §3)")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.randomResponse) { response in
            var returnURL = "my-app://swipe-done"
            if let token = response.correlationToken { returnURL += "?tender_token=" + PercentEncoding.encode(token) }
            let url = try response.callbackURLString(returnURL: returnURL)
            #expect(try SwipeResponse(callbackURLString: url) == response)
            #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: .swipe, direction: .response))
        }
    }

    @Test("the parser survives random Swipe-shaped queries and keeps the §2 rules (SEC-6, SEC-9)")
    func structuredFuzz() async {
        let fields: [(name: String, values: [String])] = [
            ("ifcc_responseType", ["approved", "approved", "declined", "cancelled", "error", "success"]),
            ("ifcc_amount", ["10.99", "0.00", "9999999999.99", "1.0"]),
            ("ifcc_redactedCardNumber", ["XXXXXXXXXXXX1111", "X0000", "XXXX 1111"]),
            ("ifcc_cardType", ["Visa", "Unknown", "Amex 2"]),
            ("ifcc_currency", ["USD", "JPY", "usd"]),
            ("ifcc_transactionId", ["T-1", "ref 4111 1111 1111 1111"]),
            ("ifcc_taxAmount", ["0.85", "1"]), ("ifcc_taxRate", ["8.5", "8."]), ("ifcc_tipAmount", ["2.00"]),
            ("tender_token", ["tok_1", "a b"]), ("ifcc_other", ["x"]),
        ]
        // Valid answers with one change: a parameter dropped, repeated, replaced or added.
        let nearValid = Generator<String, Shrink.None<String>>(run: { rng in
            let response = Self.randomResponse.run(using: &rng)
            let url = (try? response.callbackURLString(returnURL: "my-app://swipe-done")) ?? ""
            var items =
                url.split(separator: "?", maxSplits: 1).last.map { $0.split(separator: "&").map(String.init) } ?? []
            let field = fields.randomElement(using: &rng)!
            let added = field.name + "=" + PercentEncoding.encode(field.values.randomElement(using: &rng)!)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where !items.isEmpty: items.remove(at: Int.random(in: 0..<items.count, using: &rng))
            case 1 where !items.isEmpty: items.append(items.randomElement(using: &rng)!)
            case 2 where !items.isEmpty: items[Int.random(in: 0..<items.count, using: &rng)] = added
            default: items.append(added)
            }
            return items.joined(separator: "&")
        })
        await propertyCheck(count: 3000, input: RandomInput.query(fields)) { query in
            Self.checkSwipeRules(query)
        }
        await propertyCheck(count: 3000, input: nearValid) { query in
            Self.checkSwipeRules(query)
        }
    }

    /// Parses a query; if it is accepted, what was kept must obey swipe §2 and SEC-9.
    static func checkSwipeRules(_ query: String) {
        guard let response = try? SwipeResponse(callbackURLString: Self.base + query) else { return }
        #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
        if response.responseType == .approved {
            #expect(response.amount != nil && response.redactedCardNumber != nil)
        } else {
            #expect(response.amount == nil && response.currency == nil)
            #expect(response.cardType == nil && response.redactedCardNumber == nil)
        }
        #expect(response.redactedCardNumber.map(SwipeResponse.isMaskedCardNumber) ?? true)
        _ = response.outcome(assumingCurrency: .usd)
    }

    @Test("the parser survives arbitrary input, and what it keeps holds no card number (SEC-6, SEC-9)")
    func fuzz() async {
        await propertyCheck(count: 1000, input: RandomInput.fuzzText) { text in
            for candidate in [text, Self.base + text, Self.base + "ifcc_responseType=approved&" + text] {
                if let response = try? SwipeResponse(callbackURLString: candidate) {
                    #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
                }
            }
        }
        await propertyCheck(count: 1000, input: RandomInput.mutating([Self.vendorSample])) { text in
            if let response = try? SwipeResponse(callbackURLString: text) {
                #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
            }
        }
    }
}
