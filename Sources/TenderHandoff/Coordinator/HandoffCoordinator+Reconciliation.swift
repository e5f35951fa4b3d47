import Foundation
import Tender
public import TenderProviderAPI

/// What reconciling one payment with its provider's server found, and what the journal recorded of it.
public struct PaymentReconciliation: Sendable, Hashable {
    /// The payment as it was when the server was asked.
    public var before: JournalEntry
    /// The payment as it stands afterwards: ``before`` when nothing was recorded.
    public var after: JournalEntry
    /// What the server said: the verdict, its reason, the outcome it proves and the evidence.
    public var verification: PaymentVerification
    /// Whether the journal recorded the verdict: a payment completed with the outcome the server proved, a
    /// completed payment's callback confirmed or contradicted, an unknown payment contradicted. `false` for an
    /// `unverifiable` answer, and for a payment that changed while the server was asked.
    public var recorded: Bool

    /// Creates a reconciliation.
    public init(before: JournalEntry, after: JournalEntry, verification: PaymentVerification, recorded: Bool) {
        self.before = before
        self.after = after
        self.verification = verification
        self.recorded = recorded
    }
}

extension HandoffCoordinator {
    /// Asks the provider's server about every payment the journal cannot settle by itself, and records what the
    /// server proves: see ``reconcile(using:squareLocationID:forEach:)``. Holds every result in memory; for a
    /// journal with many such payments, use that method.
    /// - Returns: one reconciliation per payment examined, oldest payment first.
    public func reconcile(
        using verifier: some PaymentVerifier,
        squareLocationID: String? = nil
    ) async throws -> [PaymentReconciliation] {
        var all: [PaymentReconciliation] = []
        try await reconcile(using: verifier, squareLocationID: squareLocationID) { all.append($0) }
        return all
    }

    /// Asks the provider's server about every payment the journal cannot settle by itself, and records what the
    /// server proves, one payment at a time, oldest first.
    ///
    /// The payments examined (read through an index of those payments only):
    ///
    /// * ``PaymentState/unknown`` ones: no callback came within the hand-off time-out;
    /// * ``PaymentState/pending`` ones whose expiry has passed (a pending payment still waits for its callback);
    /// * ``PaymentState/completed`` ones whose callback's outcome no server has checked yet, of providers with a
    ///   lookup API (Square, SumUp).
    ///
    /// Each is asked about with `PaymentVerificationRequest(entry:squareLocationID:)`, and what the server proves is
    /// recorded in one guarded transaction (see <doc:JournalAndRecovery>): an unknown or expired payment the server
    /// shows approved, declined or cancelled becomes ``PaymentState/completed`` with that outcome (its source
    /// `RecordedOutcome.Source.provider`, verified with the provider); a completed payment's callback is confirmed or
    /// contradicted; a contradiction flags the payment (``JournalEntry/needsReconciliation``) and ``recover()``
    /// delivers it again until it is acknowledged. "Not found yet", "ambiguous" and "pending" change nothing. Terminal
    /// states never change here (REL-2). The verifier's evidence is kept with the payment and in its history.
    ///
    /// A payment that changed while its server was asked (its callback came) is left as it now is. Running it again,
    /// after a crash or a failure, finishes the job: a payment with a verdict recorded is not asked about again.
    /// - Parameters:
    ///   - verifier: the verifier of the payments' providers, such as `ProviderPaymentVerifier`.
    ///   - squareLocationID: the Square location the payments were taken at, to narrow Square's searches.
    ///   - body: called with each payment examined, once its verdict is recorded (or found to record nothing).
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/verificationUnavailable`` when the verifier cannot ask (no
    ///   network, the server failing after its retries, a refused token): the payments before it are reconciled,
    ///   this one and the rest are not; a storage error; or what `body` throws.
    public func reconcile(
        using verifier: some PaymentVerifier,
        squareLocationID: String? = nil,
        forEach body: (PaymentReconciliation) throws -> Void
    ) async throws {
        let journal = self.journal
        var after: (createdAt: Date, id: PaymentID)?
        while true {
            let cursor = after
            let page = try await journal.offloaded {
                try journal.unreconciledEntries(after: cursor, limit: HandoffCoordinator.reconciliationPageSize)
            }
            for entry in page {
                try body(try await reconcile(entry, using: verifier, squareLocationID: squareLocationID))
            }
            guard page.count == HandoffCoordinator.reconciliationPageSize, let last = page.last else { return }
            after = (last.createdAt, last.id)
        }
    }

    /// Asks the provider's server about one payment, whatever its state, and records what it proves, as
    /// ``reconcile(using:squareLocationID:forEach:)`` does: what `tender journal verify` runs.
    ///
    /// The server is asked even about a payment that has a verdict recorded, or whose state no verdict changes (a
    /// pending payment not expired yet, a resolved one): its answer is returned, and nothing is recorded.
    /// - Throws: ``HandoffError``: ``HandoffError/Code/paymentNotFound``,
    ///   ``HandoffError/Code/verificationUnavailable`` when the verifier cannot ask, or a storage error.
    public func reconcile(
        _ id: PaymentID,
        using verifier: some PaymentVerifier,
        squareLocationID: String? = nil
    ) async throws -> PaymentReconciliation {
        let journal = self.journal
        guard let entry = try await journal.offloaded({ try journal.entry(id) }) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return try await reconcile(entry, using: verifier, squareLocationID: squareLocationID)
    }

    /// How many payments ``reconcile(using:squareLocationID:forEach:)`` reads at a time.
    static let reconciliationPageSize = 100

    private func reconcile(
        _ entry: JournalEntry,
        using verifier: some PaymentVerifier,
        squareLocationID: String?
    ) async throws -> PaymentReconciliation {
        let verification = try await ask(verifier, about: entry, squareLocationID: squareLocationID)
        let journal = self.journal
        let (after, recorded) = try await journal.offloaded { try journal.record(verification, of: entry) }
        if recorded {
            let kind: HandoffEvent.Kind =
                verification.verdict == .contradicted
                ? .contradicted : entry.state == .completed ? .verified : .reconciled
            emit(kind, entry.id, entry.provider)
            // A pay() still waiting for a payment the server settled returns it.
            if after.state != .pending { waiters.signal(after) }
        }
        return PaymentReconciliation(before: entry, after: after, verification: verification, recorded: recorded)
    }

    /// The verifier's answer about `entry`.
    /// - Throws: ``HandoffError/Code/verificationUnavailable`` when the verifier throws: nothing is recorded.
    func ask(
        _ verifier: some PaymentVerifier,
        about entry: JournalEntry,
        squareLocationID: String?
    ) async throws -> PaymentVerification {
        do {
            return try await verifier.verify(
                PaymentVerificationRequest(entry: entry, squareLocationID: squareLocationID)
            )
        } catch {
            let why = (error as? any TenderError)?.message ?? "the verifier failed"
            throw HandoffError(
                .verificationUnavailable,
                "The provider could not be asked about payment \(entry.id) (\(why)); nothing was recorded. Try again later.",
                underlyingError: error
            )
        }
    }
}
