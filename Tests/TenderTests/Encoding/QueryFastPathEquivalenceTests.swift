import Foundation
import PropertyBased
import Testing

@testable import Tender

/// The Swipe and SumUp fast paths against the general code they stand in for: each fast path either gives up
/// (and the general code runs) or gives exactly what the general code gives.
@Suite("Fast paths agree with the general code (Swipe, SumUp, query text)")
struct QueryFastPathEquivalenceTests {
    // MARK: Callback readers

    /// Pieces of callback URLs: every result parameter, FileMaker's `$` (literal and `%24`), the token parameter,
    /// other parameters, escapes good and bad, non-ASCII names and values, delimiters, and valid and invalid
    /// starts.
    static let starts = [
        "my-app://cb?", "my-app://cb/?x=1&", "com-companyname-demoapp://action/?", "my-app:?", "1bad://cb?",
        "no-scheme?", "my-app://cb#f?", "",
    ]

    static let swipePieces = [
        "?", "#", "&", "&&", "=", "=", "&", "ifcc_responseType", "$ifcc_responseType", "%24ifcc_responseType",
        "ifcc_amount", "$ifcc_amount",
        "ifcc_redactedCardNumber", "ifcc_cardType", "ifcc_currency", "ifcc_transactionId", "ifcc_taxAmount",
        "ifcc_taxRate", "ifcc_tipAmount", "ifcc_other", "$ifcc_", "ifcc", "ifcc%5Famount", "ifcc_amount\u{301}",
        "tender_token", "order", "é", "approved", "$approved", "declined", "cancelled", "error", "10.99", "XXXX1111",
        "Visa", "USD", "T-1", "8.5", "%20", "%ZZ", "%C3%A9", "%FF", "%2", "$", "é", "\u{301}", "tok-0123456789abcdef",
    ]

    static let sumUpPieces = [
        "?", "#", "&", "&&", "=", "=", "&",
        "smp-status", "smp-tx-code", "foreign-tx-id", "smp-message", "smp%2Dstatus", "smp-status\u{301}", "other",
        "é", "success", "failed", "invalidstate", "TEENSK4W2K", "order-123", "Card%20declined", "%ZZ", "%C3%A9",
        "%FF", "%2", "4111111111111111", "é", "\u{301}", "",
        // Whole pairs, so that many URLs are answers: good ones, and ones each rule refuses.
        "smp-status=success&", "smp-status=failed&", "smp-status=invalidstate&", "smp-status=Success&",
        "smp-status=succ%65ss&", "smp-tx-code=TEENSK4W2K&", "smp-tx-code=T_1-x&", "smp-tx-code=T%2D1&",
        "smp-tx-code=T.1&", "smp-tx-code=4111111111111111&", "foreign-tx-id=order-123&", "foreign-tx-id=a%20b&",
        "foreign-tx-id=a b~&", "foreign-tx-id=4111-1111-1111-1111&", "smp-message=Card%20declined&",
        "smp-message=card%204111111111111111&", "smp-message=a%0Ab&", "smp-message=a%00b&", "smp-message=%E2%82%AC&",
    ]

    /// Whole Swipe pairs, good ones and ones each rule refuses, so that many URLs are answers.
    static let swipePairs = [
        "ifcc_amount=10.99&", "ifcc_amount=0.99&", "ifcc_amount=10.9&", "ifcc_amount=010.99&", "ifcc_amount=1%2E00&",
        "ifcc_amount=&", "ifcc_redactedCardNumber=XXXXXXXXXXXX1111&", "ifcc_redactedCardNumber=X1234&",
        "ifcc_redactedCardNumber=4111111111111111&", "ifcc_redactedCardNumber=XXXX111&", "ifcc_cardType=Visa&",
        "ifcc_cardType=Master Card&", "ifcc_cardType=1Visa&", "ifcc_cardType=Vi%73a&", "ifcc_currency=USD&",
        "ifcc_currency=JPY&", "ifcc_currency=usd&", "ifcc_currency=XXY&", "ifcc_transactionId=T-1234&",
        "ifcc_transactionId=T%201&", "ifcc_transactionId=%ZZ&", "ifcc_transactionId=a%00b&",
        "ifcc_transactionId=4111111111111111&", "ifcc_transactionId=&", "ifcc_taxAmount=0.80&",
        "ifcc_taxAmount=0.8&", "ifcc_taxRate=8.5&", "ifcc_taxRate=08.5&", "ifcc_taxRate=8.12345&",
        "ifcc_tipAmount=2.00&", "ifcc_tipAmount=2&", "$ifcc_amount=10.99&", "$ifcc_redactedCardNumber=X1111&",
        "%24ifcc_cardType=Visa&", "ifcc_other=%ZZ&", "ifcc_amount&", "tender_token=tok-0123456789abcdef&",
        "tender_token=%ZZ&", "order=42&",
    ]

    @Test("Swipe: the one-pass parser gives up or makes the response the general parser makes (property)")
    func swipeParsers() async {
        let tally = Tally()
        // Any pieces, and (so that many URLs are answers) whole pairs after a valid start and a response type (an
        // approved one with its amount, its card number, both or neither).
        let validStarts = Gen.element(
            of: Self.starts.prefix(3).flatMap { start in
                [
                    "approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111", "approved&ifcc_amount=1.00",
                    "approved&ifcc_redactedCardNumber=X1111", "approved", "declined", "cancelled", "$declined",
                    "Approved",
                ]
                .map { start + "ifcc_responseType=" + $0 + "&" }
            }
        )
        let inputs = [
            (Gen.element(of: Self.starts), Gen.element(of: Self.swipePieces).array(of: 0...14)),
            (validStarts, Gen.element(of: Self.swipePairs).array(of: 0...3)),
        ]
        for (starts, pieces) in inputs {
            await propertyCheck(count: 3000, input: starts, pieces) { start, pieces in
                let url = (start ?? "") + pieces.compactMap { $0 }.joined()
                let general = try? SwipeResponse(generalCallbackURLString: url)
                tally.count(general != nil)
                guard let fast = SwipeResponse.parsedOnFastPath(url) else { return }
                tally.countFast()
                #expect(general == fast, "\(url.debugDescription)")
            }
        }
        // The property means something only if there are many answers, and the fast parser makes a good share of
        // them.
        #expect(tally.readable >= 300, "\(tally.readable) of 6,000 URLs are answers")
        #expect(tally.fast * 3 >= tally.readable, "fast \(tally.fast) of \(tally.readable) readable")
    }

    @Test("SumUp: the one-pass parser gives up or makes the response the general parser makes (property)")
    func sumUpParsers() async {
        let tally = Tally()
        // Any pieces, and (so that many URLs are answers) whole pairs after a valid start and a status.
        let validStarts = Gen.element(of: Self.starts.prefix(3).map { $0 + "smp-status=success&" })
        let pairs = Gen.element(of: Self.sumUpPieces.filter { $0.hasSuffix("&") && $0.count > 2 }).array(of: 0...4)
        let inputs = [
            (Gen.element(of: Self.starts), Gen.element(of: Self.sumUpPieces).array(of: 0...14)),
            (validStarts, pairs),
        ]
        for (starts, pieces) in inputs {
            await propertyCheck(count: 3000, input: starts, pieces) { start, pieces in
                let url = (start ?? "") + pieces.compactMap { $0 }.joined()
                let general = try? SumUpResponse(generalCallbackURLString: url)
                tally.count(general != nil)
                guard let fast = SumUpResponse.parsedOnFastPath(url) else { return }
                tally.countFast()
                #expect(general == fast, "\(url.debugDescription)")
            }
        }
        // The property means something only if there are many answers, and the fast parser makes a good share of
        // them.
        #expect(tally.readable >= 500, "\(tally.readable) of 6,000 URLs are answers")
        #expect(tally.fast * 3 >= tally.readable, "fast \(tally.fast) of \(tally.readable) readable")
    }

    @Test("the common callbacks take the one-pass readers")
    func commonCallbacksAreFast() throws {
        let swipe = [
            SwipeResponseTests.vendorSample,
            "my-app://done?tender_token=abc_DEF-123&ifcc_responseType=declined",
            "my-app://done/?order=42&ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=X1234"
                + "&ifcc_cardType=Visa&ifcc_transactionId=T%201#frag",
        ]
        for url in swipe {
            let fast = try #require(SwipeResponse.parsedOnFastPath(url), "\(url)")
            #expect(fast == (try SwipeResponse(generalCallbackURLString: url)))
        }
        let sumUp = [
            "samplepaymentapp://?smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123",
            "my-app://done?smp-status=failed&smp-message=Card%20declined%204111111111111111&other=%C3%A9",
            "my-app://done?foreign-tx-id=&smp-status=invalidstate&smp-tx-code=#smp-status=x",
        ]
        for url in sumUp {
            let fast = try #require(SumUpResponse.parsedOnFastPath(url), "\(url)")
            #expect(fast == (try SumUpResponse(generalCallbackURLString: url)))
        }
    }

    @Test("every Swipe result field is found by the bytes of its name, and only by them")
    func swipeFieldNames() async {
        for field in SwipeResponse.ResultField.allCases {
            #expect(field.staticRawValue.description == field.rawValue)
            let bytes = Array(field.rawValue.utf8)
            let found = bytes.withUnsafeBufferPointer { SwipeResponse.ResultField($0[...]) }
            #expect(found == field)
        }
        let letters = "aemnortuyACNRTIdpxc"
        await propertyCheck(count: 3000, input: Gen.element(of: Array(letters)).array(of: 0...19)) { characters in
            let name = String(characters.compactMap { $0 })
            let bytes = Array(name.utf8)
            let found = bytes.withUnsafeBufferPointer { SwipeResponse.ResultField($0[...]) }
            #expect(found == SwipeResponse.ResultField(rawValue: name))
        }
    }

    /// Checks ``StaticRawValues`` for one enumeration: each static spelling is the raw value, and matching finds
    /// what `init(rawValue:)` finds, for every raw value, near misses of each, and random text of their letters.
    static func checkStaticRawValues<Value: StaticRawValues & Equatable>(_: Value.Type) async {
        var texts = ["", "$", "é", "approvéd", "success\u{0}", "\u{212A}", "\u{037E}", "\u{1FEF}"]
        for value in Value.allCases {
            let raw = value.rawValue
            #expect(value.staticRawValue.description == raw)
            // ASCII without the three characters that text beyond ASCII can be canonically equivalent to.
            #expect(raw.unicodeScalars.allSatisfy { $0.isASCII && !"K;`".unicodeScalars.contains($0) })
            texts += [raw, raw.uppercased(), raw.capitalized, "$" + raw, raw + " ", " " + raw, String(raw.dropLast())]
            texts += [String(raw.dropFirst()), raw + raw, raw.replacingOccurrences(of: "e", with: "é")]
        }
        for text in texts { #expect(Value(matching: text) == Value(rawValue: text), "\(text)") }
        let letters = Array(Set(Value.allCases.flatMap(\.rawValue)))
        await propertyCheck(count: 1000, input: Gen.element(of: letters).array(of: 0...13)) { characters in
            let text = String(characters.compactMap { $0 })
            #expect(Value(matching: text) == Value(rawValue: text))
        }
    }

    @Test("enumerations are matched by the bytes of their raw values exactly as init(rawValue:) matches them")
    func staticRawValues() async {
        await Self.checkStaticRawValues(SwipeResponse.ResponseType.self)
        await Self.checkStaticRawValues(SwipeResponse.ResultField.self)
        await Self.checkStaticRawValues(SumUpResponse.Status.self)
    }

    // MARK: Request writers

    /// The query text the way Tender wrote it before the one-buffer writer: each name and value through
    /// ``PercentEncoding/encode(_:)``, joined with `=` and `&`.
    static func referenceQuery(_ query: QueryParameters) -> String {
        query.items.map { item in
            PercentEncoding.encode(item.name) + (item.value.map { "=" + PercentEncoding.encode($0) } ?? "")
        }
        .joined(separator: "&")
    }

    @Test("Swipe: the URL is the prefix and the encoded parameters, as before (property)")
    func swipeWriter() async {
        await propertyCheck(count: 500, input: SwipeRequestTests.randomRequest) { request in
            guard let query = try? request.queryParameters() else {
                #expect(throws: SwipeError.self) { try request.urlString() }
                return
            }
            let url = try? request.urlString()
            #expect(url == SwipeRequest.urlPrefix + Self.referenceQuery(query))
        }
    }

    @Test("SumUp: the URL is the prefix and the encoded parameters, as before (property)")
    func sumUpWriter() async {
        await propertyCheck(count: 500, input: SumUpRequestTests.randomRequest) { request in
            guard let query = try? request.queryParameters() else {
                #expect(throws: SumUpError.self) { try request.urlString() }
                return
            }
            let url = try? request.urlString()
            #expect(url == SumUpRequest.urlPrefix + Self.referenceQuery(query))
        }
    }

    @Test("query text: the one-buffer writer encodes as PercentEncoding.encode does (property)")
    func queryText() async {
        let bytes = Gen.uint8().array(of: 0...40)
        await propertyCheck(count: 2000, input: bytes, bytes, Gen.bool()) { name, value, hasValue in
            let name = String(decoding: name, as: UTF8.self)
            let value = hasValue ? String(decoding: value, as: UTF8.self) : nil
            let query = QueryParameters([.init(name: name, value: value), .init(name: "b", value: "+ &")])
            #expect(query.percentEncodedQuery == Self.referenceQuery(query))
            let written = QueryText.make(prefix: "s://h?") { sink in
                for item in query.items { sink.add(item.name, item.value) }
            }
            #expect(written == "s://h?" + Self.referenceQuery(query))
        }
        #expect(QueryParameters().percentEncodedQuery == "")
        #expect(QueryText.make(prefix: "s://h?") { $0.add("a" as StaticString, "é") } == "s://h?a=%C3%A9")
    }

    @Test("the unreserved set as bit masks is A–Z a–z 0–9 - . _ ~, byte for byte")
    func unreservedBytes() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PercentEncoding.isUnreserved(byte) == unreserved.contains(byte), "\(byte)")
        }
    }

    @Test("the scheme bytes as bit masks are letters, digits, + - ., byte for byte")
    func schemeBytes() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-.".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(URLParts.isSchemeByte(byte) == allowed.contains(byte), "\(byte)")
        }
    }

    @Test("the callback URL rule decided on the scheme's bytes says what the general rule says, for any URL (property)")
    func callbackURLRules() async {
        #expect(PaymentProvider.all.allSatisfy { $0.appURLScheme?.utf8.allSatisfy { $0 < 0x80 } ?? true })
        let pieces = [
            "my-app", "SQUARE-COMMERCE-V1", "square-commerce-v1", "SoftPOS", "softpos", "sumupmerchant",
            "SumUpMerchant", "com-appninjas-iswipe", "Com-AppNinjas-iSwipe", "1x", "a+b.c", "é", "\u{301}", " ", ":",
            "://", "/", "?", "#", "x", "",
        ]
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).array(of: 0...5)) { pieces in
            let url = pieces.compactMap { $0 }.joined()
            #expect(
                CallbackURLRules.problem(with: url, named: "returnURL")
                    == CallbackURLRules.generalProblem(with: url, named: "returnURL"),
                "\(url.debugDescription)"
            )
        }
    }

    @Test("two-decimal text is written as before: whole part, '.', two fraction digits")
    func twoDecimalText() async {
        func reference(_ hundredths: Int) -> String {
            "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
        }
        for hundredths in Array(0...2_000) + [9_999, 10_000, 99_999, 100_000, 999_999_999_999, Int.max] {
            #expect(TwoDecimalAmount.text(hundredths: hundredths) == reference(hundredths))
        }
        await propertyCheck(count: 2000, input: Gen.int(in: 0...Int.max)) { hundredths in
            #expect(TwoDecimalAmount.text(hundredths: hundredths) == reference(hundredths))
        }
    }

    @Test("small values are made as the same strings as String(decoding:as:)")
    func smallText() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...20)) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)  // valid UTF-8, as the scanner's input always is
            let valid = Array(text.utf8)
            let made = valid.withUnsafeBufferPointer { CallbackQueryScanner.text($0) }
            #expect(made == text)
            #expect(Array(made.utf8) == valid)
        }
    }
}

/// Counts, across the runs of a property, how many inputs the general reader read and how many the fast one did.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var readable = 0
    private(set) var fast = 0

    func count(_ isReadable: Bool) {
        lock.withLock { readable += isReadable ? 1 : 0 }
    }

    func countFast() {
        lock.withLock { fast += 1 }
    }
}
