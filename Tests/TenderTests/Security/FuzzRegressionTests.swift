import Foundation
import Testing

@testable import Tender

/// Inputs the fuzz targets (Fuzz/README.md) found breaking an invariant, kept as tests once fixed. Each input is
/// also in `Fuzz/Regressions/<target>/`, which `scripts/fuzz` replays before it fuzzes the target.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The `square-callback` target's input, exactly: its percent-escapes decode to an `error_code` of
    /// `UN41111111111111115FERROR_INVALID_CODE`, which holds the test card number 4111 1111 1111 1111.
    static let squareCallbackInput =
        "my-app://callback?data=%7B%22%73%74%61%74%75%73%22:%22%65%72%72%6F%72%22,%22%65%72%72%6F%72%5F%63%6F%64%65"
        + "%22:%22%55%4E41111111111111115F%45%52%52%4F%52%5F%49%4E%56%41%4C%49%44%5F%43%4F%44%45%22,%22%73%74%61%74"
        + "%65%22:%22%50%41%53%53%5F%4D%45%5F%42%41%43%4B%22%7D"

    @Test("a Square error_code holding a card number is refused, not recorded as the outcome (SEC-9; square-callback)")
    func squareErrorCodeWithCardNumber() {
        let error = #expect(throws: SquareError.self) {
            try SquareResponse(callbackURLString: Self.squareCallbackInput)
        }
        #expect(error?.code == .missingOrInvalidResponseErrorCode)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""))
    }

    @Test(
        "a Square transaction_id or client_transaction_id holding a card number is refused (SEC-9; square-callback)",
        arguments: ["transaction_id", "client_transaction_id"]
    )
    func squareIdentifierWithCardNumber(_ key: String) throws {
        let url = "my-app://cb?data=" + PercentEncoding.encode(#"{"status":"ok","\#(key)":"TX-4111111111111111"}"#)
        let error = #expect(throws: SquareError.self) { try SquareResponse(callbackURLString: url) }
        #expect(error?.code == .missingOrInvalidResponseJSONData)
        // The same shapes without a card number are still read.
        let fine = "my-app://cb?data=" + PercentEncoding.encode(#"{"status":"ok","\#(key)":"TX-4111111111"}"#)
        let outcome = try SquareResponse(callbackURLString: fine).outcome
        #expect((key == "transaction_id" ? outcome.transactionID : outcome.clientTransactionID) == "TX-4111111111")
    }

    @Test(
        "a Square approval whose transaction_id is a number is refused, not read without its ID (issue 32; square-callback)"
    )
    func squareTransactionIDNumber() {
        // The target's input (Fuzz/Regressions/square-callback/transaction-id-number): the issue's forged approval.
        let url = "my-app://cb?data=%7B%22status%22%3A%22ok%22%2C%22transaction_id%22%3A123%7D"
        let error = #expect(throws: SquareError.self) { try SquareResponse(callbackURLString: url) }
        #expect(error?.code == .missingOrInvalidResponseJSONData)
    }

    @Test(
        "decoding a Square request never quotes a card number in its error (SEC-9; square-request)",
        arguments: [
            // The square-request target's input: a scheme of 2s, Luhn-valid, was quoted in the message.
            "O-22222222222222222222222-y-yy:\u{FFFD}y",
            "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(#"{"4111111111111111":1}"#),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"USD","4111111111111111":0}}"#
                ),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"4111111111111111"}}"#
                ),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"USD"},"callback_url":"a://b","#
                        + #""options":{"4111111111111111":true}}"#
                ),
        ]
    )
    func squareRequestErrorsMaskCardNumbers(_ url: String) {
        let error = #expect(throws: SquareError.self) { try SquareRequest(urlString: url) }
        #expect(error?.code == .invalidRequestData)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""), "\(error?.message ?? "")")
    }

    @Test(
        "a callback_url with '//' before the marker decodes to a request that sends it again (square-request; square §1.3)"
    )
    func squareRequestDoubleSlashBeforeMarker() throws {
        // The target's input (Fuzz/Regressions/square-request/double-slash-before-marker), its data decoded.
        let data =
            #"{"sdk_version":"3.5.0","version":"1.3","client_id":"8M4Qn6MyR4BZmy-app://@@@@@@@@@@@@@@@@@@@@@@@@@@"#
            + #"DeS0c41L3g","amount_money":{"amount":100,"currency_code":"USD"},"#
            + #""callback_url":"my-app:\/\/perform-callba\/\/square_request","options":{"supported_tender_types":[],"#
            + #""clear_default_fees":false,"auto_return":false,"disable_cnp":false,"skip_receipt":false}}"#
        let request = try SquareRequest(
            urlString: "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(data)
        )
        #expect(request.callbackURL.absoluteString == "my-app://perform-callba//")
        #expect(try request.wireCallbackURL() == "my-app://perform-callba//square_request")
        #expect(try SquareRequest(urlString: try request.urlString()) == request)
    }

    @Test(
        "a callback_url with user information and an empty host keeps them through url() and decoding (square-request; square §1.3)"
    )
    func squareRequestMarkerBesideUserInformation() throws {
        // The target's input (Fuzz/Regressions/square-request/marker-beside-user-information), its data decoded,
        // with the run of U+FFFD in the query shortened to `hello=world`. The marker used to replace the whole
        // authority when the host was empty, so `request@` was lost on the way back.
        let data =
            #"{"sdk_version":"3.5.0","version":"1.3","client_id":"8M4Qn6MyR4BZDeS0alse1L3g","#
            + #""amount_money":{"amount":100,"currency_code":"USD"},"#
            + #""callback_url":"my-app:\/\/request@\/square_request?hello=world","options":{"#
            + #""supported_tender_types":["CREDIT_CARD"],"clear_default_fees":false,"auto_return":false,"#
            + #""disable_cnp":false,"skip_receipt":false}}"#
        let request = try SquareRequest(
            urlString: "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(data)
        )
        #expect(request.callbackURL.absoluteString == "my-app://request@?hello=world")
        // As NSURLComponents sets the host in the SDK: the user information stays before it.
        #expect(try request.wireCallbackURL() == "my-app://request@square_request?hello=world")
        #expect(try SquareRequest(urlString: try request.urlString()) == request)
        #expect(try SquareCallbackMarker.encode("my-app://:8080") == "my-app://square_request:8080")
        #expect(SquareCallbackMarker.decode("my-app://me@square_request:1?x") == "my-app://me@:1?x")
    }

    /// The `softpos-request` target's input: a payload whose amount, 202222222222222220 cents, holds a Luhn-valid
    /// run of 16 digits, which the refusal quoted.
    static let softPOSRequestInput =
        "softpos://softpos/transaction?payload=%7B%22amount%22%3A202222222222222220%2C%22type%22%3A%22sale%22%2C"
        + "%22currency%22%3A%22EUR%22%2C%22responseUrl%22%3A%22[testapp%3A%2F%2Fresponse%22%7D"

    @Test("an amount refused for its size is quoted masked: its digits can hold a card number (SEC-9; softpos-request)")
    func amountWithCardNumberDigits() throws {
        let softPOS = #expect(throws: SoftPOSError.self) { try SoftPOSRequest(urlString: Self.softPOSRequestInput) }
        #expect(softPOS?.code == .invalidAmount)
        // Written with two decimals, 4111111111111111.00: the test card's digits before the point.
        let card = 411_111_111_111_111_100
        let messages: [String?] = [
            softPOS?.message,
            (#expect(throws: SwipeError.self) {
                try SwipeRequest(amount: Money(minorUnits: card, currency: .usd)).urlString()
            })?.message,
            (#expect(throws: SumUpError.self) {
                try SumUpRequest(amount: Money(minorUnits: card, currency: .eur), affiliateKey: "K").urlString()
            })?.message,
            (#expect(throws: SquareError.self) {
                try SquareRequest(
                    applicationID: "sq0idp-app",
                    callbackURL: try #require(URL(string: "my-app://done")),
                    amount: Money(minorUnits: -card, currency: .usd)
                ).urlString()
            })?.message,
        ]
        for message in messages {
            let text = try #require(message)
            #expect(text.contains("amount"), "\(text)")
            #expect(!CardNumberScreen.containsCardNumber(text), "\(text)")
        }
    }

    @Test("an unknown currency code is quoted masked and cut short (SEC-9)")
    func currencyCodeMasked() {
        let error = #expect(throws: MoneyError.self) {
            try Currency(code: "4111111111111111" + String(repeating: "Z", count: 90))
        }
        #expect(error?.code == .unknownCurrency)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""))
        #expect((error?.message.count ?? .max) < 160)
    }
}

/// The `softpos-request` target decoded a request whose `responseUrl` held thousands of U+FFFD characters: the
/// URL it came from was under 64 KiB, but built again (each character percent-encoded as nine bytes) it was
/// over, so Tender built a URL it would itself refuse to read. Every builder now refuses a URL over the limit.
@Suite("Fuzz regressions: request URLs over 64 KiB")
struct RequestURLLimitRegressionTests {
    static let long = "my-app://done/" + String(repeating: "a", count: RequestURLLimit.maximumBytes)

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test("SoftPOS refuses to build a request URL it could not read back (softpos-request)")
    func softPOS() throws {
        let request = SoftPOSRequest(
            kind: .sale,
            amount: Money(minorUnits: 200, currency: .eur),
            responseURL: try Self.url(Self.long)
        )
        #expect((#expect(throws: SoftPOSError.self) { try request.urlString() })?.code == .requestTooLong)
        let fine = SoftPOSRequest(
            kind: .sale,
            amount: Money(minorUnits: 200, currency: .eur),
            responseURL: try Self.url("my-app://done/" + String(repeating: "a", count: 60_000))
        )
        #expect(try SoftPOSRequest(urlString: fine.urlString()) == fine)
    }

    @Test("Square, Swipe and SumUp refuse to build a request URL over 64 KiB, with a code to match")
    func otherProviders() throws {
        let callback = try Self.url(Self.long)
        let square = SquareRequest(
            applicationID: "sq0idp-limit",
            callbackURL: callback,
            amount: Money(minorUnits: 100, currency: .usd)
        )
        #expect((#expect(throws: SquareError.self) { try square.urlString() })?.code == .requestTooLong)
        let swipe = SwipeRequest(
            amount: Money(minorUnits: 100, currency: .usd),
            returnURL: callback,
            returnAppName: "Limit"
        )
        #expect((#expect(throws: SwipeError.self) { try swipe.urlString() })?.code == .requestTooLong)
        let sumUp = SumUpRequest(
            amount: Money(minorUnits: 100, currency: .eur),
            affiliateKey: "affiliate-key",
            callbackSuccess: callback
        )
        #expect((#expect(throws: SumUpError.self) { try sumUp.urlString() })?.code == .requestTooLong)
        let error = #expect(throws: SumUpError.self) { try sumUp.urlString() }
        #expect(error?.message.contains("64 KiB") == true)
    }
}

/// The `info-plist` target's input: a binary property list whose object table holds a set. Foundation on Linux
/// crashes (a segmentation fault in the runtime's cast) bridging it, so `tender doctor` crashed on such a file.
@Suite("Fuzz regressions: binary property lists with sets")
struct BinaryPropertyListRegressionTests {
    static let input =
        "YnBsaXN0MDDUAQIDBAUGBw9fEBJDRkJ1bmRsZUlkZW50aWZpZXJcQ0ZCdW5kbGVOYV9lXxAQQ0YBAAAAAAAAD0xUeXBlc18QG0xT"
        + "QWxwY2lwYXRpb25RdWVyaWVzU2NoZW1lc18QEGNvbS5leGFtcGxlLnNob3BUU2hvcKEIwwkKCwwFDV8QEENGQnVuZGxlVHlwZVJv"
        + "bGVfEA9DRkJ1bmRsZVVSTE5hbWVfEBJDRkJ1bmRsZVVSTFNjaGVtZXNWRWRpdG9yoQ5XbXktc2hvcKQQERITXxASc3F1YXJlLWNv"
        + "bW1lcmNlLXYxXxAUY29tLWFwcG5pbmphcy1pc3dpcGVXc29mdHBvc11zdW11cG1lcmNoYW50AAgAEQAmADMARgBkAHcAfAB+AIUA"
        + "mACqAL8AxgDIANAA1QDqAQEBCQAAAAAAAAIBAAAAAAAAABQAAAAAAAAAAAAAAAAAAAEX"

    @Test("a binary Info.plist with a set is refused with a clear error, not handed to Foundation (info-plist)")
    func setIsRefused() throws {
        let data = try #require(Data(base64Encoded: Self.input))
        #expect(!BinaryPropertyList.isFreeOfSets(data))
        let error = #expect(throws: AppIntegrationError.self) { try InfoPlist(propertyListData: data) }
        #expect(error?.code == .infoPlistUnreadable)
    }

    @Test("XML lists, readable binary lists, and damaged trailers are screened as such")
    func screen() {
        #expect(BinaryPropertyList.isFreeOfSets(Data("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8)))
        // A one-object binary list: an empty dictionary (0xD0), its offset, and the trailer.
        var list = Array("bplist00".utf8) + [0xD0, 0x08]
        list += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
        list += [0, 0, 0, 0, 0, 0, 0, 9]
        #expect(BinaryPropertyList.isFreeOfSets(Data(list)))
        var withSet = list
        withSet[8] = 0xC0  // the same object as an empty set
        #expect(!BinaryPropertyList.isFreeOfSets(Data(withSet)))
        var damaged = list
        damaged[damaged.count - 1] = 200  // the offset table past the end
        #expect(!BinaryPropertyList.isFreeOfSets(Data(damaged)))
        #expect(!BinaryPropertyList.isFreeOfSets(Data("bplist00".utf8)))
    }

    @Test(
        "a SumUp answer with a token on its callback URL round-trips but for the token, which the URL carries (sumup-callback)"
    )
    func sumUpTokenOnTheCallbackURL() throws {
        // The target's input (Fuzz/Regressions/sumup-callback/token-on-the-callback-url): Android's example answer
        // mangled, with a tender_token whose value holds '='. The encoder does not write the token, as Swipe's and
        // SoftPOS's do not: it travels on the callback URL the request gave.
        let input =
            "mycallbackscheme://result?smp-status=failed&tender_token=cause=transaction-failed&smOptionale=Transaction%20failed.&smp-receipt-sent=false&3mp-tx-code=123ABC&foreign-tx-id=0-c14c86-a7a0-49c5-a1esmp-status=98x"
        let response = try SumUpResponse(callbackURLString: input)
        #expect(response.callbackToken == "cause=transaction-failed")
        var original = response
        original.callbackToken = nil
        let again = try SumUpResponse(callbackURLString: try original.callbackURLString(callbackURL: "my-app://fuzz"))
        #expect(again == original)
        let withToken = try response.callbackURLString(
            callbackURL: "my-app://fuzz?tender_token=cause%3Dtransaction-failed"
        )
        #expect(try SumUpResponse(callbackURLString: withToken) == response)
    }
}
