import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// The flags `tender pay` adds to every provider's request flags.
struct PayOptions: ParsableArguments {
    @OptionGroup var journal: JournalLocation

    @Option(
        name: .customLong("expires-in"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the payment accepts its callback as a success: 90s, 15m, 1h, at most 30d (default 15m).",
            valueName: "duration"
        ),
        transform: TimeSpan.expiry
    )
    var expiresIn: TimeSpan?

    @Option(
        name: .customLong("payment-id"),
        help: ArgumentHelp(
            "The payment's ID (1–64 letters, digits, - _ . :), such as an order number; default a new UUID.",
            valueName: "id"
        ),
        transform: Self.paymentID
    )
    var paymentID: PaymentID?

    @Flag(help: "Hand off a payment with this ID again although it is pending or unknown (it may charge twice).")
    var reopen = false

    @Option(
        help: ArgumentHelp(
            "Print the Tender sandbox's page for the request instead: the sandbox's base URL, such as http://127.0.0.1:8080.",
            valueName: "url"
        ),
        transform: ArgumentValue.sandboxURL
    )
    var sandbox: URL?

    @Flag(help: "Print one JSON object instead of the URL.")
    var json = false

    /// `--payment-id`'s value.
    static func paymentID(_ text: String) throws -> PaymentID {
        do {
            return try PaymentID(validating: text)
        } catch let error as HandoffError {
            throw CLIError(error.message)
        }
    }

    /// The sandbox page for `requestURL` when `--sandbox` is given.
    func sandboxPageURL(for requestURL: URL) throws -> URL? {
        guard let base = sandbox else { return nil }
        guard let page = SandboxOpener.pageURL(for: requestURL, baseURL: base) else {
            throw CLIError("The request URL cannot be sent to the sandbox.")
        }
        return page
    }
}
