import ArgumentParser
import Foundation
import Tender

/// `tender swipe …`.
struct SwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Swipe (appninjas) charge requests.",
        subcommands: [SwipeRequestCommand.self]
    )
}

/// The flags of a Swipe request, shared by `swipe request` and `pay swipe`. Each command declares `--return-url` and
/// `--return-app-name` itself: optional for a request, required by `pay`, which carries its token on the return URL.
struct SwipeRequestOptions: ParsableArguments {
    @OptionGroup var amount: AmountOptions

    @Option(
        help: ArgumentHelp(
            "The merchant account's currency, with two decimal places (Swipe sends none).",
            valueName: "code"
        )
    )
    var currency: String = "USD"

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

    /// The flags that set each field the library's messages name.
    func flagNames() -> FlagNames {
        FlagNames(
            fields: [
                "returnURL": "--return-url", "returnAppName": "--return-app-name", "email": "--email",
                "firstName": "--billing-first-name", "lastName": "--billing-last-name", "address": "--billing-address",
                "city": "--billing-city", "state": "--billing-state", "zip": "--billing-zip",
                "phone": "--billing-phone",
                "country": "--billing-country", "invoiceNumber": "--invoice-number",
                "purchaseDescription": "--description",
            ],
            codes: [
                "invalid_amount": amount.flag, "unsupported_currency": "--currency",
                "invalid_return_url": "--return-url", "missing_return_app_name": "--return-app-name",
            ]
        )
    }

    /// Builds the request from the flags, with errors that say what to fix and name the flag.
    func request(returnURL: String?, returnAppName: String?) throws -> SwipeRequest {
        let money = try amount.money(
            in: try OptionParsing.currency(currency),
            maximum: Self.maximumMinorUnits
        )
        let returnURL = try OptionParsing.callbackURL(returnURL, flag: "--return-url", example: "my-app://swipe-done")
        if returnURL != nil {
            guard let name = returnAppName, !name.isEmpty else {
                throw CLIError("--return-url needs --return-app-name too: your app's name as the customer sees it.")
            }
        } else if returnAppName != nil {
            throw CLIError("--return-app-name only matters with --return-url; add --return-url or drop it.")
        }
        let request = SwipeRequest(
            amount: money,
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
        _ = try flagNames().naming { try request.urlString() }  // every rule, so errors surface here
        return request
    }
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
        name: .customLong("return-url"),
        help: "Your app's URL that Swipe opens with the result; without it Swipe does not come back."
    )
    var returnURL: String?

    @Option(name: .customLong("return-app-name"), help: "Your app's name, required with --return-url.")
    var returnAppName: String?

    func run() async throws {
        Output.line(
            try sandbox.shown(try options.request(returnURL: returnURL, returnAppName: returnAppName).urlString())
        )
    }
}
