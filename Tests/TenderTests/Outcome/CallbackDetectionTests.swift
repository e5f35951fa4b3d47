import Testing

@testable import Tender

/// `data` and `result` are names any app may use: a URL is Square's or SoftPOS's callback only when the value can be
/// that provider's JSON, so that detection never guesses a provider (issue 24; square §2.2, softpos §2).
@Suite("Callback detection does not guess a provider")
struct CallbackDetectionTests {
    @Test(
        "a common parameter name without the provider's JSON is nobody's callback",
        arguments: [
            "my-app://done?result=approved", "my-app://done?data=hello", "my-app://done?result=",
            "my-app://done?result", "my-app://done?data=%5B%5D", "my-app://done?result=true&data=1",
        ]
    )
    func notACallback(url: String) {
        #expect(PaymentURLKind.detect(url) == nil)
        let error = #expect(throws: CallbackDetectionError.self) { try PaymentCallbacks.parse(url) }
        #expect(error?.message.contains("JSON") == true)
    }

    @Test(
        "the provider's JSON, or a value that cannot be read (which its parser then reports), is its callback",
        arguments: [
            ("my-app://done?data=%7B%22status%22%3A%22ok%22%7D", PaymentProvider.square),
            ("my-app://done?data={}", .square), ("my-app://done?data=%7b%7d", .square),
            ("my-app://done?data=%20%7B%7D", .square), ("my-app://done?data=%ZZ", .square),
            ("my-app://done?result=%7B%7D", .softPOS), ("my-app://done?result=%0A%7B", .softPOS),
            ("my-app://done?result=x&result=%7B%7D", .softPOS), ("my-app://done?result=%FF", .softPOS),
            // Square's marker (square §1.3) makes any data Square's, for its parser to refuse when it is not JSON.
            ("my-app://done/square_request?data=1&data=2", .square), ("my-app://square_request?data=x", .square),
        ]
    )
    func callback(url: String, provider: PaymentProvider) {
        #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: provider, direction: .response))
    }
}
