import Foundation
import Testing

@testable import Tender

/// The official SDK's own test vectors (spec §8), every one of them.
@Suite("Square Point of Sale SDK vectors")
struct SquareVectorTests {
    /// What every request URL starts with (spec §1.1).
    static let prefix = "square-commerce-v1://payment/create?data="

    @Test("the fixture holds every kind of vector")
    func fixtureIsComplete() {
        #expect(SquareVector.of(kind: "request").count == 16)
        #expect(SquareVector.of(kind: "response").count == 12)
        #expect(SquareVector.of(kind: "money").count == 6)
    }

    /// Maps the SDK's error constant names to Tender's codes.
    static func squareCode(named name: String) -> SquareError.Code? {
        let codes: [SquareError.Code] = [
            .unknown, .missingCurrencyCode, .missingRequestClientID, .invalidRequestCallbackURL, .invalidRequestAmount,
            .cannotOpenApplication, .unableToGenerateRequestJSON, .missingOrInvalidResponseData,
            .missingOrInvalidResponseJSONData, .missingOrInvalidResponseStatus, .missingOrInvalidResponseErrorCode,
        ]
        return codes.first { $0.sdkName == name }
    }

    static func request(from vector: SquareVector) throws -> SquareRequest {
        let input = vector.input
        var dialect = SquareRequest.Dialect.current
        switch vector.top["sdk_version_applicability"]?.stringValue {
        case "historical (SquareRegisterSDK 1.0.x)": dialect = .registerSDK1_0
        case "historical (tags 3.1-3.3.1)": dialect = .pointOfSaleSDK3_1
        default: break
        }
        if let apiVersion = input["api_version"]?.stringValue { dialect.apiVersion = apiVersion }
        if let sdkVersion = input["sdk_version"]?.stringValue { dialect.sdkVersion = sdkVersion }
        let tenders: SquareTenderTypes
        if input["supported_tender_types"]?.stringValue == "all" {
            tenders = .all
        } else {
            let names = try #require(input["supported_tender_types"]?.arrayValue).compactMap(\.stringValue)
            tenders = try SquareTenderTypes(list: names.isEmpty ? "none" : names.joined(separator: ","))
        }
        return SquareRequest(
            applicationID: input["application_id"]?.stringValue ?? "",
            callbackURL: try #require(input["callback_url"]?.stringValue.flatMap { URL(string: $0) }),
            amount: Money(
                minorUnits: try #require(input["amount_cents"]?.integerValue),
                currency: try Currency(code: try #require(input["currency_code"]?.stringValue))
            ),
            state: input["state"]?.stringValue,
            locationID: try (input["location_id"]?.stringValue ?? input["merchant_id"]?.stringValue).map {
                try #require(SquareLocationID($0))
            },
            notes: input["notes"]?.stringValue,
            customerID: input["customer_id"]?.stringValue,
            supportedTenderTypes: tenders,
            clearsDefaultFees: input["clear_default_fees"]?.boolValue ?? false,
            returnsAutomaticallyAfterPayment: input["auto_return"]?.boolValue ?? false,
            disablesKeyedInCardEntry: input["disable_cnp"]?.boolValue ?? false,
            skipsReceipt: input["skip_receipt"]?.boolValue ?? false,
            dialect: dialect
        )
    }

    @Test("request vectors (spec §1)", arguments: SquareVector.of(kind: "request"))
    func requestVector(_ vector: SquareVector) throws {
        let request = try Self.request(from: vector)
        if vector.expect["ok"]?.boolValue == false {
            let name = try #require(vector.expect["error"]?.objectValue?["name"]?.stringValue)
            let expected = try #require(Self.squareCode(named: name))
            let error = #expect(throws: SquareError.self) { try request.url() }
            #expect(error?.code == expected)
            #expect(error?.code.sdkErrorCode == vector.expect["error"]?.objectValue?["code"]?.integerValue)
            return
        }
        let url = try request.urlString()
        let prefix = try #require(vector.expect["url_prefix"]?.stringValue)
        #expect(url.hasPrefix(prefix))
        let dataParameter = String(url.dropFirst(prefix.count))
        if let pattern = vector.expect["data_param_regex"]?.stringValue {
            let regex = try Regex(pattern)
            #expect(try regex.wholeMatch(in: dataParameter) != nil)
        }
        let decoded = try JSONValue.parse(try PercentEncoding.decode(dataParameter))
        let expected = JSONValue.object(try #require(vector.expect["data"]?.objectValue))
        #expect(decoded.unordered == expected.unordered)
        if let callback = vector.top["expect_callback_url"]?.stringValue {
            #expect(try request.wireCallbackURL() == callback)
        }
    }

    @Test("response vectors (spec §2)", arguments: SquareVector.of(kind: "response"))
    func responseVector(_ vector: SquareVector) throws {
        let url = try #require(vector.input["url"]?.stringValue)
        if vector.expect["ok"]?.boolValue == false {
            let name = try #require(vector.expect["error"]?.objectValue?["name"]?.stringValue)
            let error = #expect(throws: SquareError.self) { try SquareResponse(callbackURLString: url) }
            #expect(error?.code == Self.squareCode(named: name))
            return
        }
        let response = try SquareResponse(callbackURLString: url)
        #expect(response.isSuccess == vector.expect["success"]?.boolValue)
        #expect(response.state == vector.expect["user_info_string"]?.stringValue)
        #expect(response.transactionID == vector.expect["transaction_id"]?.stringValue)
        #expect(response.clientTransactionID == vector.expect["client_transaction_id"]?.stringValue)
        if let apiError = vector.expect["api_error"]?.objectValue {
            let error = try #require(response.errorCode)
            #expect(error.sdkErrorCode == apiError["code"]?.integerValue)
            #expect(error.sdkName == apiError["name"]?.stringValue)
            #expect(error.rawValue == apiError["error_code_string"]?.stringValue)
            #expect((error.explanation != nil) == apiError["has_localized_description"]?.boolValue)
        } else {
            #expect(response.errorCode == nil)
        }
        if let marked = vector.top["expect_is_square_response"]?.boolValue {
            #expect(response.hasCallbackMarker == marked)
            #expect(SquareCallbackMarker.isMarked(url) == marked)
        }
    }

    @Test("money vectors (spec §1.7)", arguments: SquareVector.of(kind: "money"))
    func moneyVector(_ vector: SquareVector) throws {
        let code = try #require(vector.input["currency_code"]?.stringValue)
        let minorUnits = try #require(vector.input["amount_cents"]?.integerValue)
        if vector.expect["ok"]?.boolValue == false {
            // SCCErrorCodeMissingCurrencyCode: an empty currency code.
            #expect(vector.expect["error"]?.objectValue?["name"]?.stringValue == "SCCErrorCodeMissingCurrencyCode")
            let error = #expect(throws: MoneyError.self) { try Currency(code: code) }
            #expect(error?.code == .missingCurrency)
            return
        }
        let money = Money(minorUnits: minorUnits, currency: try Currency(code: code))
        let expected = JSONValue.object(try #require(vector.expect["request_dictionary"]?.objectValue))
        let written = SquareRequest.amountMoney(money).serialized()
        #expect(try JSONValue.parse(written).unordered == expected.unordered)
    }

    @Test("the exact URL bytes SDK 3.4.1 once asserted are rebuilt from the same key order (spec §1.4)")
    func exactBytesOfSDK341() throws {
        let vector = try #require(SquareVector.all.first { $0.name == "ios_req_exact_url_sdk_3_4_1" })
        let observed = try #require(vector.expect["exact_url_observed"]?.stringValue)
        let request = try Self.request(from: vector)
        // The SDK's key order was NSDictionary hash order; take it from the observed bytes and re-serialize.
        let observedObject = try #require(
            try JSONValue.parse(try PercentEncoding.decode(observed.dropFirst(Self.prefix.count)))
                .objectValue
        )
        guard case .object(var object) = try JSONValue.parse(try request.payloadJSON()),
            case .object(let options)? = object["options"]
        else {
            Issue.record("payload is not an object")
            return
        }
        object = object.reordered(observedObject.keys)
        object["options"] = .object(options.reordered(try #require(observedObject["options"]?.objectValue).keys))
        let rebuilt = Self.prefix + PercentEncoding.encode(JSONValue.object(object).serialized())
        #expect(rebuilt == observed)
    }
}
