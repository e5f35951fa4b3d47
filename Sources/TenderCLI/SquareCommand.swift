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

/// The flags of a Square request, shared by `square request` and `pay square`. `--user-info` is `square request`'s
/// alone: `pay` carries its one-time token in that field.
struct SquareRequestOptions: ParsableArguments {
    @Option(name: .customLong("application-id"), help: "The application ID from Square's Developer Dashboard.")
    var applicationID: String

    @Option(help: "Your app's callback URL, such as my-app://payment-done.")
    var callback: String

    @OptionGroup var amount: AmountOptions

    @Option(help: "The ISO 4217 currency code, such as USD.")
    var currency: String

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

    @Option(
        name: .customLong("api-version"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "The API version string sent as version, such as 1.3 or 1.0.9; only that string changes, as the SDK's "
                + "setApiVersion does (default: the dialect's).",
            valueName: "version"
        )
    )
    var apiVersion: String?

    @Option(
        help: ArgumentHelp(
            "The wire generation to write: \(SquareDialects.names) (default \(SquareDialects.defaultName)).",
            valueName: "name"
        )
    )
    var dialect: String?

    /// The flags that set each field the library's messages name.
    func flagNames() -> FlagNames {
        FlagNames(
            fields: [
                "applicationID": "--application-id", "callbackURL": "--callback", "locationID": "--location-id",
                "notes": "--notes", "customerID": "--customer-id", "state": "--user-info",
            ],
            codes: [
                "missing_request_client_id": "--application-id", "invalid_request_amount": amount.flag,
                "invalid_request_callback_url": "--callback", "invalid_api_version": "--api-version",
                "invalid_tender_type": "--tenders", "missing_currency": "--currency", "unknown_currency": "--currency",
            ]
        )
    }

    /// Builds the request from the flags, with errors that say what to fix and name the flag.
    func request(userInfo: String? = nil) throws -> SquareRequest {
        let currency = try OptionParsing.currency(self.currency)
        let money = try amount.money(in: currency)
        let callbackURL: URL = try OptionParsing.callbackURL(
            callback,
            flag: "--callback",
            example: "my-app://payment-done"
        )
        var dialect = try SquareDialects.dialect(named: self.dialect)
        if !dialect.sendsCardEntryAndReceiptOptions {
            // Older generations have no such options: the flag would be dropped without a word.
            for (flag, given) in [
                ("--disable-keyed-in-card-entry", disableKeyedInCardEntry), ("--skip-receipt", skipReceipt),
            ]
            where given {
                throw CLIError(
                    "\(flag) is not part of the --dialect \(self.dialect ?? "") wire (SDK 3.3.2 added it): drop it, or "
                        + "use pos-3.3.2 or later."
                )
            }
        }
        if let apiVersion {
            guard SquareDialects.isVersion(apiVersion) else {
                throw CLIError(
                    "--api-version must be a version such as 1.3 or 1.0.9 (numbers joined by dots); got "
                        + "'\(CardNumberScreen.excerpt(apiVersion))'. To write an older wire generation, use --dialect."
                )
            }
            dialect.apiVersion = apiVersion  // the version string only, as setApiVersion does
        }
        let names = flagNames()
        let location = try locationID.map { text in
            guard let id = SquareLocationID(text) else {
                let problem =
                    CardNumberScreen.containsCardNumber(text)
                    ? "holds what could be a card number (13–19 digits that pass the Luhn check)"
                    : "must be a Square location ID (\(SquareLocationID.shape)), such as L88917AVBK2S5"
                throw CLIError("--location-id \(problem); got '\(CardNumberScreen.excerpt(text))'.")
            }
            return id
        }
        let request = SquareRequest(
            applicationID: applicationID,
            callbackURL: callbackURL,
            amount: money,
            state: userInfo,
            locationID: location,
            notes: notes,
            customerID: customerID,
            supportedTenderTypes: try names.naming { try SquareTenderTypes(list: tenders) },
            clearsDefaultFees: clearDefaultFees,
            returnsAutomaticallyAfterPayment: autoReturn,
            disablesKeyedInCardEntry: disableKeyedInCardEntry,
            skipsReceipt: skipReceipt,
            dialect: dialect
        )
        _ = try names.naming { try request.urlString() }  // every rule, so errors surface here
        return request
    }
}

/// The wire generations `--dialect` names (square §3.2, §4).
enum SquareDialects {
    /// Each name and its dialect, newest first.
    static let all: KeyValuePairs<String, SquareRequest.Dialect> = [
        "pos-3.5": .current, "pos-3.4": .pointOfSaleSDK3_4, "pos-3.3.2": .pointOfSaleSDK3_3_2,
        "pos-3.1": .pointOfSaleSDK3_1, "pos-3.0": .pointOfSaleSDK3_0, "register-2.1": .registerSDK2_1,
        "register-2.0": .registerSDK2_0, "register-1.1": .registerSDK1_1, "register-1.0": .registerSDK1_0,
        "web": .mobileWeb,
    ]

    /// The default: Point of Sale SDK 3.5.
    static let defaultName = "pos-3.5"

    /// The names, for help and messages.
    static var names: String { all.map(\.key).joined(separator: ", ") }

    /// The dialect `--dialect` names, or the default.
    static func dialect(named name: String?) throws -> SquareRequest.Dialect {
        guard let name else { return .current }
        guard let dialect = all.first(where: { $0.key == name.lowercased() })?.value else {
            throw CLIError("--dialect must be one of \(names); got '\(CardNumberScreen.excerpt(name))'.")
        }
        return dialect
    }

    /// Whether `text` is a version in decimal form: two or more runs of ASCII digits joined by single dots (`1.3`,
    /// `1.0.9`). Point of Sale refuses others (`invalid_version_number`, square §2.4).
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }
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
    @OptionGroup var sandbox: SandboxPageOption

    @Option(
        name: .customLong("user-info"),
        help: ArgumentHelp(
            "Text Point of Sale sends back unchanged (state on the wire; the SDK's userInfoString).",
            valueName: "text"
        )
    )
    var userInfo: String?

    func run() async throws {
        Output.line(try sandbox.shown(try options.request(userInfo: userInfo).urlString()))
    }
}
