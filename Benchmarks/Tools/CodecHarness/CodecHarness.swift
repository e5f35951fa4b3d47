public import Foundation
import Tender

// What the codec benchmarks and the CodecPairs tool share: each provider's request and callback, Tender's builder and
// parser, and the Foundation baseline beside them (docs/PERFORMANCE.md, "How each figure is made").

/// Building each provider's request URL and parsing its callback: Tender beside the Foundation baseline, written
/// the way the official SDKs and the vendors' samples do it (JSONSerialization and `addingPercentEncoding` to
/// build, URLComponents and JSONSerialization to parse). The inputs are the vendors' own examples.
///
/// Before anything is measured, each baseline's result is checked against Tender's (the same request decoded back,
/// the same fields read), so that both sides do the same job.
public enum Codecs {
    /// The four providers' codecs, in the order of the tables.
    public static let all = [square, swipe, softPOS, sumUp]

    /// What both parsers read from a callback: enough to act on it.
    public struct Reply: Equatable, Sendable {
        /// The outcome: Square's `ok` or `error`, the others' status or refusal code.
        public var status: String
        /// The provider's transaction identifier.
        public var transactionID: String?
        /// What ties the callback to its payment: the correlation token, Square's `state`, SumUp's foreign id.
        public var token: String?
        /// Square's error code, when it reports one.
        public var errorCode: String?
    }

    /// One provider's pair of builders and pair of parsers.
    public struct Codec: Sendable {
        /// The provider's name, as in the tables.
        public var name: String
        /// Tender's `url()` of the request, the request made anew each time.
        public var build: @Sendable () throws -> URL
        /// The same request's URL as text (`urlString()`), without `URL(string:)`.
        public var buildText: @Sendable () throws -> String
        /// The same request's URL text built the way the official SDKs do, before they make a `URL` of it.
        public var buildTextWithFoundation: @Sendable () -> String
        /// Decodes a request URL with Tender, to check that the baseline built the same request.
        public var decodeRequest: @Sendable (String) throws -> AnyHashable
        /// The callback both parsers read: the vendor's sample answer.
        public var callback: String
        /// Tender's parser of ``callback``.
        public var parse: @Sendable (String) throws -> Reply
        /// The same callback read the way the official SDKs do; `nil` when it cannot be read.
        public var parseWithFoundation: @Sendable (String) -> Reply?

        /// The same request built the way the official SDKs do, into a `URL`.
        public func buildWithFoundation() -> URL {
            URL(string: buildTextWithFoundation())!
        }

        /// Stops the process unless both sides do the same job: the baseline's URL decodes to Tender's request,
        /// `buildText` is the text of `build`, and both parsers read the same reply.
        public func checkEquivalence() {
            do {
                let (text, url) = (try buildText(), try build())
                precondition(text == url.absoluteString, "\(name): the URL's text differs from the URL")
                let built = try decodeRequest(url.absoluteString)
                // One baseline text: two of Square's differ in key order, which a dictionary's storage decides.
                let baselineText = buildTextWithFoundation()
                let baselineURL = URL(string: baselineText)!
                precondition(baselineURL.absoluteString == baselineText, "\(name): the baseline's URL is not its text")
                let baseline = try decodeRequest(baselineURL.absoluteString)
                precondition(built == baseline, "\(name): the Foundation baseline builds another request")
                let reply = try parse(callback)
                precondition(
                    reply == parseWithFoundation(callback),
                    "\(name): the Foundation baseline reads another reply"
                )
            } catch {
                fatalError("\(name): \(error)")
            }
        }
    }

    /// The SDKs' allowed set: `URLQueryAllowedCharacterSet` minus `:/?#[]@!$&'()*+,;=` (the Square SDK's, and
    /// what a query value needs).
    static let queryValueAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: ":/?#[]@!$&'()*+,;=")
        return set
    }()

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueAllowed)!
    }

    /// The query items of a URL as a dictionary, the way SDK code reads them (the last of a repeated name wins).
    static func queryDictionary(_ urlString: String) -> [String: String]? {
        guard let items = URLComponents(string: urlString)?.queryItems else { return nil }
        var dictionary: [String: String] = [:]
        for item in items { dictionary[item.name] = item.value ?? "" }
        return dictionary
    }

    static func jsonObject(_ text: String?) -> [String: Any]? {
        guard let text else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    // MARK: Square Point of Sale (the SDK's test request; a marked callback with every field)

    /// Square Point of Sale: the SDK's test request, and a marked callback with every field.
    public static let square = Codec(
        name: "Square",
        build: { try squareRequest.url() },
        buildText: { try squareRequest.urlString() },
        buildTextWithFoundation: {
            // SCCAPIRequest's requestDictionary, then SCCAPIConnection: JSON, percent-encoded, into the URL.
            let dictionary: [String: Any] = [
                "sdk_version": "3.5.0", "version": "1.3", "client_id": "sq0idp-8M4Qn6MyR4BZDeS0c41L3g",
                "amount_money": ["amount": 100, "currency_code": "USD"],
                "callback_url": "my-app://perform-callback" + "/square_request", "state": "state-user-info",
                "location_id": "abc123", "notes": "blue shoes", "customer_id": "def456",
                "options": [
                    "supported_tender_types": ["CREDIT_CARD"], "clear_default_fees": false, "auto_return": true,
                    "disable_cnp": false, "skip_receipt": false,
                ],
            ]
            let data = try! JSONSerialization.data(withJSONObject: dictionary)
            let json = String(decoding: data, as: UTF8.self)
            return "square-commerce-v1://payment/create?data=" + encoded(json)
        },
        decodeRequest: { try SquareRequest(urlString: $0) },
        callback: "my-app://perform-callback/square_request?data="
            + PercentEncoding.encode(
                #"{"status":"ok","transaction_id":"TRANSACTION_ID","client_transaction_id":"CLIENT_ID","state":"state-user-info"}"#
            ),
        parse: { url in
            let response = try SquareResponse(callbackURLString: url)
            return Reply(
                status: response.isSuccess ? "ok" : "error",
                transactionID: response.transactionID,
                token: response.state,
                errorCode: response.errorCode?.rawValue
            )
        },
        parseWithFoundation: { url in
            // SCCAPIResponse: NSURLComponents' query items, then NSJSONSerialization of `data`.
            guard let object = jsonObject(queryDictionary(url)?["data"]), let status = object["status"] as? String
            else { return nil }
            return Reply(
                status: status,
                transactionID: object["transaction_id"] as? String,
                token: object["state"] as? String,
                errorCode: object["error_code"] as? String
            )
        }
    )

    static let squareRequest = SquareRequest(
        applicationID: "sq0idp-8M4Qn6MyR4BZDeS0c41L3g",
        callbackURL: URL(string: "my-app://perform-callback")!,
        amount: Money(minorUnits: 100, currency: .usd),
        state: "state-user-info",
        locationID: SquareLocationID("abc123"),
        notes: "blue shoes",
        customerID: "def456",
        supportedTenderTypes: [.card],
        returnsAutomaticallyAfterPayment: true
    )

    // MARK: Swipe (the vendor's sample request and answer)

    // The requests' URL-typed inputs are made once, like the baselines' string literals: building a request URL
    // is measured, not parsing the app's own callback URL into a `URL` value.
    static let swipeReturnURL = URL(string: "com-companyname-demoapp://action/")!
    static let softPOSResponseURL = URL(string: "testapp://response")!
    static let sumUpCallbackURL = URL(string: "samplepaymentapp://")!

    /// The request the benchmark builds, made anew in each iteration as an app would.
    static func swipeRequest() -> SwipeRequest {
        SwipeRequest(
            amount: Money(minorUnits: 1099, currency: .usd),
            returnURL: swipeReturnURL,
            returnAppName: "DemoApp",
            email: "john@example.com"
        )
    }

    /// Swipe: the vendor's sample request and answer.
    public static let swipe = Codec(
        name: "Swipe",
        build: { try swipeRequest().url() },
        buildText: { try swipeRequest().urlString() },
        buildTextWithFoundation: {
            let amount = String(format: "%.2f", 10.99)
            let query = [
                ("amount", amount), ("email", "john@example.com"),
                ("returnURL", "com-companyname-demoapp://action/"), ("returnAppName", "DemoApp"),
            ]
            .map { $0.0 + "=" + encoded($0.1) }.joined(separator: "&")
            return "com-appninjas-iswipe://charge/1.0.0/?" + query
        },
        decodeRequest: { try SwipeRequest(urlString: $0) },
        callback: "com-companyname-demoapp://action/?ifcc_responseType=approved&ifcc_amount=10.99"
            + "&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa&ifcc_transactionId=T-1234",
        parse: { url in
            let response = try SwipeResponse(callbackURLString: url)
            return Reply(
                status: response.responseType.rawValue,
                transactionID: response.transactionID,
                token: response.correlationToken,
                errorCode: nil
            )
        },
        parseWithFoundation: { url in
            guard let query = queryDictionary(url), let type = query["ifcc_responseType"] else { return nil }
            return Reply(status: type, transactionID: query["ifcc_transactionId"], token: query["tender_token"])
        }
    )

    // MARK: SoftPOS (the vendor's sale and approved result)

    static let softPOSResult =
        #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{"f39":"000","isoStan":"000206","#
        + #""transactionTime":"211812","transactionDate":"250209"}}}"#

    /// The request the benchmark builds, made anew in each iteration as an app would.
    static func softPOSRequest() -> SoftPOSRequest {
        SoftPOSRequest.sale(
            amount: Money(minorUnits: 200, currency: .eur),
            responseURL: softPOSResponseURL
        )
    }

    /// SoftPOS: the vendor's sale and approved result.
    public static let softPOS = Codec(
        name: "SoftPOS",
        build: { try softPOSRequest().url() },
        buildText: { try softPOSRequest().urlString() },
        buildTextWithFoundation: {
            let payload: [String: Any] = [
                "amount": 200, "type": "sale", "currency": "EUR", "responseUrl": "testapp://response",
            ]
            let data = try! JSONSerialization.data(withJSONObject: payload)
            return "softpos://softpos/transaction?payload=" + encoded(String(decoding: data, as: UTF8.self))
        },
        decodeRequest: { try SoftPOSRequest(urlString: $0) },
        callback: "testapp://response?result=" + PercentEncoding.encode(softPOSResult),
        parse: { url in
            let response = try SoftPOSResponse(callbackURLString: url)
            return Reply(
                status: response.refusalCode ?? "error",
                transactionID: response.transactionID,
                token: response.correlationToken,
                errorCode: nil
            )
        },
        parseWithFoundation: { url in
            let query = queryDictionary(url)
            guard let top = jsonObject(query?["result"]), let result = top["result"] as? [String: Any],
                let code = result["refusalCode"] as? String
            else { return nil }
            return Reply(status: code, transactionID: result["transactionId"] as? String, token: query?["tender_token"])
        }
    )

    // MARK: SumUp (the README's request and a success callback)

    /// The request the benchmark builds, made anew in each iteration as an app would.
    static func sumUpRequest() -> SumUpRequest {
        SumUpRequest(
            amount: Money(minorUnits: 1000, currency: .eur),
            affiliateKey: "YOUR-AFFILIATE-KEY",
            title: "Coffee beans",
            callbackSuccess: sumUpCallbackURL,
            callbackFail: sumUpCallbackURL,
            foreignTransactionID: "order-123"
        )
    }

    /// SumUp: the README's request and a success callback.
    public static let sumUp = Codec(
        name: "SumUp",
        build: { try sumUpRequest().url() },
        buildText: { try sumUpRequest().urlString() },
        buildTextWithFoundation: {
            let query = [
                ("amount", String(format: "%.2f", 10.0)), ("currency", "EUR"), ("affiliate-key", "YOUR-AFFILIATE-KEY"),
                ("title", "Coffee beans"), ("callbacksuccess", "samplepaymentapp://"),
                ("callbackfail", "samplepaymentapp://"), ("foreign-tx-id", "order-123"),
            ]
            .map { $0.0 + "=" + encoded($0.1) }.joined(separator: "&")
            return "sumupmerchant://pay/1.0?" + query
        },
        decodeRequest: { try SumUpRequest(urlString: $0) },
        callback: "samplepaymentapp://?smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123",
        parse: { url in
            let response = try SumUpResponse(callbackURLString: url)
            return Reply(
                status: response.status.rawValue,
                transactionID: response.transactionCode,
                token: response.foreignTransactionID,
                errorCode: nil
            )
        },
        parseWithFoundation: { url in
            guard let query = queryDictionary(url), let status = query["smp-status"] else { return nil }
            return Reply(status: status, transactionID: query["smp-tx-code"], token: query["foreign-tx-id"])
        }
    )
}
