import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

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
            run goes on. One record confirms one payment, whichever is asked first: a record another payment names too \
            confirms neither, and both are flagged contested for a person (and not asked about again). \
            A Square payment is asked about at the location it was requested at; --square-location-id narrows \
            Square's searches for payments written without one. Prints one line per payment as it is done; with --json one object per \
            line: payment_id, before, after (the states; after = before when nothing was proven), verdict, \
            evidence, then provider, reason, message, outcome, recorded, needs_reconciliation and, for a failure, \
            error (code and message). Exits 0 unless an error stopped it. Each answer of a server is waited for \
            up to --timeout seconds (30 by default), and a server that does not answer is asked up to four times; \
            on a terminal, standard error says which payment is being asked about meanwhile. With --server URL, \
            the merchant's fleet server is asked about each payment instead, with this device's key from \
            TENDER_DEVICE_KEY: no provider credentials are needed.
            """
    )

    @OptionGroup var server: ProviderServerOptions

    @OptionGroup var fleet: FleetServerOption

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object per payment examined, one a line.")
    var json = false

    func run() async throws {
        let location = server.squareLocationID?.rawValue
        let verifier = try server.announcing(self.verifier())
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

    /// Who is asked about the payments: the merchant's fleet server with `--server` (this device's key, no provider
    /// token), else the providers' servers, with the credentials in the environment (at least one provider's). The
    /// one place the verifier is chosen.
    /// - Throws: ``CLIError`` when no provider's credentials are set, or `--server` is given without
    ///   `TENDER_DEVICE_KEY` or beside `--base-url` or `--square-location-id`.
    func verifier() throws -> any PaymentVerifier {
        if let fleet = try fleet.verifier(besides: server) { return fleet }
        let credentials = try ProviderCredentials.fromEnvironment()
        guard credentials.square != nil || credentials.sumUp != nil else {
            throw CLIError(
                "No credentials: export SQUARE_ACCESS_TOKEN, or SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE (they are never read from the command line), or ask the merchant's server with --server URL."
            )
        }
        return credentials.reconcilingVerifier(server)
    }
}
