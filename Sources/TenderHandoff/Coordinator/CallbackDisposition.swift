/// What became of one callback delivered to ``HandoffCoordinator/handle(_:)-(URL)``.
public enum CallbackDisposition: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The callback was the payment's answer and is now in the journal (state `PaymentState.completed`).
    case recorded
    /// The journal has this answer already: the same token, endpoint and report again (a replay), or, once the payment
    /// took its answer, that answer again in other bytes. Nothing changed (SEC-2).
    case duplicate
    /// An answer that came after its payment had ended and is not the one it took, which it does not change (REL-2);
    /// the answer is in the payment's history and in the receipt's ``CallbackReceipt/reportedOutcome``. Three cases:
    ///
    /// * A second, different answer to the hand-off whose answer the payment took: one of the two is not the POS
    ///   app's. The payment is flagged (``JournalEntry/disputedAt``, ``JournalEntry/needsReconciliation``) and
    ///   delivered again, until the provider's server confirms its outcome or a person resolves it.
    /// * The payment was handed off more than once (reopened with `reopening`) and ended with another hand-off's
    ///   answer, or by hand. If this outcome is approved, the customer may have been charged twice: check with the
    ///   provider.
    /// * The payment was ended by the provider's server (``HandoffCoordinator/reconcile(using:squareLocationID:)``
    ///   completed it, its outcome's source `RecordedOutcome.Source.provider`) before its own callback arrived. The
    ///   answer is compared with the outcome the server proved: when one says approved and the other does not, the
    ///   payment's verification becomes `contradicted` (`status_mismatch`, the server's evidence kept), so that it
    ///   needs reconciliation and is delivered again; when they agree, nothing more is done.
    case extraAnswer = "extra_answer"
    /// No token, or a token no payment was issued (a forgery, or a payment pruned long ago).
    /// Nothing changed (SEC-3).
    case unsolicited
    /// The right token, but not on the issued callback URL, or an echoed field (amount, currency, SumUp's
    /// `foreign-tx-id`) differs from the request (SEC-5): never counted as completed. The answer is kept (in the
    /// payment's history) and flags the payment (``JournalEntry/disputedAt``). A payment still waiting for its answer
    /// becomes `PaymentState.tampered` and waits on for its genuine answer, which still completes it (flagged); one
    /// that had ended keeps its state and is delivered again.
    case tampered
    /// The callback came after the payment expired. Recorded as `PaymentState.late`, never accepted as
    /// a success (SEC-4).
    case late

    /// The stable name, as in the CLI's JSON.
    public var description: String { rawValue }
}
