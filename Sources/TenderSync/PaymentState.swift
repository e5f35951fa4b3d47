/// Where a payment stands in the journal.
///
/// ```
///                 ┌──────────── callback ok ───────────► completed ┐
///   (pay) ──► pending ── callback after expiry ─────────► late      │ terminal: change only by a recorded
///              │  ▲  │                                              │ manual resolution ──► resolved
///   open fails │  │  └─ callback, wrong URL/echo ──► tampered ──────┘ (its genuine answer still completes it)
///              ▼  │ reopen (caller says so)
///          not_opened / unknown (time-out or expiry) ── callback ──► completed / tampered / late
///          unknown, tampered, or pending past expiry ── the server proves an outcome (reconcile) ──► completed
/// ```
///
/// ``pending``, ``unknown``, ``notOpened`` and ``tampered`` still accept the payment's answer; ``completed``, ``late``
/// and ``resolved`` are terminal (REL-2). Every transition is one guarded update in one transaction, so no two
/// callbacks can both be recorded (SEC-2).
public enum PaymentState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Written ahead, POS app opened or about to be: waiting for the callback.
    case pending
    /// The callback came on the issued URL, in time, with matching echoes, or, for a payment no callback answered,
    /// the provider's server proved its outcome (`HandoffCoordinator.reconcile(using:squareLocationID:)`):
    /// `JournalEntry.outcome` holds it, and its source says which.
    case completed
    /// No callback within the hand-off time-out, or the payment expired while pending: the POS app may or
    /// may not have charged. Needs reconciliation; a later genuine callback is still matched (REL-5).
    case unknown
    /// A callback carried the right token but came on another URL, or an echoed field differed (SEC-5): never counted
    /// as completed; needs reconciliation. Its answer is kept (in the outcome and the history), and the payment
    /// still accepts its genuine answer, which completes it (still flagged: `JournalEntry.disputedAt`), or the
    /// provider's server's proof (`HandoffCoordinator.reconcile(using:squareLocationID:)`).
    case tampered
    /// The callback came after the payment expired (SEC-4). Never accepted as a success; needs reconciliation.
    case late
    /// The POS app could not be opened (REL-1): nothing was handed off. A callback is still matched.
    case notOpened = "not_opened"
    /// Someone decided the outcome by hand (`HandoffCoordinator.resolve(_:as:transactionID:note:overwritingCompleted:)`).
    case resolved

    /// Whether the state is final: ``completed``, ``late`` or ``resolved``. Only an explicit, recorded manual
    /// resolution changes a terminal payment.
    public var isTerminal: Bool {
        switch self {
        case .completed, .late, .resolved: return true
        case .pending, .unknown, .notOpened, .tampered: return false
        }
    }

    /// Whether a callback carrying the payment's token can still be recorded.
    public var acceptsCallback: Bool { !isTerminal }

    /// Whether a person has to find out what happened (ask the provider, look at the POS app):
    /// ``unknown``, ``tampered`` or ``late``.
    public var needsReconciliation: Bool {
        switch self {
        case .unknown, .tampered, .late: return true
        default: return false
        }
    }

    /// The stable name, as in the journal and the CLI's JSON.
    public var description: String { rawValue }
}
