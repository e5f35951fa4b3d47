/// What became of one callback delivered to ``HandoffCoordinator/handleCallback(_:)``.
public enum CallbackDisposition: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The callback was the payment's answer and is now in the journal (state ``PaymentState/completed``).
    case recorded
    /// The payment already had its answer: this is the same token again. Nothing changed (SEC-2).
    case duplicate
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
