import Foundation
import PropertyBased
import Synchronization
import Testing

@testable import Tender

/// The one-pass builders and parsers of Square Point of Sale and SoftPOS against the general code they stand in
/// for: on any input, the same URL bytes, the same parsed fields, or the same error (type, code and message).
@Suite("Fast paths agree with the general code (Square, SoftPOS)")
struct JSONFastPathEquivalenceTests {
    /// A result or an error, compared by value (errors by their full reflection: type, code and message).
    enum Outcome<Value: Equatable>: Equatable, CustomStringConvertible {
        case value(Value)
        case failure(String)

        init(_ body: () throws -> Value) {
            do { self = .value(try body()) } catch { self = .failure(String(reflecting: error)) }
        }

        var description: String {
            switch self {
            case .value(let value): return "value: \(value)"
            case .failure(let error): return "error: \(error)"
            }
        }
    }

    /// Text that tests the escaping: JSON escapes, `/`, controls, NUL, non-ASCII, combining marks.
    static let awkwardText = Gen.element(of: [
        "", "a", "blue shoes", "a/b", "\"q\"", "back\\slash", "tab\there", "line\nbreak", "\u{1}\u{1F}\u{7F}",
        "nul\u{0}", "é", "👍🏽", "e\u{301}", "~._-", "%41", "+ &=?#", "4111 1111 1111 1111", "\r\n", "\u{8}\u{C}",
    ])
    static let text = Gen.uint8(in: 0...255).array(of: 0...12).map { String(decoding: $0, as: UTF8.self) }
    static let someText = Gen.oneOf(awkwardText.compactMap { $0 }, text)

    /// Callback URLs, usual and unusual, for the `square_request` marking and the POS-scheme rule.
    static let callbackURLs = [
        "my-app://perform-callback", "my-app://", "my-app://?hello=world", "my-app://request/with/info",
        "my-app://request?hello=world", "my-app://a/", "my-app://h/%C3%A9", "my-app://u@:80",
        "my-app://u@host:80/p?q#f", "my-app://[::1]/x", "my-app:callback", "my-app:///x", "my-app://h#frag",
        "SOFTPOS://x", "square-commerce-v1://payment", "Sumupmerchant://x", "my-app://h/x%20y/", "a+b.c-d://h",
    ]

    @Test("Square: the one-pass request URL is the general one, byte for byte, or the same error")
    func squareBuild() async {
        let dialects: [SquareRequest.Dialect] = [
            .current, .pointOfSaleSDK3_4, .pointOfSaleSDK3_3_2, .pointOfSaleSDK3_0, .registerSDK1_0, .mobileWeb,
            SquareRequest.Dialect(
                sdkVersion: "3/5\u{1}",
                apiVersion: "",
                sendsCardEntryAndReceiptOptions: true,
                marksCallbackURL: true
            ),
        ]
        await propertyCheck(
            count: 400,
            input: Self.someText,
            Gen.element(of: Self.callbackURLs),
            Gen.int(in: -2...Int.max),
            zip(Self.someText.optional, Self.someText.optional, Self.someText.optional, Self.someText.optional),
            Gen<SquareTenderTypes>.optionSet(of: .all),
            zip(Gen.bool, Gen.bool, Gen.bool, Gen.bool),
            Gen.element(of: dialects)
        ) { applicationID, callback, minorUnits, optionals, tenders, flags, dialect in
            guard let callback, let dialect, let callbackURL = URL(string: callback) else { return }
            let request = SquareRequest(
                applicationID: applicationID,
                callbackURL: callbackURL,
                amount: Money(minorUnits: minorUnits == -2 ? 1 : minorUnits, currency: .jpy),
                state: optionals.0,
                locationID: optionals.1,
                notes: optionals.2,
                customerID: optionals.3,
                supportedTenderTypes: tenders,
                clearsDefaultFees: flags.0,
                returnsAutomaticallyAfterPayment: flags.1,
                disablesKeyedInCardEntry: flags.2,
                skipsReceipt: flags.3,
                dialect: dialect
            )
            #expect(Outcome { try request.urlString() } == Outcome { try request.generalURLString() })
        }
    }

    @Test("Square: the SDK test request, written in one pass, is the general bytes")
    func squareBuildExample() throws {
        let request = SquareRequest(
            applicationID: "sq0idp-8M4Qn6MyR4BZDeS0c41L3g",
            callbackURL: URL(string: "my-app://perform-callback")!,
            amount: Money(minorUnits: 100, currency: .usd),
            state: "state-user-info",
            locationID: "abc123",
            notes: "blue shoes",
            customerID: "def456",
            supportedTenderTypes: [.card],
            returnsAutomaticallyAfterPayment: true
        )
        let url = try request.urlString()
        #expect(url == (try request.generalURLString()))
        #expect(url.contains("%22callback_url%22%3A%22my-app%3A%5C%2F%5C%2Fperform-callback%5C%2Fsquare_request%22"))
    }

    @Test("SoftPOS: the one-pass request URL is the general one, byte for byte, or the same error")
    func softPOSBuild() async {
        let currencies: [Currency] = [.eur, .usd]
        await propertyCheck(
            count: 300,
            input: Gen.element(of: SoftPOSRequest.Kind.allCases),
            Gen.int(in: -1...SoftPOSRequest.maximumAmount + 1),
            Gen.element(of: currencies),
            Gen.element(of: ["446655", "a-b_c.d", "4111111111111111", "bad id", "é"]).optional,
            Gen.element(of: Self.callbackURLs + ["testapp://response", "my-app://done?order=7&tender_token=t"])
                .optional
        ) { kind, minorUnits, currency, original, responseURL in
            guard let kind, let currency else { return }
            let request = SoftPOSRequest(
                kind: kind,
                amount: Money(minorUnits: minorUnits, currency: currency),
                originalTransactionID: original ?? nil,
                responseURL: (responseURL ?? nil).flatMap { URL(string: $0) }
            )
            #expect(Outcome { try request.urlString() } == Outcome { try request.generalURLString() })
        }
    }

    // MARK: Parsing

    /// JSON members as they come: usual ones, and every shape the fast path hands over (escapes, duplicates,
    /// nesting, non-ASCII, card numbers, wrong types).
    static let squareMembers = Gen.element(
        of: Array(
            repeating: [
                #""state":"tok-1""#, #""transaction_id":"T1""#, #""client_transaction_id":"C-1""#, #""payment_id":"P""#,
                #""error_code":"not_logged_in""#,
            ],
            count: 6
        ).flatMap { $0 } + [
            #""status":"ok""#, #""status":"error""#, #""status":"OK""#, #""status":1"#, #""state":"state-user-info""#,
            #""state":7"#, #""state":"a\/b""#, #""state":"é""#, #""state":"""#, #""transaction_id":"TRANSACTION_ID""#,
            #""transaction_id":"<script>""#, #""transaction_id":"""#, #""transaction_id":5"#,
            #""client_transaction_id":"CLIENT_ID""#, #""client_transaction_id":"12345678-1234-1234-1234-123456789012""#,
            #""client_transaction_id":"4111111111111111""#, #""client_transaction_id":"4111-1111-1111-1111""#,
            #""error_code":"payment_canceled""#, #""error_code":"""#, #""error_code":0"#, #""error_code":"a b""#,
            #""payment_id":"P""#, #""payment_id":null"#, #""offline_payment_id":[1]"#, #""x":{"y":true}"#,
            #""st\u0061te":"s""#, #""ſtate":"s""#, #""n":-0.5e+3"#, #""n":01"#, #""n":1."#, #""b":false"#,
            "\"t\":\"tab\tin\"", #""s":"\u0000""#, "\"long\":\"" + String(repeating: "a", count: 129) + "\"",
            #""transaction_id":"T1:2.3_4-5""#,
        ]
    )

    static func json(_ members: [String], _ layout: Int) -> String {
        switch layout {
        case 0: return "{" + members.joined(separator: ",") + "}"
        case 1: return " { " + members.joined(separator: " ,\n\t") + " }\r\n"
        case 2: return "{" + members.joined(separator: ",") + ",}"
        case 3: return "[" + members.joined(separator: ",") + "]"
        default: return "{" + members.joined(separator: ",") + "} x"
        }
    }

    static let squarePrefixes = [
        "my-app://perform-callback/square_request?", "my-app://cb?", "my-app://square_request?",
        "my-app://u@square_request:80/x?", "my-app://h/é/square_request?", "1app://x?", "my-app:square_request?",
        "my-app://[::1]/square_request?", "my-app://h/square_request/?x=1&", "my-app://h/a/square_requestx?",
        "my-app://Square_Request/?", "my-app://h/%73quare_request?",
    ]

    static let extraParameters = [
        "", "&x=1", "&x=%ZZ", "&x=%C3%A9", "&x=%FF", "&%64ata=x", "&flag", "&&", "#frag", "&x=é", "&x=%7E",
        "&tender_token=tok_9", "&tender_token=a&tender_token=b", "&tender_token", "&tender_token=%41",
        "&tender_token=4111111111111111", "&tender_token=a b",
    ]

    @Test("Square: the one-pass callback parser reads what the general parser reads, or leaves the error to it")
    func squareParse() async {
        let fastCount = Atomic(0)
        await propertyCheck(
            count: 2000,
            input: Self.squareMembers.compactMap { $0 }.array(of: 0...3),
            Gen.element(of: [#""status":"ok""#, #""status":"error""#, #""status":"e\u0072ror""#]).optional(
                valueRate: 0.9
            ),
            Gen.int(in: 0...6).map { $0 > 4 ? 0 : $0 },
            Gen.element(of: Self.squarePrefixes),
            Gen.element(of: Self.extraParameters).optional(valueRate: 0.3),
            Gen.int(in: 0...9).map { $0 > 5 ? 3 : $0 }
        ) { members, status, layout, prefix, extra, encoding in
            guard let prefix else { return }
            let extra = (extra ?? nil) ?? ""
            var members = members
            if let status = status ?? nil { members.insert(status, at: members.count / 2) }
            let json = Self.json(members, layout)
            let data: String
            switch encoding {
            case 0: data = json  // not encoded at all
            case 1: data = PercentEncoding.encode(json) + "%"
            case 2: data = PercentEncoding.encode(json).lowercased()
            default: data = PercentEncoding.encode(json)
            }
            let url = prefix + (encoding == 5 ? "data&" : "") + "data=" + data + extra
            #expect(
                Outcome { try SquareResponse(callbackURLString: url) }
                    == Outcome { try SquareResponse(generalCallbackURLString: url) },
                "\(url)"
            )
            if SquareResponse.parsedOnFastPath(url) != nil { fastCount.add(1, ordering: .relaxed) }
        }
        // The comparison means something only if many inputs take the fast path.
        #expect(fastCount.load(ordering: .relaxed) >= 40)
    }

    /// Each pool repeats its usual entries, so that most inputs reach the end of the fast path.
    static let refusalCodes =
        Array(repeating: [#""refusalCode":"00""#, #""refusalCode":"105""#], count: 6).flatMap { $0 } + [
            #""refusalCode":"105""#, #""refusalCode":5"#,
            #""refusalCode":"""#, #""refusalCode":"abcdefghi""#, #""refusalCode":"0-0""#, #""refusalCode":"0\u0030""#,
        ]
    static let transactionIDs =
        Array(repeating: [#""transactionId":"449333""#], count: 12).flatMap { $0 } + [
            #""transactionId":"449333""#, #""transactionId":"""#,
            #""transactionId":"4111111111111111""#, #""transactionId":"a b""#, #""transactionId":"x\/y""#,
            #""transactionId":7"#, "\"transactionId\":\"" + String(repeating: "7", count: 65) + "\"",
            "\"transactionId\":\"" + String(repeating: "7", count: 64) + "\"", #""transactionId":"a-b_c.d""#,
            #""transactionId":"12345678-1234-1234-1234-123456789012""#,
        ]
    static let customMessages =
        Array(repeating: [#""customMessage":{"f39":"000","isoStan":"000206"}"#], count: 20).flatMap { $0 } + [
            #""customMessage":{"f39":"000","isoStan":"000206","transactionTime":"211812","transactionDate":"250209"}"#,
            #""customMessage":{"f39":"000"}"#, #""customMessage":{}"#, #""customMessage":{"f39":12,"n":-1.5}"#,
            #""customMessage":{"pan":"4111 1111 1111 1111"}"#, #""customMessage":{"é":"x"}"#,
            #""customMessage":{"":"x"}"#,
            #""customMessage":{"4111111111111111":"x"}"#, #""customMessage":{"a":"é"}"#, #""customMessage":{"a":"\n"}"#,
            #""customMessage":{"a":"1","a":"2"}"#, #""customMessage":{"a":[]}"#, #""customMessage":{"a":true}"#,
            #""customMessage":{"a":""}"#, #""customMessage":{"a\u0062":"x"}"#, #""customMessage":"x""#,
            #""customMessage":{"a":"x",}"#, #""customMessage":{"a":01}"#,
            "\"customMessage\":{\"a\":\"" + String(repeating: "b", count: 257) + "\"}",
            "\"customMessage\":{\"a\":\"" + String(repeating: "b", count: 256) + "\"}",
            "\"customMessage\":{\"" + String(repeating: "k", count: 65) + "\":\"x\"}",
            "\"customMessage\":{" + (0...64).map { "\"k\($0)\":\"v\"" }.joined(separator: ",") + "}",
            "\"customMessage\":{\"a\":\"\u{7F}\"}", "\"customMessage\":{\"a\":\"\u{85}\"}",
        ]
    static let otherMembers = [#""extra":null"#, #""extra":{"x":1}"#, #""refusalCode":"00""#, #""e":"\/""#]

    static let softPOSTopMembers = Gen.element(
        of: Array(repeating: "", count: 20) + [
            #""other":1"#, #""other":"x""#, #""error":{"description":"x"}"#, #""result":{}"#, #""result":1"#,
            #""description":"d""#,
        ]
    )

    @Test("SoftPOS: the one-pass callback parser reads what the general parser reads, or leaves the error to it")
    func softPOSParse() async {
        let fastCount = Atomic(0)
        let bases = [
            "testapp://response?", "testapp://response?", "my-app://done?order=7&", "my-app://done?tender_token=tok_9&",
            "my-app://done?tender_token=tok_9&", "1x://r?",
            "my-app://done?tender_token=a&tender_token=a&", "my-app://done?error=x&", "my-app://done#f?",
        ]
        await propertyCheck(
            count: 2000,
            input: zip(
                Gen.element(of: Self.refusalCodes).optional(valueRate: 0.9),
                Gen.element(of: Self.transactionIDs).optional(valueRate: 0.9),
                Gen.element(of: Self.customMessages).optional(valueRate: 0.9),
                Gen.element(of: Self.otherMembers).optional(valueRate: 0.2)
            ),
            Self.softPOSTopMembers.compactMap { $0 }.array(of: 0...2),
            Gen.int(in: 0...6).map { $0 > 4 ? 0 : $0 },
            Gen.element(of: bases),
            Gen.element(of: Self.extraParameters).optional(valueRate: 0.3),
            Gen.int(in: 0...9).map { $0 > 5 ? 3 : $0 }
        ) { members, topMembers, layout, base, extra, encoding in
            guard let base else { return }
            let extra = (extra ?? nil) ?? ""
            var hostMembers = [members.0, members.1, members.2, members.3].compactMap { $0 ?? nil }
            if layout == 1 { hostMembers.reverse() }
            let host = "\"result\":" + Self.json(hostMembers, layout == 4 ? 0 : layout)
            var top = topMembers.filter { !$0.isEmpty }
            top.insert(host, at: top.isEmpty ? 0 : hostMembers.count % (top.count + 1))
            let json = Self.json(top, layout == 2 || layout == 3 ? 0 : layout)
            let value: String
            switch encoding {
            case 0: value = json
            case 1: value = PercentEncoding.encode(json) + "%4"
            default: value = PercentEncoding.encode(json)
            }
            let name = encoding == 5 ? "error" : "result"
            let url = base + name + "=" + value + extra
            #expect(
                Outcome { try SoftPOSResponse(callbackURLString: url) }
                    == Outcome { try SoftPOSResponse(generalCallbackURLString: url) },
                "\(url)"
            )
            if SoftPOSResponse.parsedOnFastPath(url) != nil { fastCount.add(1, ordering: .relaxed) }
        }
        // The comparison means something only if many inputs take the fast path.
        #expect(fastCount.load(ordering: .relaxed) >= 40)
    }

    @Test("the vendors' usual replies are read on the fast path, with the general parser's fields")
    func usualRepliesTakeTheFastPath() throws {
        let square =
            "my-app://perform-callback/square_request?data="
            + PercentEncoding.encode(
                #"{"status":"ok","transaction_id":"TRANSACTION_ID","client_transaction_id":"CLIENT_ID","state":"state-user-info"}"#
            )
        let fastSquare = try #require(SquareResponse.parsedOnFastPath(square))
        #expect(fastSquare == (try SquareResponse(generalCallbackURLString: square)))
        #expect(fastSquare.hasCallbackMarker && fastSquare.transactionID == "TRANSACTION_ID")

        let softPOS =
            "testapp://response?tender_token=tok_9&result="
            + PercentEncoding.encode(
                #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{"f39":"000","isoStan":"000206","transactionTime":"211812","transactionDate":"250209"}}}"#
            )
        let fastSoftPOS = try #require(SoftPOSResponse.parsedOnFastPath(softPOS))
        #expect(fastSoftPOS == (try SoftPOSResponse(generalCallbackURLString: softPOS)))
        #expect(fastSoftPOS.transactionID == "449333" && fastSoftPOS.correlationToken == "tok_9")
    }
}
