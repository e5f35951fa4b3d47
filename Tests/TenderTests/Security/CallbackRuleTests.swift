import Foundation
import Testing

@testable import Tender

/// Every rule the callback parsers' one-pass readers also checked before they were removed (issue 25), each with a
/// callback that breaks that rule alone and the error code the one parser gives it. The inventory was taken from
/// the one-pass readers (`parsedOnFastPath`, `init(commonShape:)`) against their general parsers: every rule below
/// was in both, so none was lost; this table keeps each one tested in the parser that is left.
@Suite("Each callback rule is enforced by its provider's one parser (SEC-6, SEC-9)")
struct CallbackRuleTests {
    /// One rule: what it says, a callback that breaks it, and the error code that refuses the callback.
    struct Rule: CustomTestStringConvertible, Sendable {
        let rule: String
        let url: String
        let code: String
        var testDescription: String { rule }
    }

    static let long = String(repeating: "a", count: 16 * 1024)

    // MARK: Swipe (swipe §2, §3)

    static let swipeApproved =
        "my-app://cb?ifcc_responseType=approved&ifcc_amount=10.99"
        + "&ifcc_redactedCardNumber=XXXXXXXXXXXX1111"
    static let swipeRules = [
        Rule(rule: "the URL is at most 16 KiB", url: swipeApproved + "&x=" + long, code: "unreadable_callback"),
        Rule(
            rule: "the URL has a valid scheme",
            url: "1x://cb?ifcc_responseType=declined",
            code: "unreadable_callback"
        ),
        Rule(rule: "every value decodes, unknown ones too", url: swipeApproved + "&x=%ZZ", code: "unreadable_callback"),
        Rule(rule: "every value is UTF-8", url: swipeApproved + "&x=%FF", code: "unreadable_callback"),
        Rule(
            rule: "the token appears once",
            url: swipeApproved + "&tender_token=a&tender_token=a",
            code: "invalid_correlation_token"
        ),
        Rule(rule: "the token has a value", url: swipeApproved + "&tender_token", code: "invalid_correlation_token"),
        Rule(
            rule: "the token is a token",
            url: swipeApproved + "&tender_token=a%20b",
            code: "invalid_correlation_token"
        ),
        Rule(
            rule: "a result field appears once",
            url: swipeApproved + "&ifcc_amount=1.00",
            code: "duplicate_parameter"
        ),
        Rule(
            rule: "a result field appears once with or without $",
            url: swipeApproved + "&$ifcc_amount=10.99",
            code: "duplicate_parameter"
        ),
        Rule(rule: "a result field has a value", url: swipeApproved + "&ifcc_cardType", code: "invalid_field"),
        Rule(rule: "the response type is there", url: "my-app://cb?ifcc_amount=1.00", code: "invalid_response_type"),
        Rule(
            rule: "the response type is allow-listed",
            url: "my-app://cb?ifcc_responseType=Approved",
            code: "invalid_response_type"
        ),
        Rule(
            rule: "the amount has two decimals",
            url: "my-app://cb?ifcc_responseType=approved&ifcc_amount=10.9&ifcc_redactedCardNumber=X1111",
            code: "invalid_field"
        ),
        Rule(
            rule: "the card number is masked",
            url: "my-app://cb?ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=4111111111111111",
            code: "unmasked_card_number"
        ),
        Rule(rule: "the card type is a brand", url: swipeApproved + "&ifcc_cardType=1Visa", code: "invalid_field"),
        Rule(rule: "the currency is ISO 4217", url: swipeApproved + "&ifcc_currency=XXY", code: "invalid_field"),
        Rule(
            rule: "the amount fits the echoed currency",
            url: "my-app://cb?ifcc_responseType=approved&ifcc_amount=10.50&ifcc_redactedCardNumber=X1111"
                + "&ifcc_currency=JPY",
            code: "invalid_field"
        ),
        Rule(
            rule: "the transaction id has no control character",
            url: swipeApproved + "&ifcc_transactionId=a%00b",
            code: "invalid_field"
        ),
        Rule(
            rule: "the transaction id is at most 255 characters",
            url: swipeApproved + "&ifcc_transactionId=" + String(repeating: "t", count: 256),
            code: "invalid_field"
        ),
        Rule(
            rule: "the transaction id holds no card number",
            url: swipeApproved + "&ifcc_transactionId=4111111111111111",
            code: "unmasked_card_number"
        ),
        Rule(
            rule: "the tax amount has two decimals",
            url: swipeApproved + "&ifcc_taxAmount=0.8",
            code: "invalid_field"
        ),
        Rule(rule: "the tip amount has two decimals", url: swipeApproved + "&ifcc_tipAmount=2", code: "invalid_field"),
        Rule(rule: "the tax rate is a rate", url: swipeApproved + "&ifcc_taxRate=08.5", code: "invalid_field"),
        Rule(
            rule: "an approval has an amount",
            url: "my-app://cb?ifcc_responseType=approved&ifcc_redactedCardNumber=X1111",
            code: "missing_approval_field"
        ),
        Rule(
            rule: "an approval has a card number",
            url: "my-app://cb?ifcc_responseType=approved&ifcc_amount=1.00",
            code: "missing_approval_field"
        ),
        Rule(
            rule: "another answer has no amount",
            url: "my-app://cb?ifcc_responseType=declined&ifcc_amount=1.00",
            code: "unexpected_field"
        ),
        Rule(
            rule: "another answer has no currency",
            url: "my-app://cb?ifcc_responseType=error&ifcc_currency=USD",
            code: "unexpected_field"
        ),
        Rule(
            rule: "another answer has no card type",
            url: "my-app://cb?ifcc_responseType=cancelled&ifcc_cardType=Visa",
            code: "unexpected_field"
        ),
        Rule(
            rule: "another answer has no card number",
            url: "my-app://cb?ifcc_responseType=declined&ifcc_redactedCardNumber=X1111",
            code: "unexpected_field"
        ),
    ]

    @Test("Swipe", arguments: swipeRules)
    func swipe(_ rule: Rule) {
        let error = #expect(throws: SwipeError.self) { try SwipeResponse(callbackURLString: rule.url) }
        #expect(error?.code.rawValue == rule.code)
    }

    // MARK: SumUp (sumup §2)

    static let sumUpSuccess = "my-app://cb?smp-status=success&smp-tx-code=TEENSK4W2K"
    static let sumUpRules = [
        Rule(rule: "the URL is at most 16 KiB", url: sumUpSuccess + "&x=" + long, code: "unreadable_callback"),
        Rule(rule: "every value decodes", url: sumUpSuccess + "&x=%ZZ", code: "unreadable_callback"),
        Rule(rule: "the status is there", url: "my-app://cb?smp-tx-code=T1", code: "invalid_status"),
        Rule(rule: "an empty status is no status", url: "my-app://cb?smp-status=", code: "invalid_status"),
        Rule(rule: "the status is allow-listed", url: "my-app://cb?smp-status=Success", code: "invalid_status"),
        Rule(rule: "the status appears once", url: sumUpSuccess + "&smp-status=failed", code: "duplicate_parameter"),
        Rule(rule: "the status has a value", url: "my-app://cb?smp-status", code: "invalid_field"),
        Rule(
            rule: "the transaction code appears once",
            url: sumUpSuccess + "&smp-tx-code=T2",
            code: "duplicate_parameter"
        ),
        Rule(
            rule: "the transaction code is letters, digits, - and _",
            url: "my-app://cb?smp-status=success&smp-tx-code=T.1",
            code: "invalid_field"
        ),
        Rule(
            rule: "the transaction code is at most 64 characters",
            url: "my-app://cb?smp-status=success&smp-tx-code=" + String(repeating: "T", count: 65),
            code: "invalid_field"
        ),
        Rule(
            rule: "the transaction code holds no card number",
            url: "my-app://cb?smp-status=success&smp-tx-code=4111111111111111",
            code: "card_number_refused"
        ),
        Rule(
            rule: "the foreign id is printable ASCII",
            url: sumUpSuccess + "&foreign-tx-id=%C3%A9",
            code: "invalid_field"
        ),
        Rule(
            rule: "the foreign id is at most 128 characters",
            url: sumUpSuccess + "&foreign-tx-id=" + String(repeating: "f", count: 129),
            code: "invalid_field"
        ),
        Rule(
            rule: "the foreign id holds no card number",
            url: sumUpSuccess + "&foreign-tx-id=4111-1111-1111-1111",
            code: "card_number_refused"
        ),
        Rule(
            rule: "the message has no control character",
            url: sumUpSuccess + "&smp-message=a%00b",
            code: "invalid_field"
        ),
        Rule(
            rule: "the message is at most 1024 characters",
            url: sumUpSuccess + "&smp-message=" + String(repeating: "m", count: 1025),
            code: "invalid_field"
        ),
    ]

    @Test("SumUp", arguments: sumUpRules)
    func sumUp(_ rule: Rule) {
        let error = #expect(throws: SumUpError.self) { try SumUpResponse(callbackURLString: rule.url) }
        #expect(error?.code.rawValue == rule.code)
    }

    // MARK: Square Point of Sale (square §2.2)

    static func squareURL(_ json: String, _ tail: String = "") -> String {
        "my-app://cb/square_request?data=" + PercentEncoding.encode(json) + tail
    }
    static let squareRules = [
        Rule(
            rule: "the URL is at most 64 KiB",
            url: squareURL(#"{"status":"ok"}"#, "&x=" + String(repeating: "a", count: 64 * 1024)),
            code: "missing_or_invalid_response_data"
        ),
        Rule(
            rule: "every value decodes",
            url: squareURL(#"{"status":"ok"}"#, "&x=%ZZ"),
            code: "missing_or_invalid_response_data"
        ),
        Rule(
            rule: "data appears once",
            url: squareURL(#"{"status":"ok"}"#, "&data=x"),
            code: "missing_or_invalid_response_data"
        ),
        Rule(rule: "data has a value", url: "my-app://cb?data=", code: "missing_or_invalid_response_data"),
        Rule(
            rule: "data is strict JSON: no duplicate key",
            url: squareURL(#"{"status":"ok","status":"ok"}"#),
            code: "missing_or_invalid_response_json_data"
        ),
        Rule(
            rule: "data is strict JSON: no trailing comma",
            url: squareURL(#"{"status":"ok",}"#),
            code: "missing_or_invalid_response_json_data"
        ),
        Rule(rule: "data is an object", url: squareURL(#"["ok"]"#), code: "missing_or_invalid_response_json_data"),
        Rule(
            rule: "the status is the string ok or error",
            url: squareURL(#"{"status":"OK"}"#),
            code: "missing_or_invalid_response_status"
        ),
        Rule(
            rule: "transaction_id is an identifier",
            url: squareURL(#"{"status":"ok","transaction_id":"a b"}"#),
            code: "missing_or_invalid_response_json_data"
        ),
        Rule(
            rule: "client_transaction_id is at most 192 characters",
            url: squareURL(#"{"status":"ok","client_transaction_id":"\#(String(repeating: "c", count: 193))"}"#),
            code: "missing_or_invalid_response_json_data"
        ),
        Rule(
            rule: "transaction_id holds no card number",
            url: squareURL(#"{"status":"ok","transaction_id":"4111111111111111"}"#),
            code: "missing_or_invalid_response_json_data"
        ),
        Rule(
            rule: "an error has an error_code string",
            url: squareURL(#"{"status":"error","error_code":0}"#),
            code: "missing_or_invalid_response_error_code"
        ),
        Rule(
            rule: "error_code is a code",
            url: squareURL(#"{"status":"error","error_code":"a b"}"#),
            code: "missing_or_invalid_response_error_code"
        ),
    ]

    @Test("Square Point of Sale", arguments: squareRules)
    func square(_ rule: Rule) {
        let error = #expect(throws: SquareError.self) { try SquareResponse(callbackURLString: rule.url) }
        #expect(error?.code.rawValue == rule.code)
    }

    // MARK: SoftPOS (softpos §2)

    static func softPOSURL(_ json: String, _ tail: String = "") -> String {
        "my-app://cb?result=" + PercentEncoding.encode(json) + tail
    }
    static let hostResult = #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{}}}"#
    static func host(_ members: String) -> String { #"{"result":{"# + members + "}}" }
    static let softPOSRules = [
        Rule(
            rule: "the URL is at most 64 KiB",
            url: softPOSURL(hostResult, "&x=" + String(repeating: "a", count: 64 * 1024)),
            code: "unreadable_callback"
        ),
        Rule(rule: "every value decodes", url: softPOSURL(hostResult, "&x=%ZZ"), code: "unreadable_callback"),
        Rule(rule: "there is a result", url: "my-app://cb?x=1", code: "missing_or_duplicate_result"),
        Rule(
            rule: "result appears once",
            url: softPOSURL(hostResult, "&result=x"),
            code: "missing_or_duplicate_result"
        ),
        Rule(
            rule: "result and error are not both given",
            url: softPOSURL(hostResult, "&error=x"),
            code: "missing_or_duplicate_result"
        ),
        Rule(
            rule: "the JSON is strict: no duplicate key",
            url: softPOSURL(#"{"result":{},"result":{}}"#),
            code: "invalid_json"
        ),
        Rule(
            rule: "the JSON nests at most 16 levels",
            url: softPOSURL(
                #"{"result":"# + String(repeating: "[", count: 17) + String(repeating: "]", count: 17) + "}"
            ),
            code: "invalid_json"
        ),
        Rule(rule: "the JSON is an object", url: softPOSURL("[]"), code: "invalid_result"),
        Rule(rule: "result or error, not both", url: softPOSURL(#"{"result":{},"error":{}}"#), code: "invalid_result"),
        Rule(rule: "result or error is there", url: softPOSURL(#"{"other":1}"#), code: "invalid_result"),
        Rule(
            rule: "the refusal code is a string",
            url: softPOSURL(host(#""refusalCode":0,"transactionId":"1","customMessage":{}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the refusal code is 1–8 letters or digits",
            url: softPOSURL(host(#""refusalCode":"0-0","transactionId":"1","customMessage":{}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "an approval names its transaction",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"","customMessage":{}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the transaction id is a string",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":7,"customMessage":{}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the transaction id is at most 64 letters, digits, - _ .",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"a b","customMessage":{}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the transaction id holds no card number",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"4111111111111111","customMessage":{}"#)),
            code: "card_number_refused"
        ),
        Rule(
            rule: "the custom message is there",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"1""#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the custom message has at most 64 entries",
            url: softPOSURL(
                host(
                    #""refusalCode":"00","transactionId":"1","customMessage":{"#
                        + (0...64).map { "\"k\($0)\":\"v\"" }.joined(separator: ",") + "}"
                )
            ),
            code: "invalid_result"
        ),
        Rule(
            rule: "a custom message key is 1–64 characters",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"1","customMessage":{"":"x"}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "a custom message key holds no card number",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"1","customMessage":{"4111111111111111":"x"}"#)),
            code: "card_number_refused"
        ),
        Rule(
            rule: "a custom message value is at most 256 characters",
            url: softPOSURL(
                host(
                    #""refusalCode":"00","transactionId":"1","customMessage":{"a":""#
                        + String(repeating: "b", count: 257) + "\"}"
                )
            ),
            code: "invalid_result"
        ),
        Rule(
            rule: "a custom message value is a string or a number",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"1","customMessage":{"a":true}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "a custom message value has no control character",
            url: softPOSURL(host(#""refusalCode":"00","transactionId":"1","customMessage":{"a":"\n"}"#)),
            code: "invalid_result"
        ),
        Rule(
            rule: "the token appears once",
            url: softPOSURL(hostResult, "&tender_token=a&tender_token=a"),
            code: "invalid_correlation_token"
        ),
    ]

    @Test("SoftPOS", arguments: softPOSRules)
    func softPOS(_ rule: Rule) {
        let error = #expect(throws: SoftPOSError.self) { try SoftPOSResponse(callbackURLString: rule.url) }
        #expect(error?.code.rawValue == rule.code)
    }

    @Test("each rule's callback is valid once the rule is met: the refusal is the rule's alone")
    func validWithoutTheBreak() throws {
        _ = try SwipeResponse(callbackURLString: Self.swipeApproved + "&tender_token=a&ifcc_transactionId=T-1")
        _ = try SumUpResponse(callbackURLString: Self.sumUpSuccess + "&foreign-tx-id=order-1&smp-message=ok")
        _ = try SquareResponse(callbackURLString: Self.squareURL(#"{"status":"ok","transaction_id":"T1"}"#))
        _ = try SoftPOSResponse(callbackURLString: Self.softPOSURL(Self.hostResult, "&tender_token=a"))
    }
}
