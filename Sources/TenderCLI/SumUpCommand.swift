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

/// The flags of a SumUp request, shared by `sumup request` and `pay sumup`. `--foreign-transaction-id` is
/// `sumup request`'s alone (`pay` gives every payment its own, kept in the journal), and each command declares the callback
/// URLs itself: optional for a request, `--callback-success` required by `pay`.
struct SumUpRequestOptions: ParsableArguments {
    @OptionGroup var amount: AmountOptions

    @Option(help: ArgumentHelp("The ISO 4217 currency of the merchant account, such as EUR.", valueName: "code"))
    var currency: String

    @Option(name: .customLong("affiliate-key"), help: "The affiliate key SumUp issued for your app.")
    var affiliateKey: String

    @Option(help: "Shown on the payment screen and the receipt.")
    var title: String?

    @Option(name: .customLong("receipt-email"), help: "Prefill the receipt e-mail address.")
    var receiptEmail: String?

    @Option(name: .customLong("receipt-phone"), help: "Prefill the receipt phone number.")
    var receiptPhone: String?

    @Flag(name: .customLong("skip-success-screen"), help: "Skip SumUp's success screen (app 1.69 and later).")
    var skipSuccessScreen = false

    @Option(
        name: .customLong("tag"),
        help: ArgumentHelp(
            "A tag of your own for the payment, sent as smpprtag-KEY=VALUE; repeat for more (an empty VALUE is left out).",
            valueName: "key=value"
        )
    )
    var tags: [String] = []

    /// The flags that set each field the library's messages name.
    func flagNames() -> FlagNames {
        FlagNames(
            fields: [
                "affiliateKey": "--affiliate-key", "affiliate-key": "--affiliate-key", "title": "--title",
                "callbackSuccess": "--callback-success", "callbacksuccess": "--callback-success",
                "callbackFail": "--callback-fail", "callbackfail": "--callback-fail",
                "receiptEmail": "--receipt-email", "receipt-email": "--receipt-email",
                "receiptMobilePhone": "--receipt-phone", "receipt-mobilephone": "--receipt-phone",
                "foreignTransactionID": "--foreign-transaction-id", "foreign-tx-id": "--foreign-transaction-id",
                "tags": "--tag",
            ],
            codes: [
                "invalid_amount": amount.flag, "missing_affiliate_key": "--affiliate-key",
                "invalid_foreign_transaction_id": "--foreign-transaction-id", "invalid_tag": "--tag",
            ]
        )
    }

    /// The most minor units SumUp's wire carries in `currency`: 9999999999.99 (sumup §1, Tender's bound).
    static func maximumMinorUnits(in currency: Currency) -> Int {
        let hundredths = 999_999_999_999
        guard currency.exponent != 2 else { return hundredths }
        if currency.exponent < 2 { return hundredths / (currency.exponent == 1 ? 10 : 100) }
        return (2..<currency.exponent).reduce(hundredths) { value, _ in value * 10 }
    }

    /// The `--tag KEY=VALUE` flags as a dictionary: each split at its first `=`, each key given once.
    func tagDictionary() throws -> [String: String] {
        var tags: [String: String] = [:]
        for text in self.tags {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CLIError(
                    "--tag must be KEY=VALUE with a non-empty KEY, such as --tag table=4; "
                        + "'\(CardNumberScreen.excerpt(text))' is not."
                )
            }
            let key = String(text[..<equals])
            guard tags.updateValue(String(text[text.index(after: equals)...]), forKey: key) == nil else {
                throw CLIError("--tag gives the key '\(CardNumberScreen.excerpt(key))' twice; give each key once.")
            }
        }
        return tags
    }

    /// Builds the request from the flags, with errors that say what to fix and name the flag.
    func request(
        callbackSuccess: String?,
        callbackFail: String?,
        foreignTransactionID: String? = nil
    ) throws -> SumUpRequest {
        let currency = try OptionParsing.currency(currency)
        let money = try amount.money(in: currency, maximum: Self.maximumMinorUnits(in: currency))
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
            skipsSuccessScreen: skipSuccessScreen,
            tags: try tagDictionary()
        )
        _ = try flagNames().naming { try request.urlString() }  // every rule, so errors surface here
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
    @OptionGroup var sandbox: SandboxPageOption

    @Option(name: .customLong("callback-success"), help: "The URL SumUp opens after a successful payment.")
    var callbackSuccess: String?

    @Option(name: .customLong("callback-fail"), help: "The URL SumUp opens otherwise.")
    var callbackFail: String?

    @Option(
        name: .customLong("foreign-transaction-id"),
        help: "Your unique id for the payment (at most 128 printable ASCII characters); SumUp echoes it."
    )
    var foreignTransactionID: String?

    func run() async throws {
        let request = try options.request(
            callbackSuccess: callbackSuccess,
            callbackFail: callbackFail,
            foreignTransactionID: foreignTransactionID
        )
        Output.line(try sandbox.shown(try request.urlString()))
    }
}
