import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay <provider> …`: writes a payment to the journal with a one-time token and prints its request URL.
struct PayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay",
        abstract: "Record a payment in the journal and print the URL that opens the POS app.",
        discussion: """
            The payment is written ahead with a fresh one-time token, which goes into the request (Square: \
            state). Open the URL on the device, then record the POS app's callback with 'tender handle URL'. \
            With --sandbox, the URL printed is the Tender sandbox's page for the request instead ('tender \
            sandbox' serves it): answer it there, and handle the callback URL it redirects to. \
            With --json: payment_id, provider, state, request_url, amount, currency, expires_at, idempotency_key \
            (and sandbox_url with --sandbox).
            """,
        subcommands: [PaySquareCommand.self, PaySwipeCommand.self, PaySoftPOSCommand.self, PaySumUpCommand.self]
    )

    /// Writes `request` ahead through a coordinator and prints its URL (or JSON). `names` turns the fields the
    /// library's messages name into the flags that set them.
    static func pay(_ request: some PaymentRequest, options: PayOptions, names: FlagNames) throws {
        // A command that starts a payment is the one kind that makes a new journal where nothing exists.
        let journal = try options.journal.open(.create)
        defer { try? journal.close() }
        let coordinator = HandoffCoordinator(journal: journal)
        let id = try options.paymentID.map { text in
            do { return try PaymentID(validating: text) } catch let error as HandoffError {
                throw CLIError("--payment-id: \(error.message)")
            }
        }
        let expiresIn = try options.expiresIn.map { try DurationParser.parse($0, option: "--expires-in") }
        let paymentID = id ?? PaymentID()
        let prepared: PreparedHandoff
        do {
            prepared = try coordinator.prepare(
                request,
                id: paymentID,
                reopening: options.reopen,
                expiresIn: expiresIn
            )
        } catch let error as HandoffError {
            // The library's messages name its Swift parameter (reopening: true); say it in the CLI's words.
            switch error.code {
            case .paymentPending:
                throw CLIError(
                    "Payment \(paymentID) is still waiting for the POS app's answer; opening it again could charge "
                        + "twice. Wait for the answer, or pass --reopen if you are sure the POS app never took it."
                )
            case .outcomeUnknown:
                throw CLIError(
                    "Payment \(paymentID) timed out and may have been charged; check the POS app or the provider "
                        + "first, then resolve it (tender journal resolve) or pass --reopen."
                )
            default:
                throw CLIError(names.replacingFields(in: error.message))
            }
        }
        let sandboxURL = try options.sandboxPageURL(for: prepared.url)
        guard options.json else {
            Output.line((sandboxURL ?? prepared.url).absoluteString)
            return
        }
        var output = JSONOutput()
        output.set("payment_id", prepared.entry.id.rawValue)
        output.set("provider", prepared.entry.provider.rawValue)
        output.set("state", prepared.entry.state.rawValue)
        output.set("request_url", prepared.url.absoluteString)
        if let sandboxURL { output.set("sandbox_url", sandboxURL.absoluteString) }
        output.set("amount", prepared.entry.amount.decimalString)
        output.set("amount_minor_units", prepared.entry.amount.minorUnits)
        output.set("currency", prepared.entry.amount.currency.code)
        output.set("expires_at", JournalEntry.timestamp(prepared.entry.expiresAt))
        output.set("idempotency_key", prepared.entry.idempotencyKey.uuidString.lowercased())
        output.set("handoff_count", prepared.entry.handoffCount)
        if let foreign = prepared.entry.foreignTransactionID { output.set("foreign_transaction_id", foreign) }
        output.set("journal", journal.path)
        Output.line(output.text)
    }
}

/// The flags `tender pay` adds to every provider's request flags.
struct PayOptions: ParsableArguments {
    @OptionGroup var journal: JournalLocation

    @Option(
        name: .customLong("expires-in"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the payment accepts its callback as a success: 90s, 15m, 1h, at most 30d (default 15m).",
            valueName: "duration"
        )
    )
    var expiresIn: String?

    @Option(
        name: .customLong("payment-id"),
        help: ArgumentHelp(
            "The payment's ID (1–64 letters, digits, - _ . :), such as an order number; default a new UUID.",
            valueName: "id"
        )
    )
    var paymentID: String?

    @Flag(help: "Hand off a payment with this ID again although it is pending or unknown (it may charge twice).")
    var reopen = false

    @Option(
        help: ArgumentHelp(
            "Print the Tender sandbox's page for the request instead: the sandbox's base URL, such as http://127.0.0.1:8080.",
            valueName: "url"
        )
    )
    var sandbox: String?

    @Flag(help: "Print one JSON object instead of the URL.")
    var json = false

    func validate() throws {
        _ = try sandboxBaseURL()
    }

    /// `--sandbox` as an `http` or `https` URL.
    func sandboxBaseURL() throws -> URL? {
        guard let sandbox else { return nil }
        guard let url = URL(string: sandbox), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw CLIError(
                "--sandbox must be the sandbox's base URL, such as http://127.0.0.1:8080 ('tender sandbox' prints it)."
            )
        }
        return url
    }

    /// The sandbox page for `requestURL` when `--sandbox` is given.
    func sandboxPageURL(for requestURL: URL) throws -> URL? {
        guard let base = try sandboxBaseURL() else { return nil }
        guard let page = SandboxOpener.pageURL(for: requestURL, baseURL: base) else {
            throw CLIError("The request URL cannot be sent to the sandbox.")
        }
        return page
    }
}

/// `tender pay square …`. There is no `--user-info`: the hand-off carries its one-time token in that field
/// (`state`), and `--payment-id` names the payment instead.
struct PaySquareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "square",
        abstract: "Record a Square Point of Sale payment and print its request URL (the token goes in state)."
    )

    @OptionGroup var request: SquareRequestOptions
    @OptionGroup var options: PayOptions

    func run() async throws {
        var names = request.flagNames()
        names.fields["state"] = nil  // the token's field, which no flag of `pay` sets
        try PayCommand.pay(try request.request(), options: options, names: names)
    }
}

/// `tender pay swipe …`: `--return-url` and `--return-app-name` are required, since the token goes on the return URL
/// and Swipe comes back only with both.
struct PaySwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Record a Swipe payment and print its request URL (the token goes on --return-url)."
    )

    @OptionGroup var request: SwipeRequestOptions

    @Option(name: .customLong("return-url"), help: "Your app's URL that Swipe opens with the result.")
    var returnURL: String

    @Option(name: .customLong("return-app-name"), help: "Your app's name as the customer sees it.")
    var returnAppName: String

    @OptionGroup var options: PayOptions

    func run() async throws {
        let built = try request.request(returnURL: returnURL, returnAppName: returnAppName)
        try PayCommand.pay(built, options: options, names: request.flagNames())
    }
}

/// `tender pay softpos …`: `--response-url` is required, since the token goes on it.
struct PaySoftPOSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "softpos",
        abstract: "Record a SoftPOS sale or refund and print its request URL (the token goes on --response-url)."
    )

    @OptionGroup var request: SoftPOSRequestOptions

    @Option(name: .customLong("response-url"), help: "Your app's URL that SoftPOS opens with the result.")
    var responseURL: String

    @OptionGroup var options: PayOptions

    func run() async throws {
        try PayCommand.pay(try request.request(responseURL: responseURL), options: options, names: request.flagNames())
    }
}

/// `tender pay sumup …`. There is no `--foreign-transaction-id`: the hand-off gives every SumUp payment a
/// `foreign-tx-id` of its own, kept in the journal and sent again on a reopen, and `--payment-id` names the payment. `--callback-success` is required and `--callback-fail`
/// defaults to it, so that SumUp comes back whatever the outcome.
struct PaySumUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sumup",
        abstract:
            "Record a SumUp payment and print its request URL (with a foreign-tx-id of its own, kept in the journal)."
    )

    @OptionGroup var request: SumUpRequestOptions

    @Option(name: .customLong("callback-success"), help: "The URL SumUp opens after a successful payment.")
    var callbackSuccess: String

    @Option(
        name: .customLong("callback-fail"),
        help: "The URL SumUp opens otherwise (default: the --callback-success URL, so that SumUp always comes back)."
    )
    var callbackFail: String?

    @OptionGroup var options: PayOptions

    func run() async throws {
        let built = try request.request(callbackSuccess: callbackSuccess, callbackFail: callbackFail ?? callbackSuccess)
        try PayCommand.pay(built, options: options, names: request.flagNames())
    }
}
