import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// `tender journal verify ID`: asks the payment's provider's server about it and records what the server proves.
struct JournalVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Ask the provider's server about one payment, and record what it proves.",
        discussion: """
            Square payments are looked up with SQUARE_ACCESS_TOKEN (scopes ORDERS_READ and PAYMENTS_READ): the \
            order of the callback's transaction_id, else a search of ListPayments by amount and time. SumUp \
            payments with SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE: by the payment's foreign-tx-id, else the \
            callback's smp-tx-code. Swipe and SoftPOS publish no lookup API: unverifiable. Credentials are read \
            from the environment, never from the command line. What the server proves is recorded as 'tender \
            journal reconcile' records it; a payment with a verdict recorded keeps it. One record confirms one \
            payment: an order or transaction another payment of the journal was confirmed with contradicts a \
            payment whose callback named it (claimed_by_another_payment, naming the other payment). Exits 0 when the server \
            confirms the payment, 2 when it contradicts it or cannot settle it (not found yet, ambiguous, no \
            lookup API), 1 on errors (no network, no credentials, a refused token, unknown payment). \
            --square-location-id narrows Square's search to the location the payment was taken at, and a payment \
            or order of another location contradicts. With --server URL, the merchant's fleet server is asked \
            instead (its verdict, reached with its own provider credentials), with this device's key from \
            TENDER_DEVICE_KEY: no provider token is needed. With --json: one object with payment_id, provider, \
            verdict (confirmed, contradicted or unverifiable), reason, evidence, then message, state, recorded and \
            needs_reconciliation.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var server: ProviderServerOptions

    @OptionGroup var fleet: FleetServerOption

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let base = try server.baseURL()
        let location = try server.squareLocation()
        let fleetVerifier = try fleet.verifier(besides: server)
        let reconciliation = try await journal.withJournal(.existing) { journal in
            let id = self.id
            let entry = try await journal.offloaded { try JournalCommand.find(id, in: journal) }
            let coordinator = HandoffCoordinator(journal: journal)
            if let fleetVerifier { return try await coordinator.reconcile(entry.id, using: fleetVerifier) }
            let verifier = try ProviderCredentials.fromEnvironment().verifier(baseURL: base, for: entry.provider)
            return try await coordinator.reconcile(entry.id, using: verifier, squareLocationID: location)
        }
        let verification = reconciliation.verification
        let entry = reconciliation.after
        if json {
            var output = JSONOutput()
            output.set("payment_id", entry.id.rawValue)
            output.set("provider", entry.provider.rawValue)
            output.set("verdict", verification.verdict.rawValue)
            output.set("reason", verification.reason.rawValue)
            output["evidence"] = verification.evidence.jsonValue
            output.set("message", verification.message)
            output.set("state", entry.state.rawValue)
            output.set("recorded", reconciliation.recorded)
            output.set("needs_reconciliation", entry.needsReconciliation)
            Output.line(output.text)
        } else {
            Output.line("\(entry.id) (\(entry.provider)): \(verification.verdict) (\(verification.reason))")
            Output.line(verification.message)
            for line in VerificationJSON.evidenceLines(verification.evidence) { Output.line("  " + line) }
            Output.line(VerificationJSON.standing(reconciliation))
        }
        if verification.verdict != .confirmed { throw ExitCode(2) }
    }
}

/// `tender journal reconcile`: asks the providers' servers about every payment the journal cannot settle itself.
struct JournalReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Ask the providers' servers about every payment still in doubt, and record what they prove.",
        discussion: """
            Examines every payment that is unknown, tampered, pending past its expiry, completed but not verified \
            yet (Square and SumUp: Swipe and SoftPOS publish no lookup API), or disputed (answers that disagree; \
            Swipe's and SoftPOS's are listed unverifiable until a person resolves them), oldest first. An unknown, \
            tampered or expired payment the server shows approved, declined or cancelled becomes completed with \
            that outcome; a \
            completed payment's callback is confirmed or contradicted; a contradiction flags the payment \
            (needs_reconciliation) and delivers it to the app again. Not found yet, ambiguous and pending change \
            nothing, and a completed payment never changes its outcome here ('tender journal resolve --force' \
            does). Each change is one transaction: run it again after a failure or a crash and it finishes the job. \
            Credentials as for 'tender journal verify' (at least one provider's); payments of a provider whose \
            credentials are not set are listed as unverifiable (no_credentials). Only a server that cannot be \
            reached (no network, time-outs, errors after the retries) stops the run; any other failure is listed \
            with its payment as unverifiable (verification_failed), with an error object under --json, and the \
            run goes on. One record confirms one payment: a record another payment holds contradicts a payment \
            whose callback named it, and proves nothing for one a search found it for (claimed_by_another_payment). \
            A Square payment is asked about at the location it was requested at; --square-location-id narrows \
            Square's searches for payments written without one. Prints one line per payment as it is done; with --json one object per \
            line: payment_id, before, after (the states; after = before when nothing was proven), verdict, \
            evidence, then provider, reason, message, outcome, recorded, needs_reconciliation and, for a failure, \
            error (code and message). Exits 0 unless an error stopped it. With --server URL, the merchant's fleet \
            server is asked about each payment instead, with this device's key from TENDER_DEVICE_KEY: no provider \
            credentials are needed.
            """
    )

    @OptionGroup var server: ProviderServerOptions

    @OptionGroup var fleet: FleetServerOption

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object per payment examined, one a line.")
    var json = false

    func run() async throws {
        let base = try server.baseURL()
        let location = try server.squareLocation()
        let verifier: any PaymentVerifier
        if let fleetVerifier = try fleet.verifier(besides: server) {
            verifier = fleetVerifier
        } else {
            let credentials = try ProviderCredentials.fromEnvironment()
            guard credentials.square != nil || credentials.sumUp != nil else {
                throw CLIError(
                    "No credentials: export SQUARE_ACCESS_TOKEN, or SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE (they are never read from the command line), or ask the merchant's server with --server URL."
                )
            }
            verifier = credentials.reconcilingVerifier(baseURL: base)
        }
        var counts = (examined: 0, recorded: 0, failed: 0)
        try await journal.withJournal(.existing) { journal in
            let coordinator = HandoffCoordinator(journal: journal)
            try await coordinator.reconcile(using: verifier, squareLocationID: location) { reconciliation in
                counts.examined += 1
                if reconciliation.recorded { counts.recorded += 1 }
                if reconciliation.failure != nil { counts.failed += 1 }
                Output.line(json ? VerificationJSON.line(reconciliation) : VerificationJSON.text(reconciliation))
                // Each line is out once its change is committed: a script (or a crash test) can rely on it.
                Output.flush()
            }
        }
        if !json {
            let (examined, recorded, failed) = counts
            let failures = failed == 0 ? "" : " \(failed) could not be verified (see above)."
            Output.line(
                examined == 0
                    ? "Nothing to reconcile: no payment is unknown, tampered, disputed, pending past its expiry, or completed but unverified. (A late or contradicted payment needs a person: tender journal resolve.)"
                    : "Examined \(examined) payment\(examined == 1 ? "" : "s"); recorded what the server proved for \(recorded)."
                        + failures
            )
        }
    }
}

/// `--server URL`: ask the merchant's fleet server (`tender-server`) instead of the providers, with this device's key
/// from `TENDER_DEVICE_KEY`.
struct FleetServerOption: ParsableArguments {
    static let keyVariable = "TENDER_DEVICE_KEY"

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "Ask the merchant's tender-server at this URL (its own verdict; the device key from TENDER_DEVICE_KEY) instead of the providers.",
            valueName: "url"
        )
    )
    var url: String?

    /// The fleet server's verifier, or `nil` when `--server` was not given.
    /// - Throws: ``CLIError`` for a URL that is not one, no `TENDER_DEVICE_KEY`, or `--base-url` or
    ///   `--square-location-id` beside it (the server asks the providers itself).
    func verifier(
        besides providers: ProviderServerOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FleetServerVerifier? {
        guard let url else { return nil }
        guard providers.url == nil, providers.squareLocationID == nil else {
            throw CLIError(
                "--server asks the merchant's server, which asks the providers itself: leave out --base-url and --square-location-id."
            )
        }
        guard let key = environment[Self.keyVariable], !key.isEmpty else {
            throw CLIError(
                "No device key: export \(Self.keyVariable) (the key 'tender-server devices add' printed for this device); it is never read from the command line."
            )
        }
        guard let parsed = URL(string: url),
            let verifier = try? FleetServerVerifier(
                baseURL: parsed,
                deviceKey: FleetDeviceKey(key)
            )
        else {
            throw CLIError(
                "--server must be the merchant's server as an http or https URL with a host, such as https://tender.example.com; got '\(url.prefix(80))'."
            )
        }
        return verifier
    }
}

/// `--base-url`: where the providers' APIs are; `--square-location-id`: where Square's payments were taken.
struct ProviderServerOptions: ParsableArguments {
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The providers' API: production (the default: Square's and SumUp's own), or one base URL for both, such as 'tender sandbox' at http://127.0.0.1:8080.",
            valueName: "url"
        )
    )
    var url: String?

    @Option(
        name: .customLong("square-location-id"),
        help: ArgumentHelp(
            "The Square location the payments were taken at: Square's searches list that location's payments only, and a payment or order of another location contradicts. Without it, Square lists the seller's main location.",
            valueName: "id"
        )
    )
    var squareLocationID: String?

    /// The Square location given, checked to be Square's ID shape; `nil` when none was.
    func squareLocation() throws -> String? {
        guard let squareLocationID else { return nil }
        guard SquareID.isValid(squareLocationID) else {
            throw CLIError(
                "--square-location-id must be a Square location ID (\(SquareID.shape)), such as L88917AVBK2S5; got '\(squareLocationID.prefix(80))'."
            )
        }
        return squareLocationID
    }

    /// The base URL given, or `nil` for each provider's production API.
    func baseURL() throws -> URL? {
        guard let url, url != "production" else { return nil }
        let problem = CLIError(
            "--base-url must be production or an http or https URL with a host, such as http://127.0.0.1:8080; got '\(url.prefix(80))'."
        )
        guard let parsed = URL(string: url), (try? SquareEnvironment(baseURL: parsed)) != nil else { throw problem }
        return parsed
    }
}

/// The providers' credentials, from the environment (never from the command line, where other users can read them).
struct ProviderCredentials {
    var square: SquareAccessToken?
    var sumUp: (token: SumUpAccessToken, merchantCode: String)?

    static let squareVariable = "SQUARE_ACCESS_TOKEN"
    static let sumUpTokenVariable = "SUMUP_ACCESS_TOKEN"
    static let sumUpMerchantVariable = "SUMUP_MERCHANT_CODE"
    /// The reason of the answer for a payment whose provider's credentials are not set.
    static let noCredentials = PaymentVerification.Reason(rawValue: "no_credentials")

    /// Reads `SQUARE_ACCESS_TOKEN`, `SUMUP_ACCESS_TOKEN` and `SUMUP_MERCHANT_CODE`; an empty one counts as not set.
    /// - Throws: ``CLIError`` when only one of SumUp's two is set.
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ProviderCredentials {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var credentials = ProviderCredentials()
        credentials.square = value(squareVariable).map(SquareAccessToken.init)
        switch (value(sumUpTokenVariable), value(sumUpMerchantVariable)) {
        case (let token?, let merchant?): credentials.sumUp = (SumUpAccessToken(token), merchant)
        case (nil, nil): break
        default:
            throw CLIError(
                "\(sumUpTokenVariable) and \(sumUpMerchantVariable) go together: export both to verify SumUp payments, or neither."
            )
        }
        return credentials
    }

    /// The verifier of every provider whose credentials are set, at `baseURL` (each provider's production API when
    /// `nil`).
    func verifier(baseURL: URL?) throws -> ProviderPaymentVerifier {
        var verifier = ProviderPaymentVerifier()
        if let square {
            let environment = try baseURL.map { try SquareEnvironment(baseURL: $0) } ?? .production
            verifier.square = SquarePaymentVerifier(
                client: SquareConnectClient(environment: environment),
                accessToken: square
            )
        }
        if let sumUp {
            let environment = try baseURL.map { try SumUpEnvironment(baseURL: $0) } ?? .production
            verifier.sumUp = SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: environment),
                merchantCode: sumUp.merchantCode,
                accessToken: sumUp.token
            )
        }
        return verifier
    }

    /// ``verifier(baseURL:)``, for a payment of `provider`.
    /// - Throws: ``CLIError`` when the provider has a lookup API and its credentials are not set.
    func verifier(baseURL: URL?, for provider: PaymentProvider) throws -> ProviderPaymentVerifier {
        if provider == .square, square == nil {
            throw CLIError(
                "No credentials for Square: export \(Self.squareVariable) (scopes ORDERS_READ and PAYMENTS_READ); it is never read from the command line."
            )
        }
        if provider == .sumUp, sumUp == nil {
            throw CLIError(
                "No credentials for SumUp: export \(Self.sumUpTokenVariable) and \(Self.sumUpMerchantVariable); they are never read from the command line."
            )
        }
        return try verifier(baseURL: baseURL)
    }

    /// The verifier `tender journal reconcile` asks: a payment of a provider whose credentials are not set gets
    /// `unverifiable` (`no_credentials`) instead of stopping the run.
    func reconcilingVerifier(baseURL: URL?) -> some PaymentVerifier {
        let verifier = (try? verifier(baseURL: baseURL)) ?? ProviderPaymentVerifier()
        return WithoutCredentials(verifier: verifier, square: square != nil, sumUp: sumUp != nil)
    }

    private struct WithoutCredentials: PaymentVerifier {
        let verifier: ProviderPaymentVerifier
        let square: Bool
        let sumUp: Bool

        func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
            let missing: String? =
                switch request.provider {
                case .square where !square: ProviderCredentials.squareVariable
                case .sumUp where !sumUp:
                    "\(ProviderCredentials.sumUpTokenVariable) and \(ProviderCredentials.sumUpMerchantVariable)"
                default: nil
                }
            guard let missing else { return try await verifier.verify(request) }
            return PaymentVerification(
                verdict: .unverifiable,
                reason: ProviderCredentials.noCredentials,
                message: "Not asked: no \(request.provider) credentials were given (export \(missing)).",
                evidence: PaymentVerificationEvidence(server: nil, askedAt: Date())
            )
        }
    }
}

/// The JSON and text forms of verifications and reconciliations.
enum VerificationJSON {
    /// `tender journal reconcile --json`'s line for one payment.
    static func line(_ reconciliation: PaymentReconciliation) -> String {
        let verification = reconciliation.verification
        var output = JSONOutput()
        output.set("payment_id", reconciliation.after.id.rawValue)
        output.set("before", reconciliation.before.state.rawValue)
        output.set("after", reconciliation.after.state.rawValue)
        output.set("verdict", verification.verdict.rawValue)
        output["evidence"] = verification.evidence.jsonValue
        output.set("provider", reconciliation.after.provider.rawValue)
        output.set("reason", verification.reason.rawValue)
        output.set("message", verification.message)
        output.set("outcome", reconciliation.after.acceptedStatus?.rawValue)
        output.set("recorded", reconciliation.recorded)
        output.set("needs_reconciliation", reconciliation.after.needsReconciliation)
        if let failure = reconciliation.failure {
            var error = JSONOutput()
            error.set("code", failure.code.rawValue)
            error.set("message", failure.message)
            output["error"] = .object(error.object)
        }
        return output.text
    }

    /// `tender journal reconcile`'s line for one payment: `ID (provider): before → after, verdict (reason)`.
    static func text(_ reconciliation: PaymentReconciliation) -> String {
        let (before, after) = (reconciliation.before, reconciliation.after)
        let verification = reconciliation.verification
        var line = "\(after.id) (\(after.provider)): \(before.state) → \(after.state)"
        if let outcome = after.acceptedStatus, before.state != after.state { line += " (\(outcome))" }
        line += ", \(verification.verdict) (\(verification.reason))"
        if after.needsReconciliation, verification.verdict == .contradicted { line += ", needs reconciliation" }
        if let failure = reconciliation.failure { line += ": " + failure.message }
        return line
    }

    /// `tender journal verify`'s closing line: what the journal holds now, and whether this run recorded it.
    static func standing(_ reconciliation: PaymentReconciliation) -> String {
        let entry = reconciliation.after
        var line = "journal: \(entry.state)"
        if let outcome = entry.acceptedStatus { line += ", \(outcome)" }
        if let verification = entry.verification { line += ", \(verification.verdict) by the provider" }
        if entry.needsReconciliation { line += ", needs reconciliation" }
        line += reconciliation.recorded ? " (recorded now)" : " (nothing recorded now)"
        return line + "."
    }

    /// The evidence in a few lines: the server and endpoints asked, the order, the records.
    static func evidenceLines(_ evidence: PaymentVerificationEvidence) -> [String] {
        var lines: [String] = []
        if let server = evidence.server {
            lines.append(
                "asked \(server) at \(InternetDate.rfc3339(evidence.askedAt)): "
                    + evidence.endpoints.joined(separator: ", ")
            )
        }
        if let order = evidence.orderID {
            lines.append("order \(order)" + (evidence.orderState.map { " (\($0))" } ?? ""))
        }
        if let candidates = evidence.candidateCount {
            lines.append("search: \(candidates) candidate(s) of \(evidence.examinedCount ?? 0) payment(s) read")
        }
        for record in evidence.records {
            var line = "\(record.kind) \(record.id)"
            let status = [record.status, record.simpleStatus].compactMap { $0 }.joined(separator: "/")
            if !status.isEmpty { line += " \(status)" }
            if let amount = record.amount { line += " \(amount.decimalString) \(amount.currency.code)" }
            if let location = record.locationID { line += " at \(location)" }
            if let code = record.transactionCode { line += ", code \(code)" }
            if let foreign = record.foreignTransactionID { line += ", foreign-tx-id \(foreign)" }
            lines.append(line)
        }
        return lines
    }
}
