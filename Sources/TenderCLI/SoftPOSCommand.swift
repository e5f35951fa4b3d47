import ArgumentParser
import Foundation
import Tender

/// `tender softpos …`.
struct SoftPOSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "softpos",
        abstract: "Comercia Global Payments SoftPOS sales and refunds.",
        subcommands: [SoftPOSRequestCommand.self, UnknownCommand<Self>.self],
        defaultSubcommand: UnknownCommand<Self>.self
    )
}

/// `tender softpos request`: prints the request URL.
struct SoftPOSRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens SoftPOS for a sale or a refund.",
        discussion: "A refund needs --original-transaction-id; a sale must not have one. EUR only."
    )

    @OptionGroup var options: SoftPOSRequestOptions
    @OptionGroup var sandbox: SandboxPageOption

    @Option(
        name: CallbackOption.names("response-url"),
        help: ArgumentHelp(
            "Your app's URL that SoftPOS opens with the result (SoftPOS's responseUrl).",
            valueName: "url"
        ),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL?

    func run() async throws {
        Output.line(try sandbox.shown(try options.request(responseURL: callback).urlString()))
    }
}
