import ArgumentParser
import Foundation
import Tender

/// The flags of a SumUp request, shared by `sumup request` and `pay sumup`. Each command declares where SumUp comes
/// back itself: `--callback` (alias `--callback-success`), whatever the outcome unless `--callback-fail` names another
/// URL for failures; optional for a request, required by `pay`, which carries its token on it.
/// `--foreign-transaction-id` is `sumup request`'s alone (`pay` gives every payment its own, kept in the journal).
struct SumUpRequestOptions: ParsableArguments {
    @OptionGroup var amount: AmountOptions

    @Option(
        help: ArgumentHelp("The ISO 4217 currency of the merchant account, such as EUR.", valueName: "code"),
        transform: ArgumentValue.currency
    )
    var currency: Currency

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

    func validate() throws {
        _ = try tagDictionary()
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
                        + "'\(UntrustedText.safe(text))' is not."
                )
            }
            let key = String(text[..<equals])
            guard tags.updateValue(String(text[text.index(after: equals)...]), forKey: key) == nil else {
                throw CLIError("--tag gives the key '\(UntrustedText.safe(key))' twice; give each key once.")
            }
        }
        return tags
    }

    /// The request the flags describe, every rule checked, its errors naming the flag to fix.
    func request(callbackSuccess: URL?, callbackFail: URL?, foreignTransactionID: String? = nil) throws -> SumUpRequest
    {
        let request = SumUpRequest(
            amount: try amount.money(in: currency, maximum: Self.maximumMinorUnits(in: currency)),
            affiliateKey: affiliateKey,
            title: title,
            callbackSuccess: callbackSuccess,
            callbackFail: callbackFail,
            receiptEmail: receiptEmail,
            receiptMobilePhone: receiptPhone,
            foreignTransactionID: foreignTransactionID,
            skipsSuccessScreen: skipSuccessScreen,
            tags: try tagDictionary()
        )
        do {
            _ = try request.urlString()
        } catch let error as SumUpError {
            let flag: String? =
                switch error.code {
                case .invalidAmount: amount.flag
                case .missingAffiliateKey: "--affiliate-key"
                case .invalidForeignTransactionID: "--foreign-transaction-id"
                case .invalidTag: "--tag"
                default: nil
                }
            guard error.code != .requestTooLong else {
                throw CLIError(tooLong: [
                    "--affiliate-key": affiliateKey, "--title": title, "--callback": callbackSuccess?.absoluteString,
                    "--callback-fail": callbackFail?.absoluteString, "--receipt-email": receiptEmail,
                    "--receipt-phone": receiptPhone, "--foreign-transaction-id": foreignTransactionID,
                    "--tag": self.tags.max { $0.utf8.count < $1.utf8.count },
                ])
            }
            throw CLIError(error, flag: flag)
        }
        return request
    }
}
