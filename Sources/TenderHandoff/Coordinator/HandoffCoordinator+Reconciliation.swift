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
    /// Why the verifier failed for this payment, when it failed for a reason asking again soon will not fix
    /// (``HandoffError/Code/verificationFailed``: a refused token, a missing scope, an answer Tender cannot read):
    /// ``HandoffCoordinator/reconcile(using:squareLocationID:forEach:)`` reports it with the payment and goes on.
    /// ``verification`` is then `unverifiable` (`verification_failed`) with the failure's message, and nothing is
    /// recorded. `nil` when the verifier answered.
    public var failure: HandoffError?

    /// Creates a reconciliation.
    public init(
        before: JournalEntry,
        after: JournalEntry,
        verification: PaymentVerification,
        recorded: Bool,
        failure: HandoffError? = nil
    ) {
        self.before = before
        self.after = after
        self.verification = verification
        self.recorded = recorded
        self.failure = failure
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
    /// * `PaymentState.unknown` ones: no callback came within the hand-off time-out;
    /// * `PaymentState.pending` ones whose expiry has passed (a pending payment still waits for its callback);
    /// * `PaymentState.completed` ones whose callback's outcome no server has checked yet, of providers with a
    ///   lookup API (Square, SumUp).
    ///
    /// Each is asked about with `PaymentVerificationRequest(entry:squareLocationID:)`, and what the server proves is
    /// recorded in one guarded transaction (see <doc:JournalAndRecovery>): an unknown or expired payment the server
    /// shows approved, declined or cancelled becomes `PaymentState.completed` with that outcome (its source
    /// `RecordedOutcome.Source.provider`, verified with the provider); a completed payment's callback is confirmed or
    /// contradicted; a contradiction flags the payment (``JournalEntry/needsReconciliation``) and ``recover()``
    /// delivers it again until it is acknowledged. "Not found yet", "ambiguous" and "pending" change nothing. Terminal
    /// states never change here (REL-2). The verifier's evidence is kept with the payment and in its history.
    ///
    /// **One record confirms one payment, whichever is asked about first.** A confirmation rests on the provider's
    /// records of its evidence (orders, payments, transactions). In the transaction that records it, the journal looks
    /// for the other payments that name one of them: confirmed by it earlier, or whose outcome's transaction ID is its
    /// ID (their callback reported it). Unless the provider's evidence tells them apart (another amount, a record
    /// outside the other payment's time, another location or application: `RecordContest`), the record confirms
    /// neither: the verdict becomes `unverifiable` (`contested`), and both payments are flagged
    /// (``JournalEntry/contestedAt``, delivered again, not asked about again) for a person to decide. A recorded
    /// confirmation claims its records for its payment. A Square payment is asked about at the location it was
    /// requested at (``JournalEntry/squareLocationID``), else at `squareLocationID`, else at the authorized seller's.
    ///
    /// **Failures.** Only a failure to reach the server — no network, a time-out, HTTP 5xx or 429 after the
    /// verifier's retries (`ProviderAPIError.isTransient`), or an error that is no `ProviderAPIError` — stops the
    /// run: asking again later may work, and the payments after it would fail alike. Any other failure of the
    /// verifier is this payment's (a refused token or scope, an answer Tender cannot read): it is reported with the
    /// payment (``PaymentReconciliation/failure``), nothing is recorded, and the run goes on. After a refused token, a
    /// missing scope or a forbidden call, that provider's server is not asked again in the run: its other payments are
    /// reported with the same failure, and the other providers' are asked as usual.
    ///
    /// **Payments the POS app reported as not taken.** A completed payment whose callback said cancelled, declined or
    /// failed, and of which the server has no record, is asked about on every run until the verifier answers
    /// `confirmed` (`no_record`) once its window and the offline-sync allowance (72 hours) have passed; from then on
    /// it has a verdict and is not asked about again.
    ///
    /// A payment that changed while its server was asked (its callback came) is left as it now is. Running it again,
    /// after a crash or a failure, finishes the job: a payment with a verdict recorded is not asked about again.
    /// - Parameters:
    ///   - verifier: the verifier of the payments' providers, such as `ProviderPaymentVerifier`.
    ///   - squareLocationID: the Square location the payments were taken at, to narrow Square's searches, for payments
    ///     that do not have their own (``JournalEntry/squareLocationID``).
    ///   - body: called with each payment examined, once its verdict is recorded (or found to record nothing), or
    ///     with its failure.
    /// - Throws: ``HandoffError``: ``HandoffError/Code/invalidRequest`` for a `squareLocationID` that is not a Square
    ///   ID (nothing is asked); ``HandoffError/Code/verificationUnavailable`` when the server cannot be reached: the
    ///   payments before it are reconciled, this one and the rest are not; a storage error; or what `body` throws.
    public func reconcile(
        using verifier: some PaymentVerifier,
        squareLocationID: String? = nil,
        forEach body: (PaymentReconciliation) throws -> Void
    ) async throws {
        try Self.checkLocation(squareLocationID)
        let journal = self.journal
        var after: (createdAt: Date, id: PaymentID)?
        var refused: [PaymentProvider: HandoffError] = [:]
        // Once a contest has flagged payments of the page read, each is read again before its server is asked.
        var contested = false
        while true {
            let cursor = after
            let page = try await journal.offloaded {
                try journal.unreconciledEntries(after: cursor, limit: HandoffCoordinator.reconciliationPageSize)
            }
            for read in page {
                var entry = read
                if contested {
                    guard let current = try await journal.offloaded({ try journal.entry(read.id) }),
                        current.contestedAt == nil, current.verification == nil
                    else { continue }
                    entry = current
                }
                // A provider that refused the credentials refuses them for every payment: report the rest with
                // that failure instead of asking its server again for each.
                if let refusal = refused[entry.provider] {
                    try body(Self.failed(entry, refusal, at: journal.clock.now()))
                    continue
                }
                let reconciliation = try await reconcile(
                    entry,
                    using: verifier,
                    squareLocationID: squareLocationID,
                    reportingFailures: true
                )
                if let failure = reconciliation.failure, Self.isCredentialProblem(failure) {
                    refused[entry.provider] = failure
                }
                if reconciliation.recorded, reconciliation.verification.reason == .contested { contested = true }
                try body(reconciliation)
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
    /// - Throws: ``HandoffError``: ``HandoffError/Code/paymentNotFound``, ``HandoffError/Code/invalidRequest`` for a
    ///   `squareLocationID` that is not a Square ID, ``HandoffError/Code/verificationUnavailable`` when the server
    ///   cannot be reached, ``HandoffError/Code/verificationFailed`` when the verifier failed otherwise, or a storage
    ///   error.
    public func reconcile(
        _ id: PaymentID,
        using verifier: some PaymentVerifier,
        squareLocationID: String? = nil
    ) async throws -> PaymentReconciliation {
        try Self.checkLocation(squareLocationID)
        let entry = try await payment(id)
        return try await reconcile(entry, using: verifier, squareLocationID: squareLocationID, reportingFailures: false)
    }

    /// How many payments ``reconcile(using:squareLocationID:forEach:)`` reads at a time.
    static let reconciliationPageSize = 100

    /// Refuses a Square location ID that is not Square's ID shape before any payment is asked about: the verifier
    /// would refuse it for every Square payment.
    private static func checkLocation(_ locationID: String?) throws {
        guard let locationID, !SquareIDRule.isValid(locationID) else { return }
        throw HandoffError(
            .invalidRequest,
            "The Square location ID '\(CardNumberScreen.excerpt(locationID))' is not a Square ID (\(SquareIDRule.shape)); "
                + "nothing was asked. Pass the location ID exactly as Square gave it."
        )
    }

    /// - Parameter reportingFailures: whether a failure of the verifier that is this payment's
    ///   (``HandoffError/Code/verificationFailed``) is returned as the payment's reconciliation instead of thrown.
    func reconcile(
        _ entry: JournalEntry,
        using verifier: some PaymentVerifier,
        squareLocationID: String?,
        reportingFailures: Bool
    ) async throws -> PaymentReconciliation {
        let answer: PaymentVerification
        do {
            answer = try await ask(verifier, about: entry, squareLocationID: squareLocationID)
        } catch let error as HandoffError where reportingFailures && error.code == .verificationFailed {
            return Self.failed(entry, error, at: journal.clock.now())
        }
        let journal = self.journal
        let (after, recorded, verification) = try await journal.offloaded { try journal.record(answer, of: entry) }
        if recorded {
            let kind: HandoffEvent.Kind =
                verification.reason == .contested
                ? .contested
                : verification.verdict == .contradicted
                    ? .contradicted : entry.state == .completed ? .verified : .reconciled
            emit(kind, entry.id, entry.provider)
            // A pay() still waiting for a payment the server settled returns it.
            if after.state != .pending { waiters.signal(after) }
        }
        return PaymentReconciliation(before: entry, after: after, verification: verification, recorded: recorded)
    }

    /// A payment the verifier failed for: nothing proven, nothing recorded, the failure kept.
    static func failed(_ entry: JournalEntry, _ error: HandoffError, at now: Date) -> PaymentReconciliation {
        let failed = PaymentVerification(
            verdict: .unverifiable,
            reason: .verificationFailed,
            message: error.message,
            evidence: PaymentVerificationEvidence(server: nil, askedAt: now)
        )
        return PaymentReconciliation(before: entry, after: entry, verification: failed, recorded: false, failure: error)
    }

    /// Whether a verifier's failure is its credentials' (a refused token, a missing scope, a forbidden call), which
    /// every payment of the provider would meet alike.
    static func isCredentialProblem(_ error: HandoffError) -> Bool {
        guard let failure = error.underlyingError as? ProviderAPIError else { return false }
        return [.invalidAccessToken, .insufficientScopes, .forbidden].contains(failure.code)
    }

    /// The verifier's answer about `entry`.
    /// - Throws: when the verifier throws (nothing is recorded): ``HandoffError/Code/verificationFailed`` for a
    ///   ``ProviderAPIError`` that is not transient (asking again soon will not help; its message says what to fix),
    ///   ``HandoffError/Code/verificationUnavailable`` for any other error (no network, time-outs, 5xx and 429 after
    ///   the retries, cancellation, an error of a verifier of your own).
    func ask(
        _ verifier: some PaymentVerifier,
        about entry: JournalEntry,
        squareLocationID: String?
    ) async throws -> PaymentVerification {
        do {
            return try await verifier.verify(
                // The location the payment was requested at, when the journal has it: a record of another location
                // never confirms the payment, whatever location the caller names; else the caller's, else the
                // authorized seller's.
                PaymentVerificationRequest(
                    entry: entry,
                    squareLocationID: entry.squareLocationID ?? squareLocationID ?? squareAuthorization?.location?.id
                )
            )
        } catch {
            if let failure = error as? ProviderAPIError, !failure.isTransient {
                var why = failure.message
                if !why.hasSuffix(".") { why += "." }
                throw HandoffError(
                    .verificationFailed,
                    "Payment \(entry.id) could not be verified with \(entry.provider): \(why) Nothing was recorded.",
                    underlyingError: error
                )
            }
            let why = (error as? any TenderError)?.message ?? "the verifier failed"
            throw HandoffError(
                .verificationUnavailable,
                "The provider could not be asked about payment \(entry.id) (\(why)); nothing was recorded. Try again later.",
                underlyingError: error
            )
        }
    }
}
