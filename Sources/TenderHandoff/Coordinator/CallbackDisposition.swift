/// What became of one callback delivered to ``HandoffCoordinator/handle(_:)-(URL)->CallbackReceipt?``.
public enum CallbackDisposition: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The callback was the payment's answer and is now in the journal (state ``PaymentState/completed``).
    case recorded
    /// The payment already had its answer: this is the same token again. Nothing changed (SEC-2).
    case duplicate
    /// A genuine answer that came after its payment had ended: its token was issued for another hand-off of the
    /// payment (reopened with `reopening`) and never answered before, while the payment ended with the first answer
    /// (or by hand). The payment did not change (REL-2); the answer is in its history and in the receipt's
    /// ``CallbackReceipt/reportedOutcome``. If that outcome is approved, the customer may have been charged twice:
    /// check with the provider.
    case extraAnswer = "extra_answer"
    /// No token, or a token no payment was issued (a forgery, or a payment pruned long ago).
    /// Nothing changed (SEC-3).
    case unsolicited
    /// The right token, but not on the issued callback URL, or an echoed field (amount, currency) differs
    /// from the request. Recorded as ``PaymentState/tampered``, never as completed (SEC-5).
    case tampered
    /// The callback came after the payment expired. Recorded as ``PaymentState/late``, never accepted as
    /// a success (SEC-4).
    case late

    /// The stable name, as in the CLI's JSON.
    public var description: String { rawValue }
}
