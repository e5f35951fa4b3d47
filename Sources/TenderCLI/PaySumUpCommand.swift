import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay sumup …`. There is no `--foreign-transaction-id`: the hand-off gives every SumUp payment a
/// `foreign-tx-id` of its own, kept in the journal and sent again on a reopen, and `--payment-id` names the payment.
/// `--callback` (alias `--callback-success`) is required, and is where SumUp comes back whatever the outcome unless
/// `--callback-fail` names another URL for failures.
struct PaySumUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sumup",
        abstract:
            "Record a SumUp payment and print its request URL (with a foreign-tx-id of its own, kept in the journal)."
    )

    @OptionGroup var request: SumUpRequestOptions

    @Option(
        name: CallbackOption.names("callback-success"),
        help: ArgumentHelp(
            "The URL SumUp opens after the payment (its callbacksuccess, and its callbackfail unless --callback-fail "
                + "is given, so that SumUp always comes back).",
            valueName: "url"
        ),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL

    @Option(
        name: .customLong("callback-fail"),
        help: ArgumentHelp("The URL SumUp opens after a failed payment instead (callbackfail).", valueName: "url"),
        transform: ArgumentValue.callbackURL
    )
    var callbackFail: URL?

    @OptionGroup var options: PayOptions

    func run() async throws {
        try PayCommand.pay(
            try request.request(callbackSuccess: callback, callbackFail: callbackFail ?? callback),
            options: options
        )
    }
}
