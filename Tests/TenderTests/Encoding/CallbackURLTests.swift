import Foundation
import Testing

@testable import Tender

/// A callback URL read once (issue 33): detection, each provider's parser and the hand-off's endpoint check (SEC-5)
/// read the one value, so that none of them can see another URL than the others.
@Suite("A callback URL read once")
struct CallbackURLTests {
    @Test("the parts are the URL's, as written, and its description shows no query (SEC-8)")
    func parts() throws {
        let url = try CallbackURL("My-App://Me@Done.example:8080/cb/square_request?tender_token=tok-1&data=%7B%7D#f")
        #expect(url.scheme == "My-App")
        #expect(url.authority == "Me@Done.example:8080")
        #expect(url.host == "Done.example")
        #expect(url.path == "/cb/square_request")
        #expect(url.endpoint == "My-App://Me@Done.example:8080/cb/square_request")
        #expect(try url.query() == ["tender_token": "tok-1", "data": "{}"])
        #expect("\(url)" == "My-App://Me@Done.example:8080/cb/square_request (query redacted)")
        #expect(!"\(url)".contains("tok-1"))
        #expect(throws: QueryError.self) { try CallbackURL("no scheme here") }
    }

    @Test("a callback arrives on an issued endpoint: scheme and host in any case, the path exactly (SEC-5)")
    func endpoints() throws {
        let issued = ["my-app://done/square_request", "other://x"]
        for url in [
            "my-app://done/square_request?data=x", "MY-APP://DONE/square_request", "my-app://done/square_request#f",
        ] {
            #expect(try CallbackURL(url).isOnEndpoint(anyOf: issued), "\(url)")
        }
        for url in [
            "my-app://done/Square_Request?data=x", "my-app://done/square_request/", "my-app://evil/square_request",
            "my-app:done/square_request", "evil-app://done/square_request",
        ] {
            #expect(try !CallbackURL(url).isOnEndpoint(anyOf: issued), "\(url)")
        }
        #expect(try !CallbackURL("my-app://done").isOnEndpoint(anyOf: ["not a URL", ""]))
    }

    @Test("a query that does not decode still tells whose callback it is, and its parser says why (SEC-6)")
    func undecodableQuery() throws {
        let url = try CallbackURL("my-app://cb?data=%7B%ZZ&x=1")
        #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: .square, direction: .response))
        let error = #expect(throws: QueryError.self) { try url.query() }
        #expect(error?.code == .invalidPercentEscape)
        #expect(error?.message.hasPrefix("In the value of 'data'") == true)
        let square = #expect(throws: SquareError.self) { try SquareResponse(callbackURL: url) }
        #expect(square?.code == .missingOrInvalidResponseData)
        #expect(square?.message == "The callback URL cannot be read: " + (error?.message ?? ""))
    }

    /// Callbacks of every provider, good and bad.
    static let callbacks = [
        "my-app://cb/square_request?data="
            + PercentEncoding.encode(#"{"status":"ok","transaction_id":"T1","state":"s"}"#),
        "my-app://cb?data=" + PercentEncoding.encode(#"{"status":"ok","transaction_id":123}"#),
        "my-app://cb?data=%ZZ", "my-app://cb?data=1&data=2",
        "my-app://done?tender_token=tok-1&ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XX1111",
        "my-app://done?ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111",
        "my-app://done?%24ifcc_responseType=declined", "my-app://done?ifcc_responseType=declined&ifcc_amount=1.00",
        "testapp://response?result="
            + PercentEncoding.encode(#"{"result":{"refusalCode":"00","transactionId":"1","customMessage":{}}}"#),
        "testapp://response?error="
            + PercentEncoding.encode(#"{"description":"d","softposReadError":"readCancelled"}"#),
        "samplepaymentapp://?smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123",
        "samplepaymentapp://?smp-status=failed&smp-receipt-sent=", "my-app://oauth?error=access_denied",
        "square-commerce-v1://payment/create?data=%7B%7D", "my-app://cb?" + String(repeating: "x", count: 70_000),
    ]

    @Test("parsing the value read once gives what parsing the text gives, answer or error, for every provider")
    func sameAnswerEitherWay() throws {
        func result(_ parse: () throws -> any PaymentCallback) -> String {
            do { return "\(try parse().outcome)" } catch { return "error: \(error)" }
        }
        for text in Self.callbacks {
            let url = try CallbackURL(text)
            #expect(PaymentURLKind.detect(url) == PaymentURLKind.detect(text), "\(text.prefix(60))")
            #expect(
                result { try PaymentCallbacks.parse(url) } == result { try PaymentCallbacks.parse(text) },
                "\(text.prefix(60))"
            )
            for type in PaymentCallbacks.types.values {
                #expect(
                    result { try type.init(callbackURL: url) } == result { try type.init(callbackURLString: text) },
                    "\(type) \(text.prefix(60))"
                )
            }
        }
    }
}
