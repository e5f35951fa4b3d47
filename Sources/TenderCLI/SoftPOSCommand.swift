import ArgumentParser
import Foundation
import Tender

/// `tender softpos …`.
struct SoftPOSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "softpos",
        abstract: "Comercia Global Payments SoftPOS sales and refunds.",
        subcommands: [SoftPOSRequestCommand.self]
    )
}

/// The flags of a SoftPOS request, shared by `softpos request` and `pay softpos`.
struct SoftPOSRequestOptions: ParsableArguments {
    @Option(help: ArgumentHelp("sale or refund.", valueName: "type"))
    var type: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The amount in cents: 200 is 2.00 €.", valueName: "minor-units")
    )
    var amount: String

    @Option(help: ArgumentHelp("The currency: EUR, the only one SoftPOS accepts.", valueName: "code"))
    var currency: String

    @Option(
        name: .customLong("original-transaction-id"),
        help: "For a refund: the transactionId of the sale being refunded."
    )
    var originalTransactionID: String?

    @Option(name: .customLong("response-url"), help: "Your app's URL that SoftPOS opens with the result.")
    var responseURL: String?

    /// Builds the request from the flags, with errors that say what to fix.
    func request() throws -> SoftPOSRequest {
        guard let kind = SoftPOSRequest.Kind(rawValue: type) else {
            throw CLIError("--type must be sale or refund; got '\(type)'.")
        }
        switch (kind, originalTransactionID) {
        case (.refund, nil):
            throw CLIError("--type refund needs --original-transaction-id: the transactionId of the sale to refund.")
        case (.sale, .some):
            throw CLIError("--original-transaction-id is for refunds only; drop it for a sale, or use --type refund.")
        default: break
        }
        guard let minorUnits = Int(amount) else {
            throw CLIError("--amount must be a whole number of cents, such as 200 for 2.00 €; got '\(amount)'.")
        }
        let currency = try OptionParsing.currency(self.currency)
        let responseURL = try OptionParsing.callbackURL(
            self.responseURL,
            flag: "--response-url",
            example: "my-app://softpos-done"
        )
        let request = SoftPOSRequest(
            kind: kind,
            amount: Money(minorUnits: minorUnits, currency: currency),
            originalTransactionID: originalTransactionID,
            responseURL: responseURL
        )
        _ = try request.urlString()  // every rule, so errors surface here
        return request
    }
}

/// `tender softpos request`: prints the request URL.
struct SoftPOSRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens SoftPOS for a sale or a refund.",
        discussion: "A refund needs --original-transaction-id; a sale must not have one. EUR only."
    )

    @OptionGroup var options: SoftPOSRequestOptions

    func run() async throws {
        Output.line(try options.request().urlString())
    }
}
