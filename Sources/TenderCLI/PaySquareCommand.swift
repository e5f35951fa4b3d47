import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay square …`. There is no `--user-info`: the hand-off carries its one-time token in that field
/// (`state`), and `--payment-id` names the payment instead.
struct PaySquareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "square",
        abstract: "Record a Square Point of Sale payment and print its request URL (the token goes in state)."
    )

    @OptionGroup var request: SquareRequestOptions
    @OptionGroup var options: PayOptions

    func run() async throws {
        try PayCommand.pay(try request.request(), options: options)
    }
}
