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
            payment, whichever is asked first: an order or transaction another payment of the journal names too \
            (its callback reported it, or it was confirmed by it) confirms neither, unless Square's or SumUp's \
            record tells them apart (another amount, a time outside the other payment's): both are flagged \
            contested (unverifiable, naming the other payment; 'tender journal list --state contested') for a \
            person to decide. A Square payment another application took contradicts (other_application). A search \
            for a payment written without a location proves nothing where the seller has several \
            (location_unknown): give --square-location-id. Exits 0 when the server \
            confirms the payment, 2 when it contradicts it or cannot settle it (not found yet, ambiguous, no \
            lookup API), 1 on errors (no network, no credentials, a refused token, unknown payment). \
            --square-location-id narrows Square's search to the location the payment was taken at, and a payment \
            or order of another location contradicts. With --server URL, the merchant's fleet server is asked \
            instead (its verdict, reached with its own provider credentials), with this device's key from \
            TENDER_DEVICE_KEY: no provider token is needed. With --json: one object with payment_id, provider, \
            verdict (confirmed, contradicted or unverifiable), reason, evidence, then message, state, recorded and \
            needs_reconciliation. Each answer of the server is waited for up to --timeout seconds (30 by \
            default), and a server that does not answer is asked up to four times; on a terminal, standard error \
            says which payment is being asked about meanwhile.
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
        let server = self.server
        let reconciliation = try await journal.withJournal(.existing) { journal in
            let id = self.id
            let entry = try await journal.offloaded { try JournalCommand.find(id, in: journal) }
            return try await HandoffCoordinator(journal: journal)
                .reconcile(
                    entry.id,
                    using: server.announcing(verifier(for: entry)),
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

    /// Who is asked about `entry`: the merchant's fleet server with `--server` (this device's key, no provider
    /// token), else its provider's server, with the credentials in the environment. The one place the verifier is
    /// chosen.
    /// - Throws: ``CLIError`` when the provider has a lookup API and its credentials are not set, or `--server` is
    ///   given without `TENDER_DEVICE_KEY` or beside `--base-url` or `--square-location-id`.
    func verifier(for entry: JournalEntry) throws -> any PaymentVerifier {
        if let fleet = try fleet.verifier(besides: server) { return fleet }
        return try ProviderCredentials.fromEnvironment().verifier(server, for: entry.provider)
    }
}
