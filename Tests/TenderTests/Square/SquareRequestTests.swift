import Foundation
import Testing

@testable import Tender

/// Helpers shared by the Square suites.
enum SquareFixtures {
    static let callback = URL(string: "my-app://perform-callback")!

    static func request(
        applicationID: String = "sq0idp-app",
        callback: URL = callback,
        minorUnits: Int = 100,
        currency: Currency = .usd
    ) -> SquareRequest {
        SquareRequest(
            applicationID: applicationID,
            callbackURL: callback,
            amount: Money(minorUnits: minorUnits, currency: currency)
        )
    }

    /// The decoded `data` object of a request URL.
    static func data(of request: SquareRequest) throws -> JSONObject {
        let url = try request.urlString()
        #expect(url.hasPrefix("square-commerce-v1://payment/create?data="))
        let data = try PercentEncoding.decode(url.dropFirst("square-commerce-v1://payment/create?data=".count))
        return try #require(try JSONValue.parse(data).objectValue)
    }
}

@Suite("Square request")
struct SquareRequestTests {
    @Test("the URL is square-commerce-v1://payment/create with exactly one data parameter (square §1.1)")
    func transport() throws {
        let url = try SquareFixtures.request().urlString()
        let parts = try URLParts(url)
        #expect(parts.scheme == "square-commerce-v1")
        #expect(parts.authority == "payment")
        #expect(parts.path == "/create")
        let query = try QueryParameters(percentEncodedQuery: try #require(parts.query))
        #expect(query.map(\.name) == ["data"])
        #expect(try SquareFixtures.request().url().absoluteString == url)
    }

    @Test("defaults: sdk_version 3.5.0, version 1.3, all tenders, all five options false (square §1.2, §1.5)")
    func defaults() throws {
        let data = try SquareFixtures.data(of: SquareFixtures.request())
        #expect(data["sdk_version"]?.stringValue == "3.5.0")
        #expect(data["version"]?.stringValue == "1.3")
        #expect(data["client_id"]?.stringValue == "sq0idp-app")
        #expect(data["amount_money"] == .object(["amount": .number("100"), "currency_code": .string("USD")]))
        let options = try #require(data["options"]?.objectValue)
        #expect(
            Set(options.keys) == [
                "supported_tender_types", "clear_default_fees", "auto_return", "disable_cnp", "skip_receipt",
            ]
        )
        for key in ["clear_default_fees", "auto_return", "disable_cnp", "skip_receipt"] {
            #expect(options[key] == .bool(false), "\(key) is a JSON Boolean")
        }
        #expect(
            options["supported_tender_types"]?.arrayValue?.compactMap(\.stringValue) == SquareTenderTypes.all.wireNames
        )
    }

    @Test("nil optionals leave their key out; empty strings are sent (square §1.2)")
    func presence() throws {
        var request = SquareFixtures.request()
        var data = try SquareFixtures.data(of: request)
        for key in ["state", "location_id", "merchant_id", "notes", "customer_id"] {
            #expect(data[key] == nil, "\(key)")
        }
        request.state = ""
        request.notes = ""
        request.customerID = ""
        data = try SquareFixtures.data(of: request)
        for key in ["state", "notes", "customer_id"] {
            #expect(data[key] == .string(""), "\(key)")
        }
    }

    @Test("the options map onto their wire keys (square §1.2)")
    func options() throws {
        var request = SquareFixtures.request()
        request.clearsDefaultFees = true
        request.returnsAutomaticallyAfterPayment = true
        request.disablesKeyedInCardEntry = true
        request.skipsReceipt = true
        let options = try #require(try SquareFixtures.data(of: request)["options"]?.objectValue)
        for key in ["clear_default_fees", "auto_return", "disable_cnp", "skip_receipt"] {
            #expect(options[key] == .bool(true), "\(key)")
        }
    }

    @Test("tender types go out in the fixed order whatever order the set was built in (square §1.5)")
    func tenderOrder() throws {
        var request = SquareFixtures.request()
        request.supportedTenderTypes = [.payPay, .cash, .card]
        let options = try #require(try SquareFixtures.data(of: request)["options"]?.objectValue)
        #expect(
            options["supported_tender_types"] == .array([.string("CREDIT_CARD"), .string("CASH"), .string("PAYPAY")])
        )
        #expect(
            SquareTenderTypes.all.wireNames == [
                "CREDIT_CARD", "CASH", "OTHER", "SQUARE_GIFT_CARD", "CARD_ON_FILE", "PAYPAY",
            ]
        )
        request.supportedTenderTypes = []
        let empty = try #require(try SquareFixtures.data(of: request)["options"]?.objectValue)
        #expect(empty["supported_tender_types"] == .array([]))
    }

    @Test("the CLI tender list accepts names, all and none, and names what it refuses")
    func tenderList() throws {
        #expect(try SquareTenderTypes(list: "card, card-on-file,paypay") == [.card, .cardOnFile, .payPay])
        #expect(try SquareTenderTypes(list: "all") == .all)
        #expect(try SquareTenderTypes(list: "none") == [])
        let error = #expect(throws: SquareError.self) { try SquareTenderTypes(list: "card,bitcoin") }
        #expect(error?.message.contains("'bitcoin'") == true)
    }

    @Test(
        "an empty or blank tender list is refused, naming none: it is not a way to say no tenders",
        arguments: ["", " ", "   "]
    )
    func emptyTenderList(list: String) {
        let error = #expect(throws: SquareError.self) { try SquareTenderTypes(list: list) }
        #expect(error?.code == .invalidTenderType)
        #expect(error?.message.hasPrefix("The tender list is empty: pass 'none' for no tenders") == true)
    }

    @Test(
        "an amount above Tender's largest payment is refused like one below a cent: no journal holds what a fleet server refuses"
    )
    func largestAmount() throws {
        let largest = SquareFixtures.request(minorUnits: Money.maximumPaymentMinorUnits)
        #expect(throws: Never.self) { try largest.url() }
        let above = SquareFixtures.request(minorUnits: Money.maximumPaymentMinorUnits + 1)
        let error = #expect(throws: SquareError.self) { try above.url() }
        #expect(error?.code == .invalidRequestAmount)
        #expect(error?.message.contains("at most 999999999999999 minor units") == true)
    }

    @Test("validation runs in the SDK's order: client ID, then amount, then callback (square §1.6)")
    func validationOrder() throws {
        let noScheme = try #require(URL(string: "//myCallback"))
        let all = SquareFixtures.request(applicationID: "", callback: noScheme, minorUnits: 0)
        #expect((#expect(throws: SquareError.self) { try all.url() })?.code == .missingRequestClientID)
        let amountAndCallback = SquareFixtures.request(callback: noScheme, minorUnits: -1)
        #expect((#expect(throws: SquareError.self) { try amountAndCallback.url() })?.code == .invalidRequestAmount)
        let callbackOnly = SquareFixtures.request(callback: noScheme)
        #expect((#expect(throws: SquareError.self) { try callbackOnly.url() })?.code == .invalidRequestCallbackURL)
        #expect(SquareError.Code.missingRequestClientID.sdkErrorCode == 3)
        #expect(SquareError.Code.invalidRequestCallbackURL.sdkErrorCode == 4)
        #expect(SquareError.Code.invalidRequestAmount.sdkErrorCode == 5)
    }

    @Test("1 minor unit is the minimum since SDK 3.5.3 (square §1.6)")
    func minimumAmount() throws {
        #expect(throws: Never.self) { try SquareFixtures.request(minorUnits: 1).url() }
        #expect(throws: SquareError.self) { try SquareFixtures.request(minorUnits: 0).url() }
    }

    @Test("nothing else is checked on the device: any currency, customer ID and tender set pass (square §1.6)")
    func noOtherChecks() throws {
        var request = SquareFixtures.request(currency: .kwd)
        request.supportedTenderTypes = []
        request.customerID = "?"
        #expect(throws: Never.self) { try request.url() }
    }

    @Test("a callback on a POS app's own scheme is refused (SEC-12)")
    func posSchemeCallback() throws {
        let request = SquareFixtures.request(callback: try #require(URL(string: "square-commerce-v1://x")))
        let error = #expect(throws: SquareError.self) { try request.url() }
        #expect(error?.code == .invalidRequestCallbackURL)
    }

    @Test("the data value uses only unreserved characters and upper-case escapes (square §1.4)")
    func dataAlphabet() throws {
        var request = SquareFixtures.request()
        request.notes = "Café & crème: 100% [ok] + /slash\\ \"q\" 😀"
        request.state = "a b+c=d&e?f#g"
        let url = try request.urlString()
        let data = String(url.dropFirst("square-commerce-v1://payment/create?data=".count))
        #expect(try Regex("^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$").wholeMatch(in: data) != nil)
        #expect(data.contains("%5C%2F"), "an escaped slash is %5C%2F")
        #expect(data.contains("%20") && !data.contains("+"))
        let decoded = try SquareFixtures.data(of: request)
        #expect(decoded["notes"]?.stringValue == request.notes)
        #expect(decoded["state"]?.stringValue == request.state)
    }

    @Test("non-ASCII text is written as raw UTF-8 in the JSON, not \\u escapes (square §1.2)")
    func rawUTF8() throws {
        var request = SquareFixtures.request()
        request.notes = "é"
        let url = try request.urlString()
        #expect(url.contains("%C3%A9"))
        #expect(!url.contains("u00e9"))
    }

    @Test("a version below 1.3 sends the location as merchant_id, the Register name (square §3.3)")
    func registerNaming() throws {
        var request = SquareFixtures.request()
        request.locationID = SquareLocationID("L1")
        for version in ["1.0", "1.1", "1.2", "1.2.9"] {
            request.apiVersion = version
            let data = try SquareFixtures.data(of: request)
            #expect(data["merchant_id"]?.stringValue == "L1", "\(version)")
            #expect(data["location_id"] == nil)
            #expect(data["version"]?.stringValue == version)
        }
        for version in ["1.3", "1.3.0", "1.4", "2.0", "v2.0"] {
            request.apiVersion = version
            #expect(try SquareFixtures.data(of: request)["location_id"]?.stringValue == "L1", "\(version)")
        }
        request.apiVersion = nil
        let noVersion = try SquareFixtures.data(of: request)
        #expect(noVersion["version"] == nil)
        #expect(noVersion["merchant_id"]?.stringValue == "L1")
    }

    @Test("overriding only the version string keeps SDK 3.5's location_id, like setApiVersion (square §1.2)")
    func setAPIVersionOnly() throws {
        var request = SquareFixtures.request()
        request.locationID = SquareLocationID("L1")
        request.dialect.apiVersion = "1.0.9"
        let data = try SquareFixtures.data(of: request)
        #expect(data["version"]?.stringValue == "1.0.9")
        #expect(data["location_id"]?.stringValue == "L1")
        #expect(data["sdk_version"]?.stringValue == "3.5.0")
    }

    @Test("text with a NUL character is refused: a callback carrying it could never be read back (SEC-6)")
    func nulCharacter() {
        var request = SquareFixtures.request()
        request.notes = "a\u{0}b"
        let error = #expect(throws: SquareError.self) { try request.url() }
        #expect(error?.code == .invalidRequestData)
        #expect(error?.message.contains("notes") == true)
    }

    @Test(
        "an identifier holding a card number is refused, named, without the number (SEC-9)",
        arguments: ["applicationID", "locationID", "customerID"]
    )
    func cardNumberInIdentifier(field: String) throws {
        for value in ["4111111111111111", "sq0idp-4111-1111-1111-1111", "L 5555 5555 5555 4444"] {
            var request = SquareFixtures.request()
            switch field {
            case "applicationID": request.applicationID = value
            case "locationID":
                // A location ID is checked when it is made: one holding a card number cannot be made at all.
                #expect(SquareLocationID(value) == nil)
                continue
            default: request.customerID = value
            }
            let error = #expect(throws: SquareError.self) { _ = try request.urlString() }
            #expect(error?.code == .invalidRequestData)
            #expect(error?.message.hasPrefix(field + " holds what could be a card number") == true)
            #expect(error.map { CardNumberScreen.containsCardNumber($0.message) } == false)
        }
        // Digits that are not a card number (too short, or failing the Luhn check) are IDs like any other.
        var request = SquareFixtures.request(applicationID: "sq0idp-4111111111111113")
        request.locationID = SquareLocationID("411111111111")
        request.customerID = "4111111111111114"
        #expect(throws: Never.self) { try request.url() }
    }

    @Test("an empty API version is refused with a clear error")
    func emptyVersion() {
        var request = SquareFixtures.request()
        request.apiVersion = ""
        #expect((#expect(throws: SquareError.self) { try request.url() })?.code == .invalidAPIVersion)
    }

    @Test("each dialect sends what its SDK generation sent (square §3.2)")
    func dialects() throws {
        var request = SquareFixtures.request()
        request.locationID = SquareLocationID("L1")
        let cases: [(SquareRequest.Dialect, String?, String?, Bool, String, String)] = [
            (.current, "3.5.0", "1.3", true, "location_id", "my-app://perform-callback/square_request"),
            (.pointOfSaleSDK3_4, "3.1", "1.3", true, "location_id", "my-app://perform-callback/square_request"),
            (.pointOfSaleSDK3_3_2, "3.1", "1.3", true, "location_id", "my-app://perform-callback"),
            (.pointOfSaleSDK3_1, "3.1", "1.3", false, "location_id", "my-app://perform-callback"),
            (.pointOfSaleSDK3_0, "3.0", "1.2", false, "merchant_id", "my-app://perform-callback"),
            (.registerSDK2_1, "2.0", "1.2", false, "merchant_id", "my-app://perform-callback"),
            (.registerSDK2_0, "2.0", "1.1", false, "merchant_id", "my-app://perform-callback"),
            (.registerSDK1_1, "1.1", "1.0", false, "merchant_id", "my-app://perform-callback"),
            (.registerSDK1_0, "2", nil, false, "merchant_id", "my-app://perform-callback"),
            (.mobileWeb, nil, "1.3", true, "location_id", "my-app://perform-callback"),
        ]
        for (dialect, sdk, api, extended, locationKey, callback) in cases {
            request.dialect = dialect
            let data = try SquareFixtures.data(of: request)
            #expect(data["sdk_version"]?.stringValue == sdk)
            #expect(data["version"]?.stringValue == api)
            #expect(data[locationKey]?.stringValue == "L1")
            #expect(data["callback_url"]?.stringValue == callback)
            let options = try #require(data["options"]?.objectValue)
            #expect((options["disable_cnp"] != nil) == extended)
            #expect((options["skip_receipt"] != nil) == extended)
        }
    }

    @Test("the correlation hook puts the token in state and will not overwrite one")
    func correlation() throws {
        let request = SquareFixtures.request()
        let correlated = try request.correlated(with: "tok_123")
        #expect(correlated.state == "tok_123")
        #expect(try SquareFixtures.data(of: correlated)["state"]?.stringValue == "tok_123")
        #expect(throws: CorrelationError.self) { try correlated.correlated(with: "other") }
        #expect(try request.callbackEndpoints() == ["my-app://perform-callback/square_request"])
    }
}

@Suite("Square request decoding")
struct SquareRequestDecodingTests {
    @Test("a request decodes back to itself, in every dialect")
    func roundTrip() throws {
        var request = SquareFixtures.request(currency: .jpy)
        request.state = "s"
        request.locationID = SquareLocationID("L")
        request.notes = "n/é"
        request.customerID = "C"
        request.supportedTenderTypes = [.cash, .payPay]
        request.clearsDefaultFees = true
        for dialect in [
            SquareRequest.Dialect.current, .pointOfSaleSDK3_4, .pointOfSaleSDK3_1, .registerSDK1_0, .mobileWeb,
        ] {
            request.dialect = dialect
            #expect(try SquareRequest(url: try request.url()) == request)
        }
    }

    @Test(
        "a marked callback_url decodes to the URL the marker was added to, which marks to the same bytes (square §1.3)",
        arguments: [
            ("my-app://perform-callback/square_request", "my-app://perform-callback"),
            ("my-app://square_request?x=1", "my-app://?x=1"),
            ("my-app://h/a/square_request", "my-app://h/a"),
            ("my-app://h//square_request", "my-app://h//"),
            ("my-app://h/a//square_request?q", "my-app://h/a//?q"),
            // The marker as the host keeps user information and a port around it, as NSURLComponents does.
            ("my-app://me@square_request?x=1", "my-app://me@?x=1"),
            ("my-app://square_request:8080", "my-app://:8080"),
            // A host that is the marker itself, marked with a path component.
            ("my-app://square_request/square_request", "my-app://square_request"),
        ]
    )
    func markedCallback(wire: String, callback: String) throws {
        var object = try SquareFixtures.data(of: SquareFixtures.request())
        object["callback_url"] = .string(wire)
        let url =
            "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
        let request = try SquareRequest(urlString: url)
        #expect(request.callbackURL.absoluteString == callback)
        #expect(request.dialect.marksCallbackURL)
        #expect(try request.wireCallbackURL() == wire)
        #expect(try SquareRequest(url: try request.url()) == request)
    }

    @Test("the SDK's decode strips the slash before the marker even where encode did not add it (square §1.3)")
    func sdkDecode() {
        #expect(SquareCallbackMarker.decode("my-app://h//square_request") == "my-app://h/")
        #expect(SquareCallbackMarker.original(of: "my-app://h//square_request") == "my-app://h//")
        #expect(SquareCallbackMarker.decode("my-app://h/a/square_request") == "my-app://h/a")
    }

    @Test(
        "the common mistakes of web integrations are named (square §4)",
        arguments: [
            (#"{"note":"x"}"#, "'notes'"), (#"{"currency":"USD"}"#, "currency_code"),
            (#"{"auto_return":true}"#, "options.auto_return"),
        ]
    )
    func webMistakes(extra: String, hint: String) throws {
        var object = try SquareFixtures.data(of: SquareFixtures.request())
        let extraObject = try #require(try JSONValue.parse(extra).objectValue)
        for member in extraObject.members { object[member.key] = member.value }
        let url =
            "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
        let error = #expect(throws: SquareError.self) { try SquareRequest(urlString: url) }
        #expect(error?.code == .invalidRequestData)
        #expect(error?.message.contains(hint) == true)
    }

    @Test(
        "strings where numbers or Booleans belong are refused (square §4)",
        arguments: [
            ("amount_money", #"{"amount":"100","currency_code":"USD"}"#),
            ("options", #"{"supported_tender_types":[],"clear_default_fees":"TRUE","auto_return":false}"#),
            ("amount_money", #"{"amount":1.5,"currency_code":"USD"}"#),
            ("options", #"{"supported_tender_types":["BITCOIN"],"clear_default_fees":false,"auto_return":false}"#),
            ("client_id", "5"),
        ]
    )
    func wrongTypes(key: String, json: String) throws {
        var object = try SquareFixtures.data(of: SquareFixtures.request())
        object[key] = try JSONValue.parse(json)
        let url =
            "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
        #expect(throws: SquareError.self) { try SquareRequest(urlString: url) }
    }

    @Test("wrong scheme, path, extra or duplicate parameters and bad JSON are refused")
    func structure() throws {
        let good = try SquareFixtures.request().urlString()
        let data = String(good.split(separator: "=", maxSplits: 1)[1])
        for url in [
            "square-commerce-v2://payment/create?data=" + data, "square-commerce-v1://payment/other?data=" + data,
            good + "&x=1", good + "&data=" + data, "square-commerce-v1://payment/create",
            "square-commerce-v1://payment/create?data=", "square-commerce-v1://payment/create?data=%5B%5D",
            "square-commerce-v1://payment/create?data=%7B%22a%22%3A1%2C%22a%22%3A1%7D",
        ] {
            let error = #expect(throws: SquareError.self) { try SquareRequest(urlString: url) }
            #expect(error?.code == .invalidRequestData)
        }
    }
}
