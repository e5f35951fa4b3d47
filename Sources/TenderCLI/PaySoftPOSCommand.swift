import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay softpos …`: `--callback` (alias `--response-url`) is required, since the token goes on it.
struct PaySoftPOSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "softpos",
        abstract: "Record a SoftPOS sale or refund and print its request URL (the token goes on the --callback URL)."
    )

    @OptionGroup var request: SoftPOSRequestOptions

    @Option(
        name: CallbackOption.names("response-url"),
        help: ArgumentHelp(
            "Your app's URL that SoftPOS opens with the result (SoftPOS's responseUrl).",
            valueName: "url"
        ),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL

    @OptionGroup var options: PayOptions

    func run() async throws {
        try PayCommand.pay(try request.request(responseURL: callback), options: options)
    }
}
