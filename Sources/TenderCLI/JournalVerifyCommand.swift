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
            or order of another location contradicts. With --json: one object with payment_id, provider, verdict \
            (confirmed, contradicted or unverifiable), reason, evidence, then message, state, recorded and \
            needs_reconciliation.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var server: ProviderServerOptions

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let server = self.server
        let reconciliation = try await journal.withJournal(.existing) { journal in
            let id = self.id
            let entry = try await journal.offloaded { try JournalCommand.find(id, in: journal) }
            let verifier = try ProviderCredentials.fromEnvironment().verifier(server, for: entry.provider)
            return try await HandoffCoordinator(journal: journal)
                .reconcile(
                    entry.id,
                    using: server.announcing(verifier),
                    squareLocationID: server.squareLocationID?.rawValue
                )
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
            error (code and message). Exits 0 unless an error stopped it.
            """
    )

    @OptionGroup var server: ProviderServerOptions

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object per payment examined, one a line.")
    var json = false

    func run() async throws {
        let credentials = try ProviderCredentials.fromEnvironment()
        guard credentials.square != nil || credentials.sumUp != nil else {
            throw CLIError(
                "No credentials: export SQUARE_ACCESS_TOKEN, or SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE (they are never read from the command line)."
            )
        }
        let location = server.squareLocationID?.rawValue
        let verifier = server.announcing(credentials.reconcilingVerifier(server))
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

/// `--base-url`: where the providers' APIs are; `--square-location-id`: where Square's payments were taken;
/// `--timeout`: how long to wait for each answer.
struct ProviderServerOptions: ParsableArguments {
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The providers' API: production (the default: Square's and SumUp's own), or one base URL for both, such as 'tender sandbox' at http://127.0.0.1:8080.",
            valueName: "url"
        ),
        transform: Self.baseURL
    )
    var base: ProviderServer?

    @Option(
        name: .customLong("square-location-id"),
        help: ArgumentHelp(
            "The Square location the payments were taken at: Square's searches list that location's payments only, and a payment or order of another location contradicts. Without it, Square lists the seller's main location.",
            valueName: "id"
        ),
        transform: ArgumentValue.squareLocationID
    )
    var squareLocationID: SquareLocationID?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for each answer of a provider's server (default 30); a server that does not answer is asked up to four times.",
            valueName: "seconds"
        ),
        transform: ArgumentValue.timeout
    )
    var timeout: Duration?

    /// The base URL given, or `nil` for each provider's production API.
    var baseURL: URL? { base?.url }

    /// `--base-url`'s value.
    struct ProviderServer {
        /// `nil` for production.
        var url: URL?
    }

    /// `--base-url`: `production`, or an `http` or `https` URL with a host.
    static func baseURL(_ text: String) throws -> ProviderServer {
        guard text != "production" else { return ProviderServer(url: nil) }
        guard let url = URL(string: text), (try? SquareEnvironment(baseURL: url)) != nil else {
            throw CLIError("it must be production or an http or https URL with a host, such as http://127.0.0.1:8080.")
        }
        return ProviderServer(url: url)
    }

    /// `verifier`, telling on a terminal which payment it asks about, so that a server slow to answer is not silence.
    func announcing<Verifier: PaymentVerifier>(_ verifier: Verifier) -> AnnouncingVerifier<Verifier> {
        AnnouncingVerifier(verifier: verifier, timeout: deadline, shown: isatty(2) == 1)
    }

    /// The deadline of each request: `--timeout`, or 30 seconds, the clients' own default.
    var deadline: Duration { timeout ?? .seconds(30) }
}

/// A verifier that says on standard error, before each payment is asked about, which payment and how long each
/// answer may take: `journal verify` and `journal reconcile` would otherwise be silent while a server is.
struct AnnouncingVerifier<Verifier: PaymentVerifier>: PaymentVerifier {
    let verifier: Verifier
    let timeout: Duration
    /// Whether standard error is a terminal: a script reading it gets its one error line only.
    let shown: Bool

    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        if shown {
            Output.error(
                "Asking \(request.provider)'s server about the \(request.amount.decimalString) "
                    + "\(request.amount.currency.code) payment written at \(InternetDate.rfc3339(request.writtenAheadAt)) "
                    + "(each answer waited for up to \(Self.seconds(timeout)) s; --timeout)…"
            )
        }
        return try await verifier.verify(request)
    }

    /// `30`, `2.5`: a duration of whole milliseconds in seconds.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let whole = "\(milliseconds / 1000)"
        guard milliseconds % 1000 != 0 else { return whole }
        var fraction = "\(1000 + milliseconds % 1000)".dropFirst()
        while fraction.hasSuffix("0") { fraction = fraction.dropLast() }
        return whole + "." + fraction
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

    /// The verifier of every provider whose credentials are set, at `server`'s base URL (each provider's production
    /// API when it names none), each request waiting at most `server`'s deadline.
    func verifier(_ server: ProviderServerOptions) throws -> ProviderPaymentVerifier {
        var verifier = ProviderPaymentVerifier()
        if let square {
            let environment = try server.baseURL.map { try SquareEnvironment(baseURL: $0) } ?? .production
            verifier.square = SquarePaymentVerifier(
                client: SquareConnectClient(environment: environment, timeout: server.deadline),
                accessToken: square
            )
        }
        if let sumUp {
            let environment = try server.baseURL.map { try SumUpEnvironment(baseURL: $0) } ?? .production
            verifier.sumUp = SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: environment, timeout: server.deadline),
                merchantCode: sumUp.merchantCode,
                accessToken: sumUp.token
            )
        }
        return verifier
    }

    /// ``verifier(_:)``, for a payment of `provider`.
    /// - Throws: ``CLIError`` when the provider has a lookup API and its credentials are not set.
    func verifier(_ server: ProviderServerOptions, for provider: PaymentProvider) throws -> ProviderPaymentVerifier {
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
        return try verifier(server)
    }

    /// The verifier `tender journal reconcile` asks: a payment of a provider whose credentials are not set gets
    /// `unverifiable` (`no_credentials`) instead of stopping the run.
    func reconcilingVerifier(_ server: ProviderServerOptions) -> some PaymentVerifier {
        let verifier = (try? verifier(server)) ?? ProviderPaymentVerifier()
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
