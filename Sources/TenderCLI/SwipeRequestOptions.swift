import ArgumentParser
import Foundation
import Tender

/// The flags of a Swipe request, shared by `swipe request` and `pay swipe`. Each command declares `--callback` (alias
/// `--return-url`) and `--return-app-name` itself: optional for a request, required by `pay`, which carries its token
/// on the return URL.
struct SwipeRequestOptions: ParsableArguments {
    @OptionGroup var amount: AmountOptions

    @Option(
        help: ArgumentHelp(
            "The merchant account's currency, with two decimal places (Swipe sends none; default USD).",
            valueName: "code"
        ),
        transform: ArgumentValue.currency
    )
    var currency: Currency = .usd

    @Flag(name: .customLong("filemaker"), help: "Ask for FileMaker-compatible responses (fm=1).")
    var fileMaker = false

    @Option(help: "The customer's e-mail address for the receipt.")
    var email: String?

    @Option(name: .customLong("billing-first-name"), help: "Billing first name.")
    var firstName: String?

    @Option(name: .customLong("billing-last-name"), help: "Billing last name.")
    var lastName: String?

    @Option(name: .customLong("billing-address"), help: "Billing street address.")
    var address: String?

    @Option(name: .customLong("billing-city"), help: "Billing city.")
    var city: String?

    @Option(name: .customLong("billing-state"), help: "Billing state or province code, such as OH or BC.")
    var state: String?

    @Option(name: .customLong("billing-zip"), help: "Billing zip or postal code.")
    var zip: String?

    @Option(name: .customLong("billing-phone"), help: "Billing phone number.")
    var phone: String?

    @Option(name: .customLong("billing-country"), help: "Billing country code, such as US.")
    var country: String?

    @Option(name: .customLong("invoice-number"), help: "The merchant's invoice number.")
    var invoiceNumber: String?

    @Option(name: .customLong("description"), help: "A description of the goods or service.")
    var purchaseDescription: String?

    /// The most minor units Swipe's wire carries: 9999999999.99 (swipe §1, Tender's bound).
    static let maximumMinorUnits = 999_999_999_999

    /// Swipe comes back only with both a return URL and the app's name to show: neither, or both.
    static func checkReturn(callback: URL?, returnAppName: String?) throws {
        if callback != nil {
            guard let name = returnAppName, !name.isEmpty else {
                throw CLIError("--callback needs --return-app-name too: your app's name as the customer sees it.")
            }
        } else if returnAppName != nil {
            throw CLIError(
                "--return-app-name only matters with --callback (alias --return-url, Swipe's return URL); add it or "
                    + "drop --return-app-name."
            )
        }
    }

    /// The request the flags describe, every rule checked, its errors naming the flag to fix.
    func request(returnURL: URL?, returnAppName: String?) throws -> SwipeRequest {
        let request = SwipeRequest(
            amount: try amount.money(in: currency, maximum: Self.maximumMinorUnits),
            returnURL: returnURL,
            returnAppName: returnAppName,
            usesFileMakerResponses: fileMaker,
            email: email,
            firstName: firstName,
            lastName: lastName,
            address: address,
            city: city,
            state: state,
            zip: zip,
            phone: phone,
            country: country,
            invoiceNumber: invoiceNumber,
            purchaseDescription: purchaseDescription
        )
        do {
            _ = try request.urlString()
        } catch let error as SwipeError {
            let flag: String? =
                switch error.code {
                case .invalidAmount: amount.flag
                case .unsupportedCurrency: "--currency"
                case .invalidReturnURL: "--callback"
                case .missingReturnAppName: "--return-app-name"
                default: nil
                }
            guard error.code != .requestTooLong else {
                throw CLIError(tooLong: [
                    "--email": email, "--billing-first-name": firstName, "--billing-last-name": lastName,
                    "--billing-address": address, "--billing-city": city, "--billing-state": state,
                    "--billing-zip": zip,
                    "--billing-phone": phone, "--billing-country": country, "--invoice-number": invoiceNumber,
                    "--description": purchaseDescription, "--callback": returnURL?.absoluteString,
                    "--return-app-name": returnAppName,
                ])
            }
            throw CLIError(error, flag: flag)
        }
        return request
    }
}
