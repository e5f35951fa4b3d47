import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("SoftPOS callback (softpos §2)")
struct SoftPOSResponseTests {
    /// The vendor's failed-transaction callback, exactly as printed in source document 004: encoded…
    static let vendorCancelledEncoded =
        "testapp://response?result=%7B%22error%22:%7B%22description%22:%22The%20operation%20couldn%E2%80%99t%20be%20completed.%20(Softpos.SoftposReadError%20error%2010.)%22,%22softposReadError%22:%22readCancelled%22,%22errorDescription%22:%22The%20operation%20couldn%E2%80%99t%20be%20completed.%20(Softpos.SoftposReadError%20error%2010.)%22%7D%7D"
    /// …and as the vendor prints it decoded.
    static let vendorCancelledDecoded =
        #"testapp://response?result={"error":{"description":"The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)","softposReadError":"readCancelled","errorDescription":"The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)"}}"#
    static let vendorMessage = "The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)"

    /// The vendor's `result` example (a fragment in the document; wrapped in braces here).
    static let vendorResultFragment = """
        "result": {
            "refusalCode": "00",
            "transactionId": "449333",
            "customMessage": {
                "f39": "000",
                "isoStan": "000206",
                "transactionTime": "211812",
                "transactionDate": "250209"
            }
        }
        """

    /// The vendor's host-rejection example, verbatim: its braces do not balance.
    static let vendorRejectionFragment = #"""
        "error": {
            "description": "Transaction Error: refusalCode:'105', transactionId:'', mti:'', customMessage:'[\"f39\": \"105\", \"isoStan\": \"000205\", \"transactionTime\": \"205432\", \"transactionDate\": \"250209\"]'",
            "errorDescription": "Transaction Error: refusalCode:'105', transactionId:'', mti:'', customMessage:'[\"f39\": \"105\", \"isoStan\": \"000205\", \"transactionTime\": \"205432\", \"transactionDate\": \"250209\"]'",
                    "transactionResult": {
                        "refusalCode": "105",
                        "customMessage": {
                            "transactionDate": "250209",
                            "isoStan": "000205",
                            "transactionTime": "205432",
                            "f39": "105"
                        }
                    }
                }
            }
        }
        """#

    static func callback(_ json: String, base: String = "testapp://response") -> String {
        base + (base.contains("?") ? "&" : "?") + "result=" + PercentEncoding.encode(json)
    }

    func parse(_ json: String) throws -> SoftPOSResponse {
        try SoftPOSResponse(callbackURLString: Self.callback(json))
    }

    func expectError(_ json: String, _ code: SoftPOSError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: SoftPOSError.self, sourceLocation: sourceLocation) { try parse(json) }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test("the vendor's cancelled read parses, encoded and decoded alike, as cancelled (softpos §2)")
    func vendorCancelled() throws {
        let encoded = try SoftPOSResponse(callbackURLString: Self.vendorCancelledEncoded)
        let decoded = try SoftPOSResponse(callbackURLString: Self.vendorCancelledDecoded)
        #expect(encoded == decoded)
        guard case .error(let report) = encoded.reply else {
            Issue.record("expected an error reply")
            return
        }
        #expect(report.message == Self.vendorMessage)
        #expect(report.detail == Self.vendorMessage)
        #expect(report.readError == .readCancelled)
        #expect(report.systemError == nil)
        #expect(report.transactionResult == nil)
        let outcome = encoded.outcome
        #expect(outcome.status == .cancelled)
        #expect(outcome.provider == .softPOS)
        #expect(outcome.errorCode == "readCancelled")
        #expect(outcome.message == Self.vendorMessage)
        #expect(outcome.amount == nil)
        #expect(
            PaymentURLKind.detect(Self.vendorCancelledEncoded)
                == PaymentURLKind(provider: .softPOS, direction: .response)
        )
    }

    @Test("the vendor's result example is approved with its transaction id and custom message (softpos §2)")
    func vendorResult() throws {
        let response = try parse("{" + Self.vendorResultFragment + "}")
        #expect(
            response.reply
                == .result(
                    .init(
                        refusalCode: "00",
                        transactionID: "449333",
                        customMessage: [
                            "f39": "000", "isoStan": "000206", "transactionTime": "211812", "transactionDate": "250209",
                        ]
                    )
                )
        )
        #expect(response.outcome.status == .approved)
        #expect(response.outcome.transactionID == "449333")
        #expect(response.outcome.errorCode == nil)
    }

    @Test("the vendor's rejection example has unbalanced braces and is refused; balanced, it is declined with 105")
    func vendorRejection() throws {
        expectError("{" + Self.vendorRejectionFragment, .invalidJSON)
        var balanced = Self.vendorRejectionFragment
        balanced = String(balanced[..<balanced.lastIndex(of: "}")!])  // one '}' too many
        let response = try parse("{" + balanced)
        #expect(response.outcome.status == .declined)
        #expect(response.outcome.errorCode == "105")
        #expect(response.refusalCode == "105")
        #expect(response.transactionID == nil)
        guard case .error(let report) = response.reply else {
            Issue.record("expected an error reply")
            return
        }
        #expect(report.transactionResult?.customMessage?["f39"] == "105")
        #expect(report.message.hasPrefix("Transaction Error: refusalCode:'105'"))
    }

    @Test(
        "outcome mapping (softpos §2)",
        arguments: [
            (
                #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{}}}"#,
                PaymentOutcome.Status.approved, nil as String?
            ),
            (#"{"result":{"refusalCode":"05","transactionId":"1","customMessage":{}}}"#, .declined, "05"),
            (#"{"result":{"refusalCode":"105","transactionId":"","customMessage":{}}}"#, .declined, "105"),
            (#"{"error":{"description":"x","transactionResult":{"refusalCode":"116"}}}"#, .declined, "116"),
            (#"{"error":{"description":"x","softposReadError":"readCancelled"}}"#, .cancelled, "readCancelled"),
            (#"{"error":{"description":"x","softposReadError":"readTimeout"}}"#, .failed, "readTimeout"),
            (#"{"error":{"description":"x","softposError":{"errorCode":10,"message":"Read error"}}}"#, .failed, "10"),
            (#"{"error":{"description":"x"}}"#, .failed, nil),
            // The host approved but the app reports an error: not a decline, and never approved.
            (
                #"{"error":{"description":"x","transactionResult":{"refusalCode":"00","transactionId":"7"}}}"#, .failed,
                "00"
            ),
        ]
    )
    func outcomeMapping(_ json: String, _ status: PaymentOutcome.Status, _ errorCode: String?) throws {
        let outcome = try parse(json).outcome
        #expect(outcome.status == status)
        #expect(outcome.errorCode == errorCode)
    }

    @Test("codes documented as integers are read from numbers or strings (softpos §2)")
    func integerCodes() throws {
        let numbers = try parse(
            #"{"error":{"description":"d","softposError":{"internalErrorCode":10,"errorCode":11,"errorSubCode":-2}}}"#
        )
        let strings = try parse(
            #"{"error":{"description":"d","softposError":{"internalErrorCode":"10","errorCode":"11","errorSubCode":"-2"}}}"#
        )
        #expect(numbers == strings)
        guard case .error(let report) = numbers.reply else {
            Issue.record("expected an error reply")
            return
        }
        #expect(report.systemError == .init(internalErrorCode: 10, errorCode: 11, errorSubCode: -2))
        expectError(#"{"error":{"description":"d","softposError":{"errorCode":"ten"}}}"#, .invalidResult)
        expectError(#"{"error":{"description":"d","softposError":{"errorCode":1.5}}}"#, .invalidResult)
        expectError(#"{"error":{"description":"d","softposError":{"errorCode":true}}}"#, .invalidResult)
        // Extremes are refused, never trapped on.
        expectError(#"{"error":{"description":"d","softposError":{"errorCode":-9223372036854775808}}}"#, .invalidResult)
        expectError(
            #"{"error":{"description":"d","softposError":{"errorCode":"-9223372036854775808"}}}"#,
            .invalidResult
        )
        expectError(#"{"error":{"description":"d","softposError":{"errorCode":99999999999999999999}}}"#, .invalidResult)
    }

    @Test("the host's refusal code is a string: a number is refused, so only the string 00 approves (softpos §2)")
    func numericRefusalCodes() throws {
        for code in ["0", "-0", "0.0", "105", "5"] {
            expectError(#"{"result":{"refusalCode":\#(code),"transactionId":"9","customMessage":{}}}"#, .invalidResult)
        }
        #expect(
            try parse(#"{"result":{"refusalCode":"0","transactionId":"9","customMessage":{}}}"#).outcome.status
                == .declined
        )
        expectError(#"{"result":{"refusalCode":"0 0","transactionId":"","customMessage":{}}}"#, .invalidResult)
        // An error's transactionResult, which never approves, takes the documented string too (issue 32).
        expectError(
            #"{"error":{"description":"d","transactionResult":{"refusalCode":5,"transactionId":"1"}}}"#,
            .invalidResult
        )
        let report = try parse(
            #"{"error":{"description":"d","transactionResult":{"refusalCode":"05","transactionId":"1"}}}"#
        )
        #expect(report.refusalCode == "05")
        #expect(report.outcome.status == .declined)
    }

    @Test(
        "an answer whose documented member has another JSON type is refused (issue 32; softpos §2)",
        arguments: [
            #"{"result":{"refusalCode":"00","transactionId":449333,"customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"f39":0}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"isoStan":-1.5}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":[]}}"#,
            #"{"error":{"description":7}}"#,
            #"{"error":{"description":"d","errorDescription":null}}"#,
            #"{"error":{"description":"d","softposReadError":10}}"#,
            #"{"error":{"description":"d","softposError":"x"}}"#,
            #"{"error":{"description":"d","softposError":{"message":1}}}"#,
            #"{"error":{"description":"d","softposError":{"errorCode":true}}}"#,
            #"{"error":{"description":"d","transactionResult":[]}}"#,
            #"{"error":{"description":"d","transactionResult":{"refusalCode":0}}}"#,
            #"{"error":{"description":"d","transactionResult":{"transactionId":7}}}"#,
            #"{"error":{"description":"d","transactionResult":{"customMessage":{"f39":105}}}}"#,
        ]
    )
    func wrongTypeIsMalformed(_ json: String) {
        // Strings and objects are what the vendor documents; only the codes documented as integers are also read
        // from strings (softpos §2). A number where a string belongs would be read into the outcome's evidence.
        expectError(json, .invalidResult)
    }

    @Test("exactly one result parameter; the lenient error parameter is read too (softpos §2, SEC-6)")
    func oneResultParameter() throws {
        let errorObject = #"{"description":"Lost connection","softposReadError":"readCancelled"}"#
        let lenient = try SoftPOSResponse(
            callbackURLString: "testapp://response?error=" + PercentEncoding.encode(errorObject)
        )
        #expect(lenient.outcome.status == .cancelled)
        let wrapped = try SoftPOSResponse(
            callbackURLString: "testapp://response?error=" + PercentEncoding.encode(#"{"error":\#(errorObject)}"#)
        )
        #expect(wrapped == lenient)

        let result = PercentEncoding.encode(#"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{}}}"#)
        for query in [
            "result=\(result)&result=\(result)", "result=\(result)&error=\(PercentEncoding.encode(errorObject))", "",
            "result=", "result", "other=1",
        ] {
            let error = #expect(throws: SoftPOSError.self) {
                try SoftPOSResponse(callbackURLString: "testapp://response?" + query)
            }
            #expect(error?.code == .missingOrDuplicateResult)
        }
    }

    @Test(
        "strict JSON: duplicate keys, trailing commas, bad escapes and deep nesting are refused (SEC-6)",
        arguments: [
            #"{"result":{"refusalCode":"00","refusalCode":"05","transactionId":"1","customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{},}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"a":"\u0000"}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{}}} x"#,
            #"{"result":"#,
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        ]
    )
    func strictJSON(_ json: String) {
        expectError(json, .invalidJSON)
    }

    @Test(
        "the result has the shape of softpos §2",
        arguments: [
            #"[]"#, #"{}"#, #"{"other":1}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{}},"error":{"description":"x"}}"#,
            #"{"result":"00"}"#,
            #"{"result":{"transactionId":"1","customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1"}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"","customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":1,"customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"a b","customMessage":{}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":[]}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"a":{"b":"c"}}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"a":null}}}"#,
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"":"x"}}}"#,
            #"{"error":{}}"#, #"{"error":{"description":5}}"#, #"{"error":"x"}"#,
            #"{"error":{"description":"x","softposReadError":"read cancelled"}}"#,
            #"{"error":{"description":"x","softposReadError":7}}"#,
            #"{"error":{"description":"x","softposError":[]}}"#,
            #"{"error":{"description":"x","transactionResult":"105"}}"#,
            #"{"error":{"description":"a\u0007b"}}"#,
        ]
    )
    func shape(_ json: String) {
        expectError(json, .invalidResult)
    }

    @Test("sizes are bounded: custom message entries, text length (SEC-6)")
    func bounds() throws {
        let entries = (0..<65).map { #""k\#($0)":"v""# }.joined(separator: ",")
        expectError(
            #"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{\#(entries)}}}"#,
            .invalidResult
        )
        let long = String(repeating: "a", count: 4097)
        expectError(#"{"error":{"description":"\#(long)"}}"#, .invalidResult)
        let ok = try parse(#"{"error":{"description":"\#(long.dropLast())"}}"#)
        #expect(ok.outcome.message?.count == 4096)
        let huge = "testapp://response?result=" + String(repeating: "a", count: 70_000)
        let error = #expect(throws: SoftPOSError.self) { try SoftPOSResponse(callbackURLString: huge) }
        #expect(error?.code == .unreadableCallback)
    }

    @Test("card numbers: refused in identifiers, masked in text (SEC-9)")
    func cardNumbers() throws {
        let refused = #expect(throws: SoftPOSError.self) {
            try parse(#"{"result":{"refusalCode":"00","transactionId":"4111111111111111","customMessage":{}}}"#)
        }
        #expect(refused?.code == .cardNumberRefused)
        #expect(refused?.message.contains("4111") == false)
        let key = #expect(throws: SoftPOSError.self) {
            try parse(#"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"4111111111111111":"x"}}}"#)
        }
        #expect(key?.code == .cardNumberRefused)

        let masked = try parse(
            #"{"error":{"description":"Card 4111 1111 1111 1111 refused","softposError":{"message":"pan 5555555555554444"},"transactionResult":{"customMessage":{"pan":"4111111111111111"}}}}"#
        )
        guard case .error(let report) = masked.reply else {
            Issue.record("expected an error reply")
            return
        }
        #expect(report.message == "Card XXXX XXXX XXXX 1111 refused")
        #expect(report.systemError?.message == "pan XXXXXXXXXXXX4444")
        #expect(report.transactionResult?.customMessage?["pan"] == "XXXXXXXXXXXX1111")
        #expect(!storedTexts(of: masked).contains(where: CardNumberScreen.containsCardNumber))
    }

    @Test("the caller's own query parameters survive and carry the token (softpos §2)")
    func correlationToken() throws {
        let json = #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{}}}"#
        let response = try SoftPOSResponse(
            callbackURLString: Self.callback(json, base: "my-app://done?order=7&tender_token=tok_9")
        )
        #expect(response.correlationToken == "tok_9")
        let twice = #expect(throws: SoftPOSError.self) {
            try SoftPOSResponse(
                callbackURLString: Self.callback(json, base: "my-app://done?tender_token=a&tender_token=a")
            )
        }
        #expect(twice?.code == .invalidCorrelationToken)
    }

    static let randomResponse = Generator<SoftPOSResponse, Shrink.None<SoftPOSResponse>>(run: { rng in
        func dictionary(_ rng: inout any SeededRandomNumberGenerator) -> [String: String] {
            var result: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                result[RandomInput.text(&rng)] = RandomInput.text(&rng, length: 0...10)
            }
            return result
        }
        let token = Bool.random(using: &rng) ? RandomInput.identifier(&rng, length: 1...40, punctuation: "-_") : nil
        if Bool.random(using: &rng) {
            let approved = Bool.random(using: &rng)
            return SoftPOSResponse(
                reply: .result(
                    .init(
                        refusalCode: approved ? "00" : RandomInput.identifier(&rng, length: 1...8),
                        transactionID: RandomInput.identifier(
                            &rng,
                            length: approved ? 1...64 : 0...64,
                            punctuation: "-_."
                        ),
                        customMessage: dictionary(&rng)
                    )
                ),
                correlationToken: token
            )
        }
        let tranID: String? = Bool.random(using: &rng) ? RandomInput.identifier(&rng, length: 1...20) : nil
        let system = SoftPOSResponse.SystemError(
            internalErrorCode: Bool.random(using: &rng) ? Int.random(in: -999...999, using: &rng) : nil,
            errorCode: Bool.random(using: &rng) ? Int.random(in: 0...999, using: &rng) : nil,
            errorSubCode: Bool.random(using: &rng) ? Int.random(in: 0...999, using: &rng) : nil,
            message: RandomInput.optionalText(&rng)
        )
        return SoftPOSResponse(
            reply: .error(
                .init(
                    message: RandomInput.text(&rng, length: 0...30),
                    detail: RandomInput.optionalText(&rng),
                    readError: Bool.random(using: &rng)
                        ? [.readCancelled, .init(rawValue: "readTimeout")].randomElement(using: &rng)! : nil,
                    systemError: Bool.random(using: &rng) ? system : nil,
                    transactionResult: Bool.random(using: &rng)
                        ? .init(
                            refusalCode: Bool.random(using: &rng) ? "105" : nil,
                            transactionID: tranID,
                            customMessage: Bool.random(using: &rng) ? dictionary(&rng) : nil
                        ) : nil
                )
            ),
            correlationToken: token
        )
    })

    @Test("round trip: a callback built for a response parses back to it (property, softpos §2)")
    func roundTrip() async {
        let bases = Gen<String?>.element(of: [
            "my-app://done", "com.example.shop://cb?order=42", "x-app:/path", "my-app://",
        ])
        await propertyCheck(count: 300, input: Self.randomResponse, bases.map { $0! }) { response, base in
            var responseURL = base
            if let token = response.correlationToken {
                responseURL += (responseURL.contains("?") ? "&" : "?") + "tender_token=" + token
            }
            let url = try response.callbackURLString(responseURL: responseURL)
            #expect(try SoftPOSResponse(callbackURLString: url) == response)
            #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: .softPOS, direction: .response))
        }
    }

    /// Random JSON in SoftPOS's shape: each documented field present or not, its value of the right type or
    /// not, and at the edges of every range.
    static let randomJSON = Generator<String, Shrink.None<String>>(run: { rng in
        let scalars = [
            "0", "-0", "1", "-1", "00", "105", "1.5", "1e3", "-9223372036854775808", "9223372036854775807",
            "99999999999999999999", "true", "false", "null", #""""#, #""00""#, #""readCancelled""#,
            #""4111111111111111""#, #""4111 1111 1111 1111""#, #""-9223372036854775808""#, #""10""#, #""x\u0000""#,
            #""é""#, "{}", "[]", #"{"a":"b"}"#,
        ]
        func any(_ rng: inout any SeededRandomNumberGenerator) -> String { scalars.randomElement(using: &rng)! }
        func object(
            _ fields: [(String, (inout any SeededRandomNumberGenerator) -> String)],
            _ rng: inout any SeededRandomNumberGenerator
        ) -> String {
            let members = fields.compactMap { key, value -> String? in
                guard Int.random(in: 0..<10, using: &rng) < 7 else { return nil }
                return "\"\(key)\":" + (Int.random(in: 0..<5, using: &rng) == 0 ? any(&rng) : value(&rng))
            }
            return "{" + members.joined(separator: ",") + "}"
        }
        func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
            [#""00""#, #""05""#, #""449333""#, #""readCancelled""#, #""card 4111111111111111""#, #""""#]
                .randomElement(using: &rng)!
        }
        func customMessage(_ rng: inout any SeededRandomNumberGenerator) -> String {
            object([("f39", string), ("isoStan", any), ("4111111111111111", string), ("pan", string)], &rng)
        }
        func host(_ rng: inout any SeededRandomNumberGenerator) -> String {
            object(
                [
                    ("refusalCode", { Bool.random(using: &$0) ? string(&$0) : any(&$0) }), ("transactionId", string),
                    ("customMessage", customMessage),
                ],
                &rng
            )
        }
        func system(_ rng: inout any SeededRandomNumberGenerator) -> String {
            object([("internalErrorCode", any), ("errorCode", any), ("errorSubCode", any), ("message", string)], &rng)
        }
        func error(_ rng: inout any SeededRandomNumberGenerator) -> String {
            object(
                [
                    ("description", string), ("errorDescription", string), ("softposReadError", string),
                    ("softposError", system), ("transactionResult", host),
                ],
                &rng
            )
        }
        return Bool.random(using: &rng) ? "{\"result\":\(host(&rng))}" : "{\"error\":\(error(&rng))}"
    })

    @Test("the parser survives structured random JSON, and keeps no card number (SEC-6, SEC-9)")
    func structuredFuzz() async {
        await propertyCheck(count: 5000, input: Self.randomJSON) { json in
            for name in ["result", "error"] {
                let url = "testapp://response?\(name)=" + PercentEncoding.encode(json)
                if let response = try? SoftPOSResponse(callbackURLString: url) {
                    #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
                    _ = response.outcome
                }
            }
        }
    }

    @Test("the parser survives arbitrary input, and what it keeps holds no card number (SEC-6, SEC-9)")
    func fuzz() async {
        await propertyCheck(count: 1000, input: RandomInput.fuzzText) { text in
            for candidate in [text, "testapp://response?result=" + text, "testapp://response?error=" + text] {
                if let response = try? SoftPOSResponse(callbackURLString: candidate) {
                    #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
                }
            }
        }
        let seeds = [
            Self.vendorCancelledEncoded, Self.vendorCancelledDecoded,
            Self.callback("{" + Self.vendorResultFragment + "}"),
        ]
        await propertyCheck(count: 1000, input: RandomInput.mutating(seeds)) { text in
            if let response = try? SoftPOSResponse(callbackURLString: text) {
                #expect(!storedTexts(of: response).contains(where: CardNumberScreen.containsCardNumber))
            }
        }
    }
}
