import ArgumentParser
import Foundation
import Tender

/// `tender square …`.
struct SquareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "square",
        abstract: "Square Point of Sale (formerly Square Register) and seller authorization.",
        subcommands: [SquareRequestCommand.self, SquareAuthorizeCommand.self, SquareSignInCommand.self]
    )
}

/// The flags of a Square request, shared by `square request` and `pay square`.
struct SquareRequestOptions: ParsableArguments {
    @Option(name: .customLong("application-id"), help: "The application ID from Square's Developer Dashboard.")
    var applicationID: String

    @Option(help: "Your app's callback URL, such as my-app://payment-done.")
    var callback: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The amount in minor units (cents): 1250 is 12.50 USD.", valueName: "minor-units")
    )
    var amount: String

    @Option(help: "The ISO 4217 currency code, such as USD.")
    var currency: String

    @Option(help: "Text Point of Sale sends back unchanged.")
    var state: String?

    @Option(name: .customLong("location-id"), help: "The Square location that must be logged in.")
    var locationID: String?

    @Option(help: "A note attached to the payment.")
    var notes: String?

    @Option(name: .customLong("customer-id"), help: "A Square customer to link to the payment.")
    var customerID: String?

    @Option(
        help: ArgumentHelp(
            "Allowed tenders: a comma list of card, cash, other, square-gift-card, card-on-file, paypay; or all, or none.",
            valueName: "list"
        )
    )
    var tenders: String = "all"

    @Flag(name: .customLong("clear-default-fees"), help: "Leave out Point of Sale's default fees and taxes.")
    var clearDefaultFees = false

    @Flag(name: .customLong("auto-return"), help: "Return automatically after the receipt screen times out.")
    var autoReturn = false

    @Flag(name: .customLong("disable-keyed-in-card-entry"), help: "Hide manual key-in of a card number.")
    var disableKeyedInCardEntry = false

    @Flag(name: .customLong("skip-receipt"), help: "Skip the receipt screen for non-cash payments.")
    var skipReceipt = false

    @Option(name: .customLong("api-version"), help: "The API version (default 1.3); below 1.3 sends merchant_id.")
    var apiVersion: String?

    @Flag(name: .customLong("web"), help: "Write the request as a web page does: no sdk_version, no callback marker.")
    var web = false

    /// Builds the request from the flags, with errors that say what to fix.
    func request() throws -> SquareRequest {
        guard let minorUnits = Int(amount) else {
            throw CLIError(
                "--amount must be a whole number of minor units, such as 1250 for 12.50 \(currency); got '\(amount)'."
            )
        }
        let currency: Currency
        do {
            currency = try Currency(code: self.currency)
        } catch {
            throw CLIError("--currency: \(error)")
        }
        let callbackURL: URL = try OptionParsing.callbackURL(
            callback,
            flag: "--callback",
            example: "my-app://payment-done"
        )
        var request = SquareRequest(
            applicationID: applicationID,
            callbackURL: callbackURL,
            amount: Money(minorUnits: minorUnits, currency: currency),
            state: state,
            locationID: locationID,
            notes: notes,
            customerID: customerID,
            supportedTenderTypes: try SquareTenderTypes(list: tenders),
            clearsDefaultFees: clearDefaultFees,
            returnsAutomaticallyAfterPayment: autoReturn,
            disablesKeyedInCardEntry: disableKeyedInCardEntry,
            skipsReceipt: skipReceipt,
            dialect: web ? .mobileWeb : .current
        )
        if let apiVersion { request.apiVersion = apiVersion }
        return request
    }
}

/// `tender square request`: prints the request URL.
struct SquareRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens Square Point of Sale for a payment.",
        discussion: "Validates like Square's SDK: application ID, then amount (at least 1), then callback scheme."
    )

    @OptionGroup var options: SquareRequestOptions

    func run() async throws {
        Output.line(try options.request().urlString())
    }
}
