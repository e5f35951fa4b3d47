import Foundation
import Testing

/// A negative number given to a numeric option reaches Tender's own checks, whose message says what to do, instead
/// of ArgumentParser reading it as a flag ("Missing value for '--amount <minor-units>'").
@Suite("numeric options take negative numbers as values")
struct NumericOptionCLITests {
    @Test(
        "a negative value gets the option's own message, not 'Missing value'",
        arguments: [
            (
                [
                    "square", "request", "--application-id", "X", "--callback", "my-app://done", "--amount", "-5",
                    "--currency", "USD",
                ],
                "The amount must be at least 1 minor unit"
            ),
            (["swipe", "request", "--amount", "-5"], "--amount: The amount must be at least 0.01"),
            (
                ["softpos", "request", "--type", "sale", "--amount", "-5", "--currency", "EUR"],
                "The amount must be a positive number of cents"
            ),
            (
                ["sumup", "request", "--amount", "-5", "--currency", "EUR", "--affiliate-key", "K"],
                "The amount must be positive"
            ),
            (["sandbox", "--port", "-1"], "--port must be between 0 and 65535; got -1."),
            (["simulate", "sumupmerchant://pay/1.0?amount=1.00&currency=EUR", "--seed", "-1"], "'-1'"),
            (["demo", "--seed", "-1"], "'-1'"),
            (
                ["square", "authorize", "--location-id", "L", "--timeout", "-5"],
                "'--timeout <seconds>': it must be a positive number of seconds"
            ),
            (
                [
                    "pay", "sumup", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K",
                    "--callback-success", "my-app://s", "--expires-in", "-5m",
                ],
                "'--expires-in <duration>': it must be a duration such as 90s"
            ),
        ]
    )
    func negative(arguments: [String], fragment: String) async throws {
        let stderr = try await expectBadInput(arguments, mentioning: fragment)
        #expect(!stderr.contains("Missing value"), "\(stderr)")
    }
}
