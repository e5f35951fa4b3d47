import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay swipe …`: `--callback` (alias `--return-url`) and `--return-app-name` are required, since the token
/// goes on the return URL and Swipe comes back only with both.
struct PaySwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Record a Swipe payment and print its request URL (the token goes on the --callback URL)."
    )

    @OptionGroup var request: SwipeRequestOptions

    @Option(
        name: CallbackOption.names("return-url"),
        help: ArgumentHelp("Your app's URL that Swipe opens with the result (Swipe's returnURL).", valueName: "url"),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL

    @Option(name: .customLong("return-app-name"), help: "Your app's name as the customer sees it.")
    var returnAppName: String

    @OptionGroup var options: PayOptions

    func validate() throws {
        try SwipeRequestOptions.checkReturn(callback: callback, returnAppName: returnAppName)
    }

    func run() async throws {
        try PayCommand.pay(try request.request(returnURL: callback, returnAppName: returnAppName), options: options)
    }
}
