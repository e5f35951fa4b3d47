import ArgumentParser
import Foundation
import Tender

/// `tender sumup …`.
struct SumUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sumup",
        abstract: "SumUp payment requests.",
        subcommands: [SumUpRequestCommand.self]
    )
}

/// The flags of a SumUp request, shared by `sumup request` and `pay sumup`.
struct SumUpRequestOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The amount, such as 10.00; it goes out with two decimals.", valueName: "decimal")
    )
    var amount: String

    @Option(help: ArgumentHelp("The ISO 4217 currency of the merchant account, such as EUR.", valueName: "code"))
    var currency: String

    @Option(name: .customLong("affiliate-key"), help: "The affiliate key SumUp issued for your app.")
    var affiliateKey: String

    @Option(help: "Shown on the payment screen and the receipt.")
    var title: String?

    @Option(name: .customLong("callback-success"), help: "The URL SumUp opens after a successful payment.")
    var callbackSuccess: String?

    @Option(name: .customLong("callback-fail"), help: "The URL SumUp opens otherwise.")
    var callbackFail: String?

    @Option(name: .customLong("receipt-email"), help: "Prefill the receipt e-mail address.")
    var receiptEmail: String?

    @Option(name: .customLong("receipt-phone"), help: "Prefill the receipt phone number.")
    var receiptPhone: String?

    @Option(
        name: .customLong("foreign-transaction-id"),
        help: "Your unique id for the payment (at most 128 printable ASCII characters); SumUp echoes it."
    )
    var foreignTransactionID: String?

    @Flag(name: .customLong("skip-success-screen"), help: "Skip SumUp's success screen (app 1.69 and later).")
    var skipSuccessScreen = false

    /// Builds the request from the flags, with errors that say what to fix.
    func request() throws -> SumUpRequest {
        let money = try OptionParsing.money(amount, currency: try OptionParsing.currency(currency))
        let example = "my-app://sumup-done"
        let request = SumUpRequest(
            amount: money,
            affiliateKey: affiliateKey,
            title: title,
            callbackSuccess: try OptionParsing.callbackURL(
                callbackSuccess,
                flag: "--callback-success",
                example: example
            ),
            callbackFail: try OptionParsing.callbackURL(callbackFail, flag: "--callback-fail", example: example),
            receiptEmail: receiptEmail,
            receiptMobilePhone: receiptPhone,
            foreignTransactionID: foreignTransactionID,
            skipsSuccessScreen: skipSuccessScreen
        )
        _ = try request.urlString()  // every rule, so errors surface here
        return request
    }
}

/// `tender sumup request`: prints the request URL.
struct SumUpRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens SumUp for a payment.",
        discussion: "The currency must be the logged-in merchant's; SumUp refuses the payment otherwise."
    )

    @OptionGroup var options: SumUpRequestOptions

    func run() async throws {
        Output.line(try options.request().urlString())
    }
}
