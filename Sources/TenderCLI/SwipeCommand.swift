import ArgumentParser
import Foundation
import Tender

/// `tender swipe …`.
struct SwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Swipe (appninjas) charge requests.",
        subcommands: [SwipeRequestCommand.self, UnknownCommand<Self>.self],
        defaultSubcommand: UnknownCommand<Self>.self
    )
}

/// `tender swipe request`: prints the request URL.
struct SwipeRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens Swipe for a charge.",
        discussion: "Swipe has no currency parameter: the amount is in the merchant account's currency."
    )

    @OptionGroup var options: SwipeRequestOptions
    @OptionGroup var sandbox: SandboxPageOption

    @Option(
        name: CallbackOption.names("return-url"),
        help: ArgumentHelp(
            "Your app's URL that Swipe opens with the result (Swipe's returnURL); without it Swipe does not come back.",
            valueName: "url"
        ),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL?

    @Option(name: .customLong("return-app-name"), help: "Your app's name, required with --callback.")
    var returnAppName: String?

    func validate() throws {
        try SwipeRequestOptions.checkReturn(callback: callback, returnAppName: returnAppName)
    }

    func run() async throws {
        Output.line(
            try sandbox.shown(try options.request(returnURL: callback, returnAppName: returnAppName).urlString())
        )
    }
}
