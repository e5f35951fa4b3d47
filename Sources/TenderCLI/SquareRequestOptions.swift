import ArgumentParser
import Foundation
import Tender

/// The flags of a Square request, shared by `square request` and `pay square`. `--user-info` is `square request`'s
/// alone: `pay` carries its one-time token in that field.
struct SquareRequestOptions: ParsableArguments {
    @Option(
        name: .customLong("application-id"),
        help: "The application ID from Square's Developer Dashboard.",
        transform: ArgumentValue.squareIdentifier
    )
    var applicationID: String

    @Option(
        help: ArgumentHelp("Your app's callback URL, such as my-app://payment-done.", valueName: "url"),
        transform: ArgumentValue.callbackURL
    )
    var callback: URL

    @OptionGroup var amount: AmountOptions

    @Option(
        help: ArgumentHelp("The ISO 4217 currency code, such as USD.", valueName: "code"),
        transform: ArgumentValue.currency
    )
    var currency: Currency

    @Option(
        name: .customLong("location-id"),
        help: ArgumentHelp("The Square location that must be logged in.", valueName: "id"),
        transform: ArgumentValue.squareLocationID
    )
    var locationID: SquareLocationID?

    @Option(help: "A note attached to the payment.")
    var notes: String?

    @Option(
        name: .customLong("customer-id"),
        help: ArgumentHelp("A Square customer to link to the payment.", valueName: "id"),
        transform: ArgumentValue.squareIdentifier
    )
    var customerID: String?

    @Option(
        help: ArgumentHelp(
            "Allowed tenders: a comma list of card, cash, other, square-gift-card, card-on-file, paypay; or all (the "
                + "default), or none.",
            valueName: "list"
        ),
        transform: Self.tenders
    )
    var tenders: SquareTenderTypes?

    @Flag(name: .customLong("clear-default-fees"), help: "Leave out Point of Sale's default fees and taxes.")
    var clearDefaultFees = false

    @Flag(name: .customLong("auto-return"), help: "Return automatically after the receipt screen times out.")
    var autoReturn = false

    @Flag(name: .customLong("disable-keyed-in-card-entry"), help: "Hide manual key-in of a card number.")
    var disableKeyedInCardEntry = false

    @Flag(name: .customLong("skip-receipt"), help: "Skip the receipt screen for non-cash payments.")
    var skipReceipt = false

    @Option(
        name: .customLong("api-version"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "The API version string sent as version, such as 1.3 or 1.0.9; only that string changes, as the SDK's "
                + "setApiVersion does (default: the dialect's).",
            valueName: "version"
        ),
        transform: SquareDialectName.apiVersion
    )
    var apiVersion: String?

    @Option(
        help: ArgumentHelp(
            "The wire generation to write: \(SquareDialectName.names) (default \(SquareDialectName.default.name)).",
            valueName: "name"
        ),
        transform: SquareDialectName.named
    )
    var dialect: SquareDialectName?

    func validate() throws {
        // Older generations have no such options: the flag would be dropped without a word.
        if let dialect, !dialect.dialect.sendsCardEntryAndReceiptOptions {
            for (flag, given) in [
                ("--disable-keyed-in-card-entry", disableKeyedInCardEntry), ("--skip-receipt", skipReceipt),
            ]
            where given {
                throw CLIError(
                    "\(flag) is not part of the --dialect \(dialect.name) wire (SDK 3.3.2 added it): drop it, or use "
                        + "pos-3.3.2 or later."
                )
            }
        }
    }

    /// The request the flags describe, every rule checked, its errors naming the flag to fix.
    func request(userInfo: String? = nil) throws -> SquareRequest {
        var dialect = (self.dialect ?? .default).dialect
        if let apiVersion { dialect.apiVersion = apiVersion }  // the version string only, as setApiVersion does
        let request = SquareRequest(
            applicationID: applicationID,
            callbackURL: callback,
            amount: try amount.money(in: currency),
            state: userInfo,
            locationID: locationID,
            notes: notes,
            customerID: customerID,
            supportedTenderTypes: tenders ?? .all,
            clearsDefaultFees: clearDefaultFees,
            returnsAutomaticallyAfterPayment: autoReturn,
            disablesKeyedInCardEntry: disableKeyedInCardEntry,
            skipsReceipt: skipReceipt,
            dialect: dialect
        )
        do {
            _ = try request.urlString()
        } catch let error as SquareError {
            let flag: String? =
                switch error.code {
                case .missingRequestClientID: "--application-id"
                case .invalidRequestAmount: amount.flag
                case .invalidRequestCallbackURL: "--callback"
                case .invalidAPIVersion: "--api-version"
                default: nil
                }
            guard error.code != .requestTooLong else {
                throw CLIError(tooLong: [
                    "--application-id": applicationID, "--callback": callback.absoluteString, "--user-info": userInfo,
                    "--location-id": locationID?.rawValue, "--notes": notes, "--customer-id": customerID,
                ])
            }
            throw CLIError(error, flag: flag)
        }
        return request
    }

    /// `--tenders`: `all`, `none`, or a comma list naming each tender once.
    static func tenders(_ text: String) throws -> SquareTenderTypes {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw CLIError("it names \(UntrustedText.safe(twice)) twice; name each tender once.")
        }
        do {
            return try SquareTenderTypes(list: text)
        } catch let error as SquareError {
            throw CLIError(error.message)
        }
    }
}
