import Foundation
import PropertyBased
import Synchronization
import Testing

@testable import Tender

/// Each wire format has one parser and one encoder: whatever a parser accepts, from callbacks made of the awkward
/// pieces below, survives the provider's encoder and parsing again; whatever a builder writes, its decoder reads back
/// to the same bytes. The pieces are those the fast paths' differential tests once used, so the inputs still reach
/// every rule.
@Suite("Round trips through each wire format's one parser and one encoder")
struct WireRoundTripPropertyTests {
    // MARK: Query-string callbacks (Swipe, SumUp)

    /// Starts of callback URLs: the callback endpoints, with and without a query, and strings that do not split.
    static let starts = [
        "my-app://cb?", "my-app://cb/?x=1&", "com-companyname-demoapp://action/?", "my-app:?", "1bad://cb?",
        "no-scheme?", "my-app://cb#f?", "",
    ]

    /// Pieces of Swipe callbacks: every result parameter, FileMaker's `$` (literal and `%24`), the token parameter,
    /// other parameters, escapes good and bad, non-ASCII names and values, delimiters.
    static let swipePieces = [
        "?", "#", "&", "&&", "=", "=", "&", "ifcc_responseType", "$ifcc_responseType", "%24ifcc_responseType",
        "ifcc_amount", "$ifcc_amount", "ifcc_redactedCardNumber", "ifcc_cardType", "ifcc_currency",
        "ifcc_transactionId", "ifcc_taxAmount", "ifcc_taxRate", "ifcc_tipAmount", "ifcc_other", "$ifcc_", "ifcc",
        "ifcc%5Famount", "ifcc_amount\u{301}", "tender_token", "order", "é", "approved", "$approved", "declined",
        "cancelled", "error", "10.99", "XXXX1111", "Visa", "USD", "T-1", "8.5", "%20", "%ZZ", "%C3%A9", "%FF", "%2",
        "$", "\u{301}", "tok-0123456789abcdef",
    ]

    /// Whole Swipe pairs, good ones and ones each rule of swipe §2 refuses, so that many URLs are answers.
    static let swipePairs = [
        "ifcc_amount=10.99&", "ifcc_amount=0.99&", "ifcc_amount=10.9&", "ifcc_amount=010.99&", "ifcc_amount=1%2E00&",
        "ifcc_amount=&", "ifcc_redactedCardNumber=XXXXXXXXXXXX1111&", "ifcc_redactedCardNumber=X1234&",
        "ifcc_redactedCardNumber=4111111111111111&", "ifcc_redactedCardNumber=XXXX111&", "ifcc_cardType=Visa&",
        "ifcc_cardType=Master Card&", "ifcc_cardType=1Visa&", "ifcc_cardType=Vi%73a&", "ifcc_currency=USD&",
        "ifcc_currency=JPY&", "ifcc_currency=usd&", "ifcc_currency=XXY&", "ifcc_transactionId=T-1234&",
        "ifcc_transactionId=T%201&", "ifcc_transactionId=%ZZ&", "ifcc_transactionId=a%00b&",
        "ifcc_transactionId=4111111111111111&", "ifcc_transactionId=&", "ifcc_transactionId=$$x&",
        "ifcc_taxAmount=0.80&", "ifcc_taxAmount=0.8&", "ifcc_taxRate=8.5&", "ifcc_taxRate=08.5&",
        "ifcc_taxRate=8.12345&", "ifcc_tipAmount=2.00&", "ifcc_tipAmount=2&", "$ifcc_amount=10.99&",
        "$ifcc_redactedCardNumber=X1111&", "%24ifcc_cardType=Visa&", "ifcc_other=%ZZ&", "ifcc_amount&",
        "tender_token=tok-0123456789abcdef&", "tender_token=%ZZ&", "tender_token=a b&", "order=42&",
    ]

    @Test("Swipe: what the parser accepts survives callbackURLString and parsing again (property, swipe §2, §3)")
    func swipe() async {
        let tally = Tally()
        let answers = Gen.element(
            of: Self.starts.prefix(3).flatMap { start in
                [
                    "approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111", "approved&ifcc_amount=1.00",
                    "approved&ifcc_redactedCardNumber=X1111", "approved", "declined", "cancelled", "$declined",
                    "$approved&ifcc_amount=$1.00&ifcc_redactedCardNumber=$X1111", "Approved",
                ]
                .map { start + "ifcc_responseType=" + $0 + "&" }
            }
        )
        let inputs = [
            (Gen.element(of: Self.starts), Gen.element(of: Self.swipePieces).array(of: 0...14)),
            (answers, Gen.element(of: Self.swipePairs).array(of: 0...3)),
        ]
        for (starts, pieces) in inputs {
            await propertyCheck(count: 3000, input: starts, pieces) { start, pieces in
                let url = (start ?? "") + pieces.compactMap { $0 }.joined()
                guard let parsed = Self.parsed({ try SwipeResponse(callbackURLString: url) }, url) else { return }
                tally.count()
                // The token travels in the return URL, where the request put it.
                let rebuilt = try parsed.callbackURLString(returnURL: Self.returnURL(token: parsed.correlationToken))
                #expect(try SwipeResponse(callbackURLString: rebuilt) == parsed, "\(url.debugDescription)")
            }
        }
        #expect(tally.accepted >= 300, "\(tally.accepted) of 6,000 URLs are answers")
    }

    /// Pieces of SumUp callbacks, and whole pairs (good ones, and ones each rule refuses).
    static let sumUpPieces = [
        "?", "#", "&", "&&", "=", "=", "&", "smp-status", "smp-tx-code", "foreign-tx-id", "smp-message",
        "smp%2Dstatus", "smp-status\u{301}", "other", "é", "success", "failed", "invalidstate", "TEENSK4W2K",
        "order-123", "Card%20declined", "%ZZ", "%C3%A9", "%FF", "%2", "4111111111111111", "\u{301}", "",
    ]
    static let sumUpPairs = [
        "smp-status=success&", "smp-status=failed&", "smp-status=invalidstate&", "smp-status=Success&",
        "smp-status=succ%65ss&", "smp-status=&", "smp-tx-code=TEENSK4W2K&", "smp-tx-code=T_1-x&",
        "smp-tx-code=T%2D1&", "smp-tx-code=T.1&", "smp-tx-code=4111111111111111&", "smp-tx-code=&",
        "foreign-tx-id=order-123&", "foreign-tx-id=a%20b&", "foreign-tx-id=a b~&", "foreign-tx-id=4111-1111-1111-1111&",
        "smp-message=Card%20declined&", "smp-message=card%204111111111111111&", "smp-message=a%0Ab&",
        "smp-message=a%00b&", "smp-message=%E2%82%AC&", "smp-message&", "other=%C3%A9&",
    ]

    @Test("SumUp: what the parser accepts survives callbackURLString and parsing again (property, sumup §2)")
    func sumUp() async {
        let tally = Tally()
        let inputs = [
            (Gen.element(of: Self.starts), Gen.element(of: Self.sumUpPieces + Self.sumUpPairs).array(of: 0...14)),
            (
                Gen.element(of: Self.starts.prefix(3).map { $0 + "smp-status=success&" }),
                Gen.element(of: Self.sumUpPairs).array(of: 0...4)
            ),
        ]
        for (starts, pieces) in inputs {
            await propertyCheck(count: 3000, input: starts, pieces) { start, pieces in
                let url = (start ?? "") + pieces.compactMap { $0 }.joined()
                guard let parsed = Self.parsed({ try SumUpResponse(callbackURLString: url) }, url) else { return }
                tally.count()
                let rebuilt = try parsed.callbackURLString(callbackURL: "my-app://cb?order=7")
                #expect(try SumUpResponse(callbackURLString: rebuilt) == parsed, "\(url.debugDescription)")
            }
        }
        #expect(tally.accepted >= 500, "\(tally.accepted) of 6,000 URLs are answers")
    }

    // MARK: JSON callbacks (Square, SoftPOS)

    /// Square reply members: usual ones, and every shape that tests a rule (escapes, duplicates, nesting, non-ASCII,
    /// card numbers, wrong types, lengths around the 192-character bound).
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
            #""payment_id":null"#, #""offline_payment_id":[1]"#, #""x":{"y":true}"#, #""st\u0061te":"s""#,
            #""ſtate":"s""#, #""n":-0.5e+3"#, #""n":01"#, #""n":1."#, #""b":false"#, "\"t\":\"tab\tin\"",
            #""s":"\u0000""#, "\"transaction_id\":\"" + String(repeating: "a", count: 192) + "\"",
            "\"transaction_id\":\"" + String(repeating: "a", count: 193) + "\"", #""transaction_id":"T1:2.3_4-5""#,
        ]
    )

    /// A JSON object of `members` in one of several layouts, some of them invalid (a trailing comma, an array,
    /// text after the value).
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

    /// Other parameters beside the answer: readable and not, the token once, twice, or not a token.
    static let extraParameters = [
        "", "&x=1", "&x=%ZZ", "&x=%C3%A9", "&x=%FF", "&%64ata=x", "&flag", "&&", "#frag", "&x=é", "&x=%7E",
        "&tender_token=tok_9", "&tender_token=a&tender_token=b", "&tender_token", "&tender_token=%41",
        "&tender_token=4111111111111111", "&tender_token=a b",
    ]

    @Test("Square: what the parser accepts survives callbackURLString and parsing again (property, square §2.2)")
    func square() async {
        let tally = Tally()
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
            var members = members
            if let status = status ?? nil { members.insert(status, at: members.count / 2) }
            let url =
                prefix + (encoding == 5 ? "data&" : "") + "data="
                + Self.encoded(Self.json(members, layout), encoding) + ((extra ?? nil) ?? "")
            guard let parsed = Self.parsed({ try SquareResponse(callbackURLString: url) }, url) else { return }
            tally.count()
            let callback = parsed.hasCallbackMarker ? "my-app://cb/square_request" : "my-app://cb"
            let rebuilt = try parsed.callbackURLString(callbackURL: callback)
            #expect(try SquareResponse(callbackURLString: rebuilt) == parsed, "\(url)")
        }
        #expect(tally.accepted >= 100, "\(tally.accepted) of 2,000 URLs are replies")
    }

    /// Each pool repeats its usual entries, so that most inputs are SoftPOS answers.
    static let refusalCodes =
        Array(repeating: [#""refusalCode":"00""#, #""refusalCode":"105""#], count: 6).flatMap { $0 } + [
            #""refusalCode":5"#, #""refusalCode":"""#, #""refusalCode":"abcdefghi""#, #""refusalCode":"0-0""#,
            #""refusalCode":"0\u0030""#,
        ]
    static let transactionIDs =
        Array(repeating: [#""transactionId":"449333""#], count: 12).flatMap { $0 } + [
            #""transactionId":"""#, #""transactionId":"4111111111111111""#, #""transactionId":"a b""#,
            #""transactionId":"x\/y""#, #""transactionId":7"#,
            "\"transactionId\":\"" + String(repeating: "7", count: 65) + "\"",
            "\"transactionId\":\"" + String(repeating: "7", count: 64) + "\"", #""transactionId":"a-b_c.d""#,
            #""transactionId":"12345678-1234-1234-1234-123456789012""#,
        ]
    static let customMessages =
        Array(repeating: [#""customMessage":{"f39":"000","isoStan":"000206"}"#], count: 20).flatMap { $0 } + [
            #""customMessage":{"f39":"000","isoStan":"000206","transactionTime":"211812","transactionDate":"250209"}"#,
            #""customMessage":{}"#, #""customMessage":{"f39":12,"n":-1.5}"#,
            #""customMessage":{"pan":"4111 1111 1111 1111"}"#, #""customMessage":{"é":"x"}"#,
            #""customMessage":{"":"x"}"#, #""customMessage":{"4111111111111111":"x"}"#, #""customMessage":{"a":"é"}"#,
            #""customMessage":{"a":"\n"}"#, #""customMessage":{"a":"1","a":"2"}"#, #""customMessage":{"a":[]}"#,
            #""customMessage":{"a":true}"#, #""customMessage":{"a":""}"#, #""customMessage":{"a\u0062":"x"}"#,
            #""customMessage":"x""#, #""customMessage":{"a":"x",}"#, #""customMessage":{"a":01}"#,
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
            #""description":"d""#, #""error":{"description":"read","softposReadError":"readCancelled"}"#,
        ]
    )

    @Test("SoftPOS: what the parser accepts survives callbackURLString and parsing again (property, softpos §2)")
    func softPOS() async {
        let tally = Tally()
        let bases = [
            "testapp://response?", "testapp://response?", "my-app://done?order=7&", "my-app://done?tender_token=tok_9&",
            "my-app://done?tender_token=tok_9&", "1x://r?", "my-app://done?tender_token=a&tender_token=a&",
            "my-app://done?error=x&", "my-app://done#f?",
        ]
        await propertyCheck(
            count: 3000,
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
            var hostMembers = [members.0, members.1, members.2, members.3].compactMap { $0 ?? nil }
            if layout == 1 { hostMembers.reverse() }
            let host = "\"result\":" + Self.json(hostMembers, layout == 4 ? 0 : layout)
            var top = topMembers.filter { !$0.isEmpty }
            top.insert(host, at: top.isEmpty ? 0 : hostMembers.count % (top.count + 1))
            let json = Self.json(top, layout == 2 || layout == 3 ? 0 : layout)
            let name = encoding == 5 ? "error" : "result"
            let url = base + name + "=" + Self.encoded(json, encoding) + ((extra ?? nil) ?? "")
            guard let parsed = Self.parsed({ try SoftPOSResponse(callbackURLString: url) }, url) else { return }
            tally.count()
            let rebuilt = try parsed.callbackURLString(responseURL: Self.returnURL(token: parsed.correlationToken))
            #expect(try SoftPOSResponse(callbackURLString: rebuilt) == parsed, "\(url)")
        }
        #expect(tally.accepted >= 60, "\(tally.accepted) of 3,000 URLs are answers")
    }

    // MARK: Requests

    /// Text that tests the escaping: JSON escapes, `/`, controls, NUL, non-ASCII, combining marks.
    static let awkwardText = Gen.element(of: [
        "", "a", "blue shoes", "a/b", "\"q\"", "back\\slash", "tab\there", "line\nbreak", "\u{1}\u{1F}\u{7F}",
        "nul\u{0}", "é", "👍🏽", "e\u{301}", "~._-", "%41", "+ &=?#", "4111 1111 1111 1111", "\r\n", "\u{8}\u{C}",
    ])
    static let someText = Gen.oneOf(
        awkwardText.compactMap { $0 },
        Gen.uint8(in: 0...255).array(of: 0...12).map { String(decoding: $0, as: UTF8.self) }
    )

    /// Callback URLs, usual and unusual, for the `square_request` marking and the POS-scheme rule.
    static let callbackURLs = [
        "my-app://perform-callback", "my-app://", "my-app://?hello=world", "my-app://request/with/info",
        "my-app://request?hello=world", "my-app://a/", "my-app://h/%C3%A9", "my-app://u@:80",
        "my-app://u@host:80/p?q#f", "my-app://[::1]/x", "my-app:callback", "my-app:///x", "my-app://h#frag",
        "SOFTPOS://x", "square-commerce-v1://payment", "Sumupmerchant://x", "my-app://h/x%20y/", "a+b.c-d://h",
    ]

    @Test("Square: a request either is refused with SquareError or its URL decodes to a request of the same URL")
    func squareRequests() async {
        let dialects: [SquareRequest.Dialect] = [
            .current, .pointOfSaleSDK3_4, .pointOfSaleSDK3_3_2, .pointOfSaleSDK3_0, .registerSDK1_0, .mobileWeb,
            SquareRequest.Dialect(
                sdkVersion: "3/5\u{1}",
                apiVersion: "",
                sendsCardEntryAndReceiptOptions: true,
                marksCallbackURL: true
            ),
        ]
        let built = Tally()
        await propertyCheck(
            count: 400,
            input: Self.someText,
            Gen.element(of: Self.callbackURLs),
            // Up to a tenth above the largest payment: about one in eleven is above it, and refused.
            Gen.int(in: -2...(Money.maximumPaymentMinorUnits + Money.maximumPaymentMinorUnits / 10)),
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
                locationID: optionals.1.flatMap { SquareLocationID($0) },
                notes: optionals.2,
                customerID: optionals.3,
                supportedTenderTypes: tenders,
                clearsDefaultFees: flags.0,
                returnsAutomaticallyAfterPayment: flags.1,
                disablesKeyedInCardEntry: flags.2,
                skipsReceipt: flags.3,
                dialect: dialect
            )
            let url: String
            do { url = try request.urlString() } catch {
                #expect(error is SquareError, "\(error)")
                return
            }
            built.count()
            #expect((try? SquareRequest(urlString: url).urlString()) == url)
        }
        #expect(built.accepted >= 100, "\(built.accepted) of 400 requests are built")
    }

    @Test("SoftPOS: a request either is refused with SoftPOSError or its URL decodes back to it (softpos §1)")
    func softPOSRequests() async {
        let currencies: [Currency] = [.eur, .usd]
        let built = Tally()
        // About one in eight of these requests builds: 1,200 build about 150, far from the 60 asked (300 built 30 to
        // 43, and once fewer than 30).
        await propertyCheck(
            count: 1200,
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
            let url: String
            do { url = try request.urlString() } catch {
                #expect(error is SoftPOSError, "\(error)")
                return
            }
            built.count()
            #expect((try? SoftPOSRequest(urlString: url)) == request)
        }
        #expect(built.accepted >= 60, "\(built.accepted) of 1,200 requests are built")
    }

    // MARK: Support

    /// The value of `name=` in a callback: JSON as it is, its percent-encoding (with a stray `%` or lower-case hex
    /// to refuse), or the encoding.
    static func encoded(_ json: String, _ encoding: Int) -> String {
        switch encoding {
        case 0: return json  // not encoded at all
        case 1: return PercentEncoding.encode(json) + "%"
        case 2: return PercentEncoding.encode(json).lowercased()
        default: return PercentEncoding.encode(json)
        }
    }

    /// A callback URL of the caller's app carrying `token` the way the hand-off puts it there.
    static func returnURL(token: String?) -> String {
        "my-app://cb?order=7" + (token.map { "&tender_token=" + PercentEncoding.encode($0) } ?? "")
    }

    /// The response `parse` makes, or `nil` when it refuses the URL, with a `TenderError` whose message shows no
    /// card number (SEC-9).
    static func parsed<Response>(_ parse: () throws -> Response, _ url: String) -> Response? {
        do {
            return try parse()
        } catch {
            let refusal = error as? any TenderError
            #expect(refusal != nil, "\(error)")
            #expect(refusal.map { !CardNumberScreen.containsCardNumber($0.message) } ?? true, "\(url)")
            return nil
        }
    }
}

/// Counts, across the runs of a property, how many inputs a parser or builder accepted.
private final class Tally: Sendable {
    private let value = Mutex(0)

    var accepted: Int { value.withLock { $0 } }

    func count() {
        value.withLock { $0 += 1 }
    }
}
