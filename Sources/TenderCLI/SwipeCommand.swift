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

/// The flags of a Swipe request, shared by `swipe request` and `pay swipe`.
struct SwipeRequestOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The amount, such as 10.99; it goes out with two decimals (5 → 5.00).", valueName: "decimal")
    )
    var amount: String

    @Option(
        help: ArgumentHelp(
            "The merchant account's currency, with two decimal places (Swipe sends none).",
            valueName: "code"
        )
    )
    var currency: String = "USD"

    @Option(name: .customLong("return-url"), help: "Your app's URL that Swipe opens with the result.")
    var returnURL: String?

    @Option(name: .customLong("return-app-name"), help: "Your app's name, required with --return-url.")
    var returnAppName: String?

    @Flag(name: .customLong("filemaker"), help: "Ask for FileMaker-compatible responses (fm=1).")
    var fileMaker = false

    @Option(help: "The customer's e-mail address for the receipt.")
    var email: String?

    @Option(name: .customLong("first-name"), help: "Billing first name.")
    var firstName: String?

    @Option(name: .customLong("last-name"), help: "Billing last name.")
    var lastName: String?

    @Option(help: "Billing street address.")
    var address: String?

    @Option(help: "Billing city.")
    var city: String?

    @Option(help: "Billing state or province code, such as OH or BC.")
    var state: String?

    @Option(help: "Billing zip or postal code.")
    var zip: String?

    @Option(help: "Billing phone number.")
    var phone: String?

    @Option(help: "Billing country code, such as US.")
    var country: String?

    @Option(name: .customLong("invoice-number"), help: "The merchant's invoice number.")
    var invoiceNumber: String?

    @Option(name: .customLong("description"), help: "A description of the goods or service.")
    var purchaseDescription: String?

    /// Builds the request from the flags, with errors that say what to fix.
    func request() throws -> SwipeRequest {
        let money = try OptionParsing.money(amount, currency: try OptionParsing.currency(currency))
        let returnURL = try OptionParsing.callbackURL(
            self.returnURL,
            flag: "--return-url",
            example: "my-app://swipe-done"
        )
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
        _ = try request.urlString()  // every rule, so errors surface here
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

    func run() async throws {
        Output.line(try options.request().urlString())
    }
}
