import ArgumentParser
import Foundation
import Tender

/// `tender sumup …`.
struct SumUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sumup",
        abstract: "SumUp payment requests.",
        subcommands: [SumUpRequestCommand.self, UnknownCommand<Self>.self],
        defaultSubcommand: UnknownCommand<Self>.self
    )
}

/// `tender sumup request`: prints the request URL.
struct SumUpRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens SumUp for a payment.",
        discussion: "The currency must be the logged-in merchant's; SumUp refuses the payment otherwise."
    )

    @OptionGroup var options: SumUpRequestOptions
    @OptionGroup var sandbox: SandboxPageOption

    @Option(
        name: CallbackOption.names("callback-success"),
        help: ArgumentHelp(
            "The URL SumUp opens after the payment (its callbacksuccess, and its callbackfail unless --callback-fail "
                + "is given); without either SumUp does not come back.",
            valueName: "url"
        ),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL?

    @Option(
        name: .customLong("callback-fail"),
        help: ArgumentHelp("The URL SumUp opens after a failed payment instead (callbackfail).", valueName: "url"),
        transform: ArgumentValue.callbackURL
    )
    var callbackFail: URL?

    @Option(
        name: .customLong("foreign-transaction-id"),
        help: ArgumentHelp(
            "Your unique id for the payment (at most 128 printable ASCII characters); SumUp echoes it.",
            valueName: "id"
        )
    )
    var foreignTransactionID: String?

    func run() async throws {
        let request = try options.request(
            callbackSuccess: callback,
            callbackFail: callbackFail ?? callback,
            foreignTransactionID: foreignTransactionID
        )
        Output.line(try sandbox.shown(try request.urlString()))
    }
}
