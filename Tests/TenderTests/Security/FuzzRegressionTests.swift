import Testing

@testable import Tender

/// Inputs the fuzz targets (Fuzz/README.md) found breaking an invariant, kept as tests once fixed. Each input is
/// also in the target's seed corpus (`Fuzz/Corpus/<target>/regression-*`), so the fuzzer replays it on every run.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The `square-callback` target's input, exactly: its percent-escapes decode to an `error_code` of
    /// `UN41111111111111115FERROR_INVALID_CODE`, which holds the test card number 4111 1111 1111 1111.
    static let squareCallbackInput =
        "my-app://callback?data=%7B%22%73%74%61%74%75%73%22:%22%65%72%72%6F%72%22,%22%65%72%72%6F%72%5F%63%6F%64%65"
        + "%22:%22%55%4E41111111111111115F%45%52%52%4F%52%5F%49%4E%56%41%4C%49%44%5F%43%4F%44%45%22,%22%73%74%61%74"
        + "%65%22:%22%50%41%53%53%5F%4D%45%5F%42%41%43%4B%22%7D"

    @Test("a Square error_code holding a card number is refused, not recorded as the outcome (SEC-9; square-callback)")
    func squareErrorCodeWithCardNumber() {
        let error = #expect(throws: SquareError.self) {
            try SquareResponse(callbackURLString: Self.squareCallbackInput)
        }
        #expect(error?.code == .missingOrInvalidResponseErrorCode)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""))
    }

    @Test(
        "a Square transaction_id or client_transaction_id holding a card number is refused (SEC-9; square-callback)",
        arguments: ["transaction_id", "client_transaction_id"]
    )
    func squareIdentifierWithCardNumber(_ key: String) throws {
        let url = "my-app://cb?data=" + PercentEncoding.encode(#"{"status":"ok","\#(key)":"TX-4111111111111111"}"#)
        let error = #expect(throws: SquareError.self) { try SquareResponse(callbackURLString: url) }
        #expect(error?.code == .missingOrInvalidResponseJSONData)
        // The same shapes without a card number are still read.
        let fine = "my-app://cb?data=" + PercentEncoding.encode(#"{"status":"ok","\#(key)":"TX-4111111111"}"#)
        #expect(try SquareResponse(callbackURLString: fine).outcome.transactionID == "TX-4111111111")
    }

    @Test(
        "decoding a Square request never quotes a card number in its error (SEC-9; square-request)",
        arguments: [
            // The square-request target's input: a scheme of 2s, Luhn-valid, was quoted in the message.
            "O-22222222222222222222222-y-yy:\u{FFFD}y",
            "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(#"{"4111111111111111":1}"#),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"USD","4111111111111111":0}}"#
                ),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"4111111111111111"}}"#
                ),
            "square-commerce-v1://payment/create?data="
                + PercentEncoding.encode(
                    #"{"client_id":"A","amount_money":{"amount":1,"currency_code":"USD"},"callback_url":"a://b","#
                        + #""options":{"4111111111111111":true}}"#
                ),
        ]
    )
    func squareRequestErrorsMaskCardNumbers(_ url: String) {
        let error = #expect(throws: SquareError.self) { try SquareRequest(urlString: url) }
        #expect(error?.code == .invalidRequestData)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""), "\(error?.message ?? "")")
    }

    @Test("an unknown currency code is quoted masked and cut short (SEC-9)")
    func currencyCodeMasked() {
        let error = #expect(throws: MoneyError.self) {
            try Currency(code: "4111111111111111" + String(repeating: "Z", count: 90))
        }
        #expect(error?.code == .unknownCurrency)
        #expect(!CardNumberScreen.containsCardNumber(error?.message ?? ""))
        #expect((error?.message.count ?? .max) < 160)
    }
}
