public import Foundation

/// One row of a payment's history (the journal's `payment_event` table): what changed, when, and from which state to
/// which, written in the same transaction as the change (``PaymentJournal/history(of:)``).
public struct PaymentEvent: Sendable, Hashable {
    /// What happened: the names of the hand-off's events (``HandoffEvent/Kind``), such as `begun`, `recorded`,
    /// `tampered`, `extra_answer`, `verified` or `resolved`.
    public var kind: HandoffEvent.Kind
    /// When.
    public var at: Date
    /// The state before; `nil` for the payment's first row (`begun`).
    public var fromState: PaymentState?
    /// The state after.
    public var toState: PaymentState?
    /// The row's note, redacted when written: a resolution's note, a callback's redacted report (JSON of a
    /// ``RecordedOutcome``) for an answer that did not become the payment's outcome, or the provider's whole
    /// verification (JSON) for a verdict.
    public var note: String?

    /// Creates a history row.
    public init(kind: HandoffEvent.Kind, at: Date, fromState: PaymentState?, toState: PaymentState?, note: String?) {
        self.kind = kind
        self.at = at
        self.fromState = fromState
        self.toState = toState
        self.note = note
    }
}
