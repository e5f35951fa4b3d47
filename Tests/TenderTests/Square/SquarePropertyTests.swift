import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("Square properties")
struct SquarePropertyTests {
    /// Text of any Unicode content but NUL (invalid bytes become U+FFFD), short enough to keep runs fast.
    static let text = Gen.uint8(in: 1...255).array(of: 0...20).map { String(decoding: $0, as: UTF8.self) }
    static let word = Gen.letterOrNumber.string(of: 1...12)
    static let dialects: [SquareRequest.Dialect] = [
        .current, .pointOfSaleSDK3_4, .pointOfSaleSDK3_3_2, .pointOfSaleSDK3_1, .pointOfSaleSDK3_0, .registerSDK2_1,
        .registerSDK2_0, .registerSDK1_1, .registerSDK1_0, .mobileWeb,
    ]

    @Test("any valid request encodes to a URL that decodes back to the same request")
    func requestRoundTrip() async {
        let callbacks = zip(Self.word, Self.word.array(of: 0...3), Self.word.optional).map { host, path, query in
            "app-\(host.lowercased())://\(host)" + path.map { "/" + $0 }.joined() + (query.map { "?q=" + $0 } ?? "")
        }
        let optionals = zip(Self.text.optional, Self.text.optional, Self.text.optional, Self.text.optional)
        let flags = zip(Gen.bool, Gen.bool, Gen.bool, Gen.bool)
        await propertyCheck(
            count: 300,
            input: Self.word,
            callbacks,
            Gen.int(in: 1...Money.maximumPaymentMinorUnits),
            Gen.element(of: Currency.allCurrencies),
            optionals,
            Gen<SquareTenderTypes>.optionSet(of: .all),
            flags,
            Gen.element(of: Self.dialects)
        ) { applicationID, callback, minorUnits, currency, optionals, tenders, flags, dialect in
            guard let currency, let dialect, let callbackURL = URL(string: callback) else { return }
            var request = SquareRequest(
                applicationID: applicationID,
                callbackURL: callbackURL,
                amount: Money(minorUnits: minorUnits, currency: currency),
                state: optionals.0,
                locationID: optionals.1.flatMap { SquareLocationID($0) },
                notes: optionals.2,
                customerID: optionals.3,
                supportedTenderTypes: tenders,
                clearsDefaultFees: flags.0,
                returnsAutomaticallyAfterPayment: flags.1,
                disablesKeyedInCardEntry: dialect.sendsCardEntryAndReceiptOptions && flags.2,
                skipsReceipt: dialect.sendsCardEntryAndReceiptOptions && flags.3,
                dialect: dialect
            )
            request.supportedTenderTypes = tenders
            guard let url = try? request.url() else {
                Issue.record("a valid request did not encode")
                return
            }
            #expect((try? SquareRequest(url: url)) == request)
        }
    }

    @Test("any byte string given to the response parser either parses or throws, never crashes")
    func responseParserTotal() async {
        // Bytes biased towards the characters that matter in a callback URL.
        let interesting =
            Array(#"{}[]":,%data=&?#/statuserrorok_ 0123456789ABCDEFabcdef\u+"#.utf8) + [0xC3, 0xFF, 0x00]
        let bytes = Gen.element(of: interesting).array(of: 0...80)
        await propertyCheck(count: 3000, input: bytes, Gen.bool) { bytes, encodeIt in
            let text = String(decoding: bytes.compactMap { $0 }, as: UTF8.self)
            let url = encodeIt ? "my-app://cb?data=" + PercentEncoding.encode(text) : "my-app://cb?" + text
            _ = try? SquareResponse(callbackURLString: url)
            _ = try? SquareRequest(
                urlString: "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(text)
            )
            _ = PaymentURLKind.detect(url)
        }
    }

    @Test("any reply Point of Sale could send parses to what was sent")
    func responseRoundTrip() async {
        // Square IDs (SquareIDRule) and error codes (SquareResponse.ErrorCode.shape) have alphabets of their own.
        let ids = Gen.element(of: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"))
            .array(of: 1...40).map { String($0.compactMap { $0 }) }
        let codes = Gen.element(of: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:"))
            .array(of: 1...40).map { String($0.compactMap { $0 }) }
        await propertyCheck(count: 500, input: Gen.bool, ids.optional, ids.optional, Self.text.optional, codes) {
            success,
            transactionID,
            clientID,
            state,
            code in
            var object = JSONObject()
            object["status"] = .string(success ? "ok" : "error")
            if success {
                if let transactionID { object["transaction_id"] = .string(transactionID) }
                if let clientID { object["client_transaction_id"] = .string(clientID) }
            } else {
                object["error_code"] = .string(code)
            }
            if let state { object["state"] = .string(state) }
            let url = "my-app://cb/square_request?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
            let expected = SquareResponse(
                transactionID: success ? transactionID : nil,
                clientTransactionID: success ? clientID : nil,
                state: state,
                errorCode: success ? nil : .init(rawValue: code)
            )
            #expect((try? SquareResponse(callbackURLString: url)) == expected)
        }
    }
}
