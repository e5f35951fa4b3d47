import Foundation
import Tender
import TenderSimulator

/// The targets for every parser that reads outside input. Besides "no crash, no hang, no memory error" each
/// checks what the parser promises: what it accepts survives a round trip through the matching encoder, errors
/// and descriptions never show a card number or the whole URL (SEC-8, SEC-9), and detection agrees with parsing.
enum ParserTargets {
    static let all: [FuzzTarget] = [
        squareCallback, squareRequest, swipeCallback, swipeRequest, softPOSCallback, softPOSRequest, sumUpCallback,
        sumUpRequest, percentDecoding, query, detection, json, merchantProfile, infoPlist,
    ]

    // MARK: Square

    static let squareCallback = FuzzTarget.text("square-callback", "SquareResponse(callbackURLString:)") { input in
        guard let response = FuzzCheck.parse(input, "SquareResponse", { try SquareResponse(callbackURLString: input) })
        else { return }
        FuzzCheck.checkCallback(response, input: input)
        FuzzCheck.expect(
            response.isSuccess == (response.outcome.status == .approved),
            "a Square reply is approved exactly when it has no error"
        )
        // Issue 32: a reply is accepted only when each member Tender reads is a string (a number for transaction_id
        // would be an approval without the ID a verifier looks it up by).
        if let data = try? QueryParameters(urlString: input).value(named: "data"),
            let object = try? JSONValue.parse(data).objectValue
        {
            for key in ["status", "state", "transaction_id", "client_transaction_id", "error_code"] {
                FuzzCheck.expect(
                    object[key].map { $0.stringValue != nil } ?? true,
                    "a Square reply whose \(key) is no string is accepted"
                )
            }
        }
        let callback = response.hasCallbackMarker ? "my-app://fuzz/square_request" : "my-app://fuzz"
        if let url = try? response.callbackURLString(callbackURL: callback) {
            let again = FuzzCheck.parse(url, "SquareResponse (round trip)") {
                try SquareResponse(callbackURLString: url)
            }
            FuzzCheck.expect(again == response, "a parsed Square reply does not survive callbackURLString and parsing")
        }
        // A parsed reply has one `data` parameter, so detection must call it Square's (unless the URL's scheme is
        // a POS app's, which makes it a request).
        if let scheme = try? URLParts(input).scheme, PaymentProvider(appURLScheme: scheme) == nil {
            FuzzCheck.expect(
                PaymentURLKind.detect(input) == PaymentURLKind(provider: .square, direction: .response),
                "a Square reply is not detected as one"
            )
        }
    }

    static let squareRequest = FuzzTarget.text("square-request", "SquareRequest(urlString:)") { input in
        guard let request = FuzzCheck.parse(input, "SquareRequest", { try SquareRequest(urlString: input) })
        else { return }
        FuzzCheck.isSafeToShow(String(describing: request), input: input, what: "a SquareRequest's description")
        guard let url = try? request.urlString() else { return }
        let again = FuzzCheck.parse(url, "SquareRequest (round trip)") { try SquareRequest(urlString: url) }
        FuzzCheck.expect(again == request, "a decoded Square request does not survive url() and decoding")
    }

    // MARK: Swipe

    static let swipeCallback = FuzzTarget.text("swipe-callback", "SwipeResponse(callbackURLString:)") { input in
        guard let response = FuzzCheck.parse(input, "SwipeResponse", { try SwipeResponse(callbackURLString: input) })
        else { return }
        FuzzCheck.checkCallback(response, input: input)
        var original = response
        original.correlationToken = nil
        guard let url = try? original.callbackURLString(returnURL: "my-app://fuzz") else { return }
        var again = FuzzCheck.parse(url, "SwipeResponse (round trip)") { try SwipeResponse(callbackURLString: url) }
        again?.correlationToken = nil
        FuzzCheck.expect(again == original, "a parsed Swipe answer does not survive callbackURLString and parsing")
    }

    static let swipeRequest = FuzzTarget.text("swipe-request", "SwipeRequest(urlString:)") { input in
        // Swipe's URL has no currency: read it as dollars and, for the zero-decimal case, as yen.
        for currency in [Currency.usd, Currency.jpy] {
            guard
                let request = FuzzCheck.parse(
                    input,
                    "SwipeRequest",
                    { try SwipeRequest(urlString: input, currency: currency) }
                )
            else { continue }
            FuzzCheck.isSafeToShow(String(describing: request), input: input, what: "a SwipeRequest's description")
            guard let url = try? request.urlString() else { continue }
            let again = FuzzCheck.parse(url, "SwipeRequest (round trip)") {
                try SwipeRequest(urlString: url, currency: currency)
            }
            FuzzCheck.expect(again == request, "a decoded Swipe request does not survive url() and decoding")
        }
    }

    // MARK: SoftPOS

    static let softPOSCallback = FuzzTarget.text("softpos-callback", "SoftPOSResponse(callbackURLString:)") { input in
        guard
            let response = FuzzCheck.parse(input, "SoftPOSResponse", { try SoftPOSResponse(callbackURLString: input) })
        else { return }
        FuzzCheck.checkCallback(response, input: input)
        var original = response
        original.correlationToken = nil
        guard let url = try? original.callbackURLString(responseURL: "my-app://fuzz") else { return }
        var again = FuzzCheck.parse(url, "SoftPOSResponse (round trip)") { try SoftPOSResponse(callbackURLString: url) }
        again?.correlationToken = nil
        FuzzCheck.expect(again == original, "a parsed SoftPOS answer does not survive callbackURLString and parsing")
    }

    static let softPOSRequest = FuzzTarget.text("softpos-request", "SoftPOSRequest(urlString:)") { input in
        guard let request = FuzzCheck.parse(input, "SoftPOSRequest", { try SoftPOSRequest(urlString: input) })
        else { return }
        FuzzCheck.isSafeToShow(String(describing: request), input: input, what: "a SoftPOSRequest's description")
        guard let url = try? request.urlString() else { return }
        let again = FuzzCheck.parse(url, "SoftPOSRequest (round trip)") { try SoftPOSRequest(urlString: url) }
        FuzzCheck.expect(again == request, "a decoded SoftPOS request does not survive url() and decoding")
    }

    // MARK: SumUp

    static let sumUpCallback = FuzzTarget.text("sumup-callback", "SumUpResponse(callbackURLString:)") { input in
        guard let response = FuzzCheck.parse(input, "SumUpResponse", { try SumUpResponse(callbackURLString: input) })
        else { return }
        FuzzCheck.checkCallback(response, input: input)
        // The token travels on the callback URL itself, as the request put it there: not written by the encoder.
        var original = response
        original.callbackToken = nil
        guard let url = try? original.callbackURLString(callbackURL: "my-app://fuzz") else { return }
        var again = FuzzCheck.parse(url, "SumUpResponse (round trip)") { try SumUpResponse(callbackURLString: url) }
        again?.callbackToken = nil
        FuzzCheck.expect(again == original, "a parsed SumUp answer does not survive callbackURLString and parsing")
    }

    static let sumUpRequest = FuzzTarget.text("sumup-request", "SumUpRequest(urlString:)") { input in
        guard let request = FuzzCheck.parse(input, "SumUpRequest", { try SumUpRequest(urlString: input) })
        else { return }
        FuzzCheck.isSafeToShow(String(describing: request), input: input, what: "a SumUpRequest's description")
        guard let url = try? request.urlString() else { return }
        let again = FuzzCheck.parse(url, "SumUpRequest (round trip)") { try SumUpRequest(urlString: url) }
        FuzzCheck.expect(again == request, "a decoded SumUp request does not survive url() and decoding")
    }

    // MARK: Shared machinery

    static let percentDecoding = FuzzTarget.text("percent-decoding", "PercentEncoding.decode and encode") { input in
        let encoded = PercentEncoding.encode(input)
        FuzzCheck.expect(
            encoded.utf8.allSatisfy { Self.encodedAlphabet.contains($0) },
            "encoding left a reserved character"
        )
        FuzzCheck.expect((try? PercentEncoding.decode(encoded)) == input, "decode(encode(text)) is not the text")
        guard let decoded = try? PercentEncoding.decode(input) else { return }
        FuzzCheck.expect(input.contains("%") || decoded == input, "decoding changed text that has no '%'")
        // Strict decoding accepts a subset of what Foundation accepts, and then agrees with it.
        FuzzCheck.expect(
            input.removingPercentEncoding == decoded,
            "strict decoding disagrees with Foundation's removingPercentEncoding"
        )
    }

    /// What percent-encoded text may contain: the RFC 3986 unreserved characters, `%` and upper-case hex.
    private static let encodedAlphabet = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%".utf8
    )

    static let query = FuzzTarget.text("query", "QueryParameters(percentEncodedQuery:)") { input in
        guard let parameters = try? QueryParameters(percentEncodedQuery: input) else { return }
        let again = try? QueryParameters(percentEncodedQuery: parameters.percentEncodedQuery)
        FuzzCheck.expect(again == parameters, "a query does not survive percentEncodedQuery and parsing")
        for item in parameters {
            let count = parameters.count(of: item.name)
            FuzzCheck.expect(count >= 1 && parameters.contains(item.name), "an item's name is not found")
            let value = Result { try parameters.value(named: item.name) }
            switch value {
            case .success(let value):
                FuzzCheck.expect(count == 1 && value == item.value, "value(named:) does not give the one value")
            case .failure:
                FuzzCheck.expect(count > 1, "value(named:) throws for a name that appears once")
            }
        }
    }

    /// What `tender decode` does with a URL: detect it, then parse it with the provider's type for its kind.
    static let detection = FuzzTarget.text("detection", "PaymentURLKind.detect and PaymentCallbacks.parse") { input in
        let kind = PaymentURLKind.detect(input)
        for provider in PaymentProvider.all {
            let forced = PaymentURLKind.detect(input, provider: provider)
            if let kind, kind.provider == provider {
                FuzzCheck.expect(forced == kind, "forcing the detected provider changes the kind")
            }
            if let forced, forced.direction == .request {
                FuzzCheck.expect(kind == forced, "a request's provider depends on whether one is forced")
            }
            if let forced { decode(input, as: forced) }
        }
        let parsed = FuzzCheck.parse(input, "PaymentCallbacks.parse") { try PaymentCallbacks.parse(input) }
        if let parsed {
            FuzzCheck.expect(
                kind == PaymentURLKind(provider: type(of: parsed).provider, direction: .response),
                "PaymentCallbacks.parse used another provider than detection"
            )
            FuzzCheck.checkCallback(parsed, input: input)
        } else if let kind, kind.direction == .response {
            FuzzCheck.expect(!parses(input, as: kind), "PaymentCallbacks.parse refuses what its provider's type reads")
        }
    }

    private static func decode(_ input: String, as kind: PaymentURLKind) {
        _ = parses(input, as: kind)
    }

    /// Parses the URL as `tender decode` would for this kind; whether it parsed.
    private static func parses(_ input: String, as kind: PaymentURLKind) -> Bool {
        let name = "the \(kind) parser"
        switch (kind.provider, kind.direction) {
        case (.square, .request): return FuzzCheck.parse(input, name, { try SquareRequest(urlString: input) }) != nil
        case (.square, .response):
            return FuzzCheck.parse(input, name, { try SquareResponse(callbackURLString: input) }) != nil
        case (.swipe, .request): return FuzzCheck.parse(input, name, { try SwipeRequest(urlString: input) }) != nil
        case (.swipe, .response):
            return FuzzCheck.parse(input, name, { try SwipeResponse(callbackURLString: input) }) != nil
        case (.softPOS, .request): return FuzzCheck.parse(input, name, { try SoftPOSRequest(urlString: input) }) != nil
        case (.softPOS, .response):
            return FuzzCheck.parse(input, name, { try SoftPOSResponse(callbackURLString: input) }) != nil
        case (.sumUp, .request): return FuzzCheck.parse(input, name, { try SumUpRequest(urlString: input) }) != nil
        case (.sumUp, .response):
            return FuzzCheck.parse(input, name, { try SumUpResponse(callbackURLString: input) }) != nil
        default: FuzzCheck.fail("detection returned a provider Tender does not ship: \(kind)")
        }
    }

    // MARK: Configuration and JSON

    static let json = FuzzTarget.text("json", "JSONValue.parse (the strict JSON parser)") { input in
        guard let value = try? JSONValue.parse(input) else { return }
        for escapingSlashes in [true, false] {
            let written = value.serialized(escapingSlashes: escapingSlashes)
            FuzzCheck.expect(
                (try? JSONValue.parse(written, limits: JSONLimits(maximumBytes: 1 << 20, maximumDepth: 16))) == value,
                "parse(serialized(value)) is not the value"
            )
        }
        // Strict parsing accepts a subset of what Foundation accepts, but for numbers beyond a Double's range
        // (`2E8888888`): RFC 8259 §6 allows them, Tender keeps them as text, Foundation refuses them.
        if hasOnlyDoubleNumbers(value) {
            FuzzCheck.expect(
                (try? JSONSerialization.jsonObject(with: Data(input.utf8), options: .fragmentsAllowed)) != nil,
                "the strict parser accepts JSON that Foundation refuses"
            )
        }
    }

    private static func hasOnlyDoubleNumbers(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text): return Double(text)?.isFinite == true
        case .array(let elements): return elements.allSatisfy(hasOnlyDoubleNumbers)
        case .object(let object): return object.members.allSatisfy { hasOnlyDoubleNumbers($0.value) }
        default: return true
        }
    }

    static let merchantProfile = FuzzTarget.text("merchant-profile", "MerchantProfile(json:)") { input in
        guard let profile = try? MerchantProfile(json: input) else { return }
        _ = profile.appVersionIsAtLeast("5.0")
    }

    static let infoPlist = FuzzTarget(name: "info-plist", summary: "InfoPlist(propertyListData:) and its checks") {
        bytes in
        guard let plist = try? InfoPlist(propertyListData: Data(bytes)) else { return }
        _ = AppConfigurationCheck(callbackScheme: "my-shop").run(on: plist)
        for provider in PaymentProvider.all {
            _ = try? POSApp(provider: provider)?.checkDeclared(in: plist)
        }
    }
}
