import ArgumentParser
import Foundation
import Logging
import Tender
import TenderProviderAPI
import TenderServer
import TenderSync

/// `tender-server reconcile`: one run of central reconciliation, each payment examined printed as it is done.
struct ReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Reconcile the ledger with the providers once, and print what each payment examined got.",
        discussion: """
            Examines every payment that needs the server's verdict (unknown, pending past its expiry, completed and \
            not verified by the server, or flagged), oldest first, and asks the providers with the server's own \
            credentials (SQUARE_ACCESS_TOKEN; SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE), after what their \
            webhooks pushed; records each verdict in its own transaction. A failure (no network, 5xx, 429, an \
            answer that is not the provider's) records nothing; run it again and it finishes. With --json: one \
            object per payment, {"device_id", "payment_id", "before", "after", "verdict", "evidence"} and more \
            (before and after are the server's verdicts), then one summary line {"examined", "confirmed", \
            "contradicted", "unverifiable", "provider_requests", "failed", "skipped"}. One reconciliation of a \
            ledger runs at a time: while another runs (a replica), this one asks nothing and says so ("skipped": \
            true). Exits 0 unless the ledger cannot be reached.
            """
    )

    @OptionGroup var database: DatabaseOption
    @OptionGroup var providers: ProviderOptions
    @Flag(name: .long, help: "Print one JSON object per payment examined, then a summary object, one a line.")
    var json = false

    func run() async throws {
        let url = try database.url()
        let transport = NIOProviderTransport()
        let providers = self.providers
        let json = self.json
        do {
            let summary = try await url.withStore(logger: quietLogger()) { store in
                let reconciler = CentralReconciler(
                    store: store,
                    verifiers: try providers.verifiers(transport: transport),
                    logger: quietLogger()
                )
                return try await reconciler.run { outcome in
                    let line = json ? ReconcileOutput.line(outcome).text : ReconcileOutput.text(outcome)
                    // Written straight to the file descriptor once its verdict is committed: a script (or a crash
                    // test) can rely on each line it reads.
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            }
            print(json ? ReconcileOutput.summary(summary).text : ReconcileOutput.summaryText(summary))
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try? await transport.shutdown()
    }
}

/// What `reconcile` prints.
enum ReconcileOutput {
    /// `{"device_id", "payment_id", "before", "after", "verdict", "evidence", "provider", "state", "reason",
    /// "message", "proven_outcome", "recorded", "error"}`.
    static func line(_ outcome: ReconciledPayment) -> JSONTree {
        let verification = outcome.verification
        var object: [String: JSONTree] = [
            "device_id": .string(outcome.deviceID),
            "payment_id": .string(outcome.paymentID),
            "before": outcome.before.map { .string($0.rawValue) } ?? .null,
            "after": outcome.after.map { .string($0.rawValue) } ?? .null,
            "verdict": verification.map { .string($0.verdict.rawValue) } ?? .null,
            "evidence": verification.flatMap { try? JSONTree(text: VerificationText.evidence($0.evidence)) } ?? .null,
            "provider": .string(outcome.provider.rawValue),
            "state": .string(outcome.state.rawValue),
            "reason": verification.map { .string($0.reason.rawValue) } ?? .null,
            "message": verification.map { .string($0.message) } ?? .null,
            "proven_outcome": verification?.provenOutcome.map { .string($0.rawValue) } ?? .null,
            "recorded": .bool(outcome.recorded),
        ]
        if let failure = outcome.failure {
            object["error"] = .object(["code": .string(failure.code.rawValue), "message": .string(failure.message)])
        }
        return .object(object)
    }

    /// `DEVICE/PAYMENT (provider, state): before → after, verdict (reason)`, or the failure.
    static func text(_ outcome: ReconciledPayment) -> String {
        var line = "\(outcome.deviceID)/\(outcome.paymentID) (\(outcome.provider), \(outcome.state)): "
        line += "\(outcome.before?.rawValue ?? "none") → \(outcome.after?.rawValue ?? "none")"
        if let verification = outcome.verification {
            line += ", \(verification.verdict) (\(verification.reason))"
            if !outcome.recorded { line += ", not recorded: the payment changed meanwhile" }
        }
        if let failure = outcome.failure { line += ", failed: \(failure.message)" }
        return line
    }

    /// `{"examined", "confirmed", "contradicted", "unverifiable", "provider_requests", "failed", "skipped"}`.
    static func summary(_ summary: ReconcileSummary) -> JSONTree {
        .object([
            "examined": .integer(Int64(summary.examined)),
            "confirmed": .integer(Int64(summary.confirmed)),
            "contradicted": .integer(Int64(summary.contradicted)),
            "unverifiable": .integer(Int64(summary.unverifiable)),
            "provider_requests": .integer(Int64(summary.providerRequests)),
            "failed": .integer(Int64(summary.failed)),
            "skipped": .bool(summary.skipped),
        ])
    }

    static func summaryText(_ summary: ReconcileSummary) -> String {
        if summary.skipped {
            return "Asked nothing: another reconciliation of this ledger is running (a replica, or another "
                + "tender-server reconcile); it asks about every payment that needs it."
        }
        return "Examined \(summary.examined): \(summary.confirmed) confirmed, \(summary.contradicted) contradicted, "
            + "\(summary.unverifiable) unverifiable, \(summary.failed) failed; \(summary.providerRequests) requests "
            + "to the providers."
    }
}
