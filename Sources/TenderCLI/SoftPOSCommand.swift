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

/// The flags of a SoftPOS request, shared by `softpos request` and `pay softpos`. Each command declares
/// `--response-url` itself: optional for a request, required by `pay`, which carries its token on it.
struct SoftPOSRequestOptions: ParsableArguments {
    @Option(help: ArgumentHelp("sale or refund.", valueName: "type"))
    var type: String

    @OptionGroup var amount: AmountOptions

    @Option(help: ArgumentHelp("The currency: EUR, the only one SoftPOS accepts.", valueName: "code"))
    var currency: String

    @Option(
        name: .customLong("original-transaction-id"),
        help: "For a refund: the transactionId of the sale being refunded."
    )
    var originalTransactionID: String?

    /// The flags that set each field the library's messages name.
    func flagNames() -> FlagNames {
        FlagNames(
            fields: [
                "originalTranId": "--original-transaction-id",
                "originalTransactionID": "--original-transaction-id", "responseUrl": "--response-url",
                "responseURL": "--response-url",
            ],
            codes: [
                "invalid_amount": amount.flag, "unsupported_currency": "--currency",
                "missing_original_transaction_id": "--original-transaction-id",
                "unexpected_original_transaction_id": "--original-transaction-id",
                "invalid_original_transaction_id": "--original-transaction-id",
                "invalid_response_url": "--response-url",
            ]
        )
    }

    /// Builds the request from the flags, with errors that say what to fix and name the flag.
    func request(responseURL: String?) throws -> SoftPOSRequest {
        guard let kind = SoftPOSRequest.Kind(rawValue: type) else {
            throw CLIError("--type must be sale or refund; got '\(CardNumberScreen.excerpt(type))'.")
        }
        switch (kind, originalTransactionID) {
        case (.refund, nil):
            throw CLIError("--type refund needs --original-transaction-id: the transactionId of the sale to refund.")
        case (.sale, .some):
            throw CLIError("--original-transaction-id is for refunds only; drop it for a sale, or use --type refund.")
        default: break
        }
        let currency = try OptionParsing.currency(self.currency)
        let money = try amount.money(in: currency, maximum: SoftPOSRequest.maximumAmount)
        let responseURL = try OptionParsing.callbackURL(
            responseURL,
            flag: "--response-url",
            example: "my-app://softpos-done"
        )
        let request = SoftPOSRequest(
            kind: kind,
            amount: money,
            originalTransactionID: originalTransactionID,
            responseURL: responseURL
        )
        _ = try flagNames().naming { try request.urlString() }  // every rule, so errors surface here
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
    @OptionGroup var sandbox: SandboxPageOption

    @Option(name: .customLong("response-url"), help: "Your app's URL that SoftPOS opens with the result.")
    var responseURL: String?

    func run() async throws {
        Output.line(try sandbox.shown(try options.request(responseURL: responseURL).urlString()))
    }
}
