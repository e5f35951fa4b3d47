import ArgumentParser
import Dispatch
import Foundation
import Logging
import Tender
import TenderSandbox
import TenderSimulator

/// `tender sandbox`: a local stand-in for the POS apps and Square's REST endpoints, until interrupted.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract:
            "Run a local stand-in for the POS apps and for Square's and SumUp's REST APIs until interrupted.",
        discussion: """
            Prints its base URL on the first line, then one line per request (never a token or a URL). \
            Open a POS request URL with its scheme:// replaced by http://HOST:PORT/<provider>/ (such as \
            /square/payment/create?data=…) to see what the POS app would show and answer it with a button; \
            GET / lists recent requests and POST /api/simulate answers {"request_url", "outcome"} with \
            {"callback_url"} (outcomes: approve, approve:TENDER, approve:offline for Square, decline, cancel, \
            error:CODE; approved, declined and cancelled are read the same). The simulated apps run with the \
            merchant profile of --merchant (by default a logged-in US merchant that accepts any application, \
            callback and affiliate key). \
            With --square-access-token and --square-location-id, the Square REST stand-in knows one seller: a \
            token with the scopes authorization needs plus ORDERS_READ and PAYMENTS_READ, valid 30 days, and an \
            active US location that takes cards; the simulated Point of Sale is logged in at that location, and \
            each payment it approves is recorded there: a card payment as an order whose ID is the callback's \
            transaction_id with a COMPLETED payment as its tender, a cash, other or offline payment as a payment \
            with no order. It serves GET /oauth2/token/status, GET /v2/locations and /v2/locations/{id|main}, \
            GET /v2/orders/{id}, POST /v2/orders/batch-retrieve, GET /v2/payments/{id} and GET /v2/payments \
            (ListPayments, 100 per page, cursor pagination), POST /v2/refunds, GET /v2/refunds/{id} and GET \
            /v2/refunds (Square's Refunds API: a refund is PENDING, then COMPLETED; the payment lists it), POST \
            /oauth2/token and POST /oauth2/revoke. Any \
            other token or location gets Square's errors. The application is sq0idp-TenderSandbox; its \
            application secret, which RevokeToken (Authorization: Client SECRET) and the code flow without PKCE \
            accept, is sq0csp-TenderSandboxSecret. With --square-redirect-uri (and --square-location-id) sellers \
            can sign in on its authorization page, GET /oauth2/authorize, as that application (see tender square \
            sign-in). \
            With --sumup-access-token and --sumup-merchant-code, each SumUp payment the simulated app approves \
            (or declines with a transaction code) is recorded and served at GET \
            /v2.1/merchants/{merchant_code}/transactions?foreign_transaction_id=… (or id, transaction_code, \
            client_transaction_id: exactly one) for that bearer token, and refunded at POST \
            /v1.0/merchants/{merchant_code}/payments/{transaction_id}/refunds (no body: what remains; \
            {"amount": 2.5}: that much). POST /api/refunds with {"provider": "square" or "sumup", "payment_id", \
            "amount_minor_units"} makes a refund outside Tender, as in the POS app or the dashboard. \
            With --square-webhook-url and --square-webhook-signature-key (and a Square seller), each payment \
            Point of Sale records is followed by Square's webhooks (payment.created, payment.updated and, with an \
            order, order.created and order.updated) and each refund by refund.created, refund.updated and \
            payment.updated, signed as Square signs them and retried after 1, 2, 4, 8 and \
            16 s. Without --seed each start draws a new seed, so transaction IDs are not handed out twice. \
            Stop it with Ctrl-C.
            """
    )

    @Option(help: "The IP address to listen on (loopback by default).")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
    var port: Int = 8080

    @Option(name: .customLong("square-access-token"), help: "A sandbox access token to accept (not a real one).")
    var squareAccessToken: String?

    @Option(
        name: .customLong("square-location-id"),
        help: "The location ID that token may use, where the simulated Point of Sale is logged in."
    )
    var squareLocationID: String?

    @Option(
        name: .customLong("square-refresh-token"),
        help: "A rotating (PKCE) refresh token to accept for that seller."
    )
    var squareRefreshToken: String?

    @Option(
        name: .customLong("square-redirect-uri"),
        help: ArgumentHelp(
            "A redirect URL the seller's application (client ID sq0idp-TenderSandbox) accepts for sign-ins on the "
                + "authorization page; repeat for several.",
            valueName: "url"
        )
    )
    var squareRedirectURIs: [String] = []

    @Option(
        name: .customLong("sumup-access-token"),
        help: "A SumUp access token the SumUp REST stand-in accepts (not a real one)."
    )
    var sumUpAccessToken: String?

    @Option(
        name: .customLong("sumup-merchant-code"),
        help: "The SumUp merchant code whose transactions the SumUp REST stand-in serves, such as MH4H92C7."
    )
    var sumUpMerchantCode: String?

    @Option(help: ArgumentHelp("A JSON merchant profile for the simulated POS apps.", valueName: "file"))
    var merchant: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seed for the simulated transaction IDs: the same seed hands out the same IDs (by default a new seed at "
                + "each start, so IDs are not handed out again)."
        )
    )
    var seed: UInt64?

    @Flag(help: "Print only the base URL, not each request (a warning about a non-loopback host goes to stderr).")
    var quiet = false

    @Option(
        name: .customLong("square-webhook-url"),
        help: ArgumentHelp(
            "Post the webhooks Square would send for each payment the simulated Point of Sale records to this URL "
                + "(payment.created, payment.updated and, with an order, order.created and order.updated), signed as "
                + "Square signs them; needs --square-webhook-signature-key.",
            valueName: "url"
        )
    )
    var squareWebhookURL: String?

    @Option(
        name: .customLong("square-webhook-signature-key"),
        help: ArgumentHelp("The subscription's signature key the webhooks are signed with.", valueName: "key")
    )
    var squareWebhookSignatureKey: String?

    func run() async throws {
        guard (0...65_535).contains(port) else {
            throw CLIError("--port must be between 0 and 65535; got \(port).")
        }
        let square = try squareConfiguration()
        let sumUp = try sumUpConfiguration()
        let profile = try merchantProfile()
        // Lines logged while starting wait until the base URL is out, so it is always the first line.
        let log = HeldLines()
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                host: host,
                port: UInt16(port),
                squareConnect: square,
                sumUp: sumUp,
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: seed),
                logger: quiet
                    ? SandboxLog.silent : Logger(label: "tender.sandbox") { _ in LineLogHandler(write: log.write) }
            )
        )
        let baseURL: URL
        do {
            baseURL = try await server.start()
        } catch let error as SandboxError {
            throw CLIError(error.message)
        }
        printBanner(baseURL, sumUp: sumUp)
        Output.flush()
        log.open()
        let signal = await Self.waitForInterrupt()
        await server.stop()
        if !quiet { Output.line("stopped (\(signal))") }
    }

    /// The Square REST stand-in of the flags: one seller, a seller for sign-ins only, or none; with its webhooks.
    private func squareConfiguration() throws -> SquareConnectSandbox.Configuration {
        var square = SquareConnectSandbox.Configuration()
        for uri in squareRedirectURIs where URL(string: uri)?.scheme == nil || URL(string: uri)?.host == nil {
            throw CLIError("--square-redirect-uri must be an absolute URL such as https://example.com/callback.")
        }
        switch (squareAccessToken, squareLocationID) {
        case (let token?, let location?):
            guard !token.isEmpty, !location.isEmpty else {
                throw CLIError("--square-access-token and --square-location-id must not be empty.")
            }
            square = .seller(
                accessToken: token,
                locationID: location,
                refreshToken: squareRefreshToken,
                redirectURLs: squareRedirectURIs
            )
        case (nil, let location?) where !squareRedirectURIs.isEmpty && squareRefreshToken == nil:
            // Sign-in only: the seller's tokens come from the authorization page, so no token of our own.
            guard !location.isEmpty else { throw CLIError("--square-location-id must not be empty.") }
            square = .seller(
                accessToken: "unused-" + UUID().uuidString,
                locationID: location,
                redirectURLs: squareRedirectURIs
            )
        case (nil, nil):
            guard squareRefreshToken == nil else {
                throw CLIError("--square-refresh-token needs --square-access-token and --square-location-id.")
            }
            guard squareRedirectURIs.isEmpty else {
                throw CLIError("--square-redirect-uri needs --square-location-id: the location sellers sign in with.")
            }
        default:
            throw CLIError("Pass --square-access-token and --square-location-id together, or neither.")
        }
        square.webhook = try squareWebhook()
        return square
    }

    /// `--square-webhook-url` and `--square-webhook-signature-key`, which go together.
    private func squareWebhook() throws -> SquareWebhookSubscription? {
        switch (squareWebhookURL, squareWebhookSignatureKey) {
        case (nil, nil):
            return nil
        case (let text?, let key?):
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https",
                url.host != nil
            else {
                throw CLIError(
                    "--square-webhook-url must be an http or https URL, such as http://127.0.0.1:9000/v1/webhooks/square."
                )
            }
            guard !key.isEmpty else { throw CLIError("--square-webhook-signature-key must not be empty.") }
            guard squareLocationID != nil else {
                throw CLIError(
                    "--square-webhook-url needs --square-location-id: webhooks are sent for the seller's payments."
                )
            }
            return SquareWebhookSubscription(notificationURL: url, signatureKey: key)
        default:
            throw CLIError("Pass --square-webhook-url and --square-webhook-signature-key together, or neither.")
        }
    }

    /// The SumUp REST stand-in of the flags: one merchant, or off.
    private func sumUpConfiguration() throws -> SumUpSandbox.Configuration {
        switch (sumUpAccessToken, sumUpMerchantCode) {
        case (let token?, let code?):
            guard !token.isEmpty, !code.isEmpty else {
                throw CLIError("--sumup-access-token and --sumup-merchant-code must not be empty.")
            }
            guard code.utf8.count <= 64, code.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
            else {
                throw CLIError("--sumup-merchant-code must be a merchant code such as MH4H92C7 (letters and digits).")
            }
            return SumUpSandbox.Configuration(accessToken: token, merchantCode: code)
        case (nil, nil):
            return SumUpSandbox.Configuration()
        default:
            throw CLIError("Pass --sumup-access-token and --sumup-merchant-code together, or neither.")
        }
    }

    /// `--merchant`'s profile, logged in at `--square-location-id` when there is one: the two are one seller.
    private func merchantProfile() throws -> MerchantProfile {
        var profile = try MerchantProfileFile.load(merchant)
        guard let squareLocationID else { return profile }
        if profile.locationID != MerchantProfile.default.locationID && profile.locationID != squareLocationID {
            throw CLIError(
                "--merchant logs Point of Sale in at \(profile.locationID) but --square-location-id is "
                    + "\(squareLocationID): they are one seller; drop location_id from the profile or use the same ID."
            )
        }
        profile.locationID = squareLocationID
        return profile
    }

    /// The base URL, then (unless `--quiet`) what the sandbox serves; a non-loopback host is warned about either way.
    private func printBanner(_ baseURL: URL, sumUp: SumUpSandbox.Configuration) {
        Output.line(baseURL.absoluteString)
        let warning = "warning: listening on \(host), not loopback: anyone on the network can reach the sandbox"
        guard !quiet else {
            // Only the base URL on stdout; the warning still reaches whoever started it.
            if !Self.isLoopback(host) { Output.error(warning) }
            return
        }
        Output.line(
            "POS apps: open \(baseURL.absoluteString)/<provider>/… in place of scheme://… "
                + "(square, swipe, softpos, sumup); \(baseURL.absoluteString)/ explains"
        )
        if !Self.isLoopback(host) { Output.line(warning) }
        if squareAccessToken != nil, let squareLocationID {
            Output.line(
                "Square: one seller (merchant \(SquareConnectSandbox.Configuration.sellerMerchantID)), "
                    + "location \(squareLocationID), token valid for 30 days; Point of Sale is logged in there and "
                    + "records its payments"
            )
        }
        if let squareWebhookURL {
            Output.line("Square webhooks: each recorded payment's events are posted to \(squareWebhookURL)")
        }
        if let sumUpMerchantCode, sumUp.isEnabled {
            Output.line(
                "SumUp: merchant \(sumUpMerchantCode); the SumUp app records its payments, served at "
                    + "\(baseURL.absoluteString)/v2.1/merchants/\(sumUpMerchantCode)/transactions"
            )
        }
        if !squareRedirectURIs.isEmpty, let squareLocationID {
            Output.line(
                "Square sign-in: client \(SquareConnectSandbox.Configuration.sellerClientID), location "
                    + "\(squareLocationID), redirect \(squareRedirectURIs.joined(separator: ", "))"
            )
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Waits for SIGINT or SIGTERM and returns its name.
    private static func waitForInterrupt() async -> String {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "tender.sandbox.signals")
            let resumed = Locked(false)
            var sources: [any DispatchSourceSignal] = []
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    let first = resumed.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: name) }
                }
                source.resume()
                sources.append(source)
            }
            // The sources live until the process ends.
            SignalSources.keep(sources)
        }
    }
}

/// `--sandbox URL` of `tender <provider> request`: print the sandbox's page for the request instead of the request.
struct SandboxPageOption: ParsableArguments {
    @Option(
        name: .customLong("sandbox"),
        help: ArgumentHelp(
            "Print the Tender sandbox's page for the request instead: the sandbox's base URL, such as "
                + "http://127.0.0.1:8080 ('tender sandbox' prints it).",
            valueName: "url"
        )
    )
    var baseURL: String?

    func validate() throws {
        _ = try base()
    }

    /// `requestURL`, or its sandbox page with `--sandbox`.
    func shown(_ requestURL: String) throws -> String {
        guard let base = try base() else { return requestURL }
        return try POSAppsSandbox.pageURL(for: requestURL, baseURL: base).absoluteString
    }

    private func base() throws -> URL? {
        guard let baseURL else { return nil }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ValidationError(
                "--sandbox must be the sandbox's base URL, such as http://127.0.0.1:8080 ('tender sandbox' prints it)."
            )
        }
        return url
    }
}

/// Log lines held until ``open()``, then written as they come: the base URL is always the first line.
private final class HeldLines: Sendable {
    private let state = Locked((isOpen: false, held: [String]()))

    /// Writes `line`, or holds it until ``open()``.
    func write(_ line: String) {
        let isOpen = state.withLock { state in
            if !state.isOpen { state.held.append(line) }
            return state.isOpen
        }
        if isOpen { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    /// Writes the held lines, and every line from now on.
    func open() {
        let held = state.withLock { state in
            defer { state = (true, []) }
            return state.held
        }
        for line in held { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}

/// Keeps signal sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func keep(_ new: [any DispatchSourceSignal]) {
        sources += new
    }
}

/// Writes each log record's message as a line, as `tender sandbox` prints its log: the metadata repeats what the line
/// says, for handlers that index it.
struct LineLogHandler: LogHandler {
    let write: @Sendable (String) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        write(event.message.description)
    }
}
