public import Foundation
public import Tender
public import TenderProviderAPI

/// One payment as the journal records it. Never holds a token, a URL or a card number.
///
/// Its JSON form is ``encodeJSON(history:)``'s.
public struct JournalEntry: Sendable, Hashable {
    /// The payment's identifier.
    public var id: PaymentID
    /// The idempotency key (REL-4): a UUID written before the first hand-off and never changed. Send it
    /// with every server call about this payment (verification, refunds) so none is applied twice.
    public var idempotencyKey: UUID
    /// The POS app the payment was handed to.
    public var provider: PaymentProvider
    /// The amount requested.
    public var amount: Money
    /// Where the payment stands.
    public var state: PaymentState
    /// The outcome: the callback's (redacted) for `PaymentState.completed`, `PaymentState.late` and
    /// `PaymentState.tampered` (the latest tampered answer's) — check ``state`` before trusting it — or the one entered for
    /// `PaymentState.resolved`, or, for a payment that no callback answered and the provider's server proved
    /// (``RecordedOutcome/Source/provider``), the server's. `nil` while none has been recorded.
    public var outcome: RecordedOutcome?
    /// Incremented by every change of state: what ``PaymentJournal/acknowledge(_:)`` checks so that an entry
    /// changed since it was read is delivered again.
    public var revision: Int
    /// How many times the POS app was asked to take this payment (more than 1 only after a reopen).
    public var handoffCount: Int
    /// When the payment was first written.
    public var createdAt: Date
    /// When the entry last changed.
    public var updatedAt: Date
    /// When the payment expires: a callback after this is `PaymentState.late` (SEC-4).
    public var expiresAt: Date
    /// When the opener last reported that the POS app opened, if it did.
    public var openedAt: Date?
    /// When the app acknowledged the current state (``HandoffCoordinator/acknowledge(_:)``); `nil` while the
    /// entry is still to be delivered.
    public var acknowledgedAt: Date?
    /// The manual resolution, if the payment was resolved by hand.
    public var resolution: Resolution?
    /// What the provider's server said of the payment, if it was asked and its answer proved something
    /// (``HandoffCoordinator/verify(_:with:)``, ``HandoffCoordinator/reconcile(using:squareLocationID:)``, SEC-7).
    public var verification: Verification?
    /// SumUp's `foreign-tx-id` for this payment: a unique ID the hand-off generated when it first wrote the payment,
    /// sent with every hand-off of it, and the key SumUp looks the transaction up by. It is no secret (the one-time
    /// token proves the callback), so the journal keeps it in clear. `nil` for the other providers.
    public var foreignTransactionID: String?
    /// The tender types the Square request allowed (card only, card and cash, …), kept with the payment so that a
    /// verifier's search does not take a cash payment for a card-only request: those of its first hand-off, widened
    /// by each reopened one. `nil` for the other providers.
    public var squareTenderTypes: SquareTenderTypes?
    /// When an answer carrying the payment's token first disagreed: one that did not match the request (tampered,
    /// SEC-5), or, once the payment had its answer, a second, different answer to the same hand-off. Each is kept in
    /// the payment's history. The payment needs reconciliation (``needsReconciliation``) until the provider's server
    /// confirms its outcome or a person resolves it. `nil` while its answers agree.
    public var disputedAt: Date?
    /// The Square location the payment was requested at: the request's `location_id`, or the one the coordinator
    /// filled in from its `SquareAuthorizationManager`. A verifier confirms the payment only with a record of that
    /// location. `nil` for the other providers, and for a Square request that named no location (Point of Sale then
    /// takes it at the location logged in).
    public var squareLocationID: String?
    /// The Square application that made the request (its `client_id`): a Square payment another application took is not
    /// this payment. `nil` for the other providers, and for payments a journal recorded before it kept it.
    public var squareApplicationID: String?
    /// When the provider's record that would confirm this payment was found named by another payment too (its callback
    /// reported the record's ID, or it was confirmed by it), and the provider's evidence could not tell which of them
    /// it is (`RecordContest`, in TenderProviderAPI): the record confirms neither, and a person decides. The contest,
    /// naming both payments, is in the payment's history (kind `contested`). A verification recorded before the
    /// contest no longer stands; a callback's outcome is back to reported by the POS app. `nil` while none is known.
    public var contestedAt: Date?

    /// A check of the payment with the provider's server (SEC-7).
    public struct Verification: Sendable, Hashable {
        /// What the server said: `confirmed` or `contradicted` (an `unverifiable` answer is not recorded).
        public var verdict: PaymentVerdict
        /// When it was recorded.
        public var verifiedAt: Date
        /// The verifier's message.
        public var note: String?
        /// The verifier's reason, such as `matches` or `amount_mismatch`.
        public var reason: PaymentVerification.Reason
        /// What the verifier asked and what the server answered: endpoints, order, payment and transaction IDs, the
        /// server's statuses, amounts and locations, and when it asked. The payment's history keeps it too, with every
        /// verdict recorded.
        public var evidence: PaymentVerificationEvidence

        /// Creates a verification.
        public init(
            verdict: PaymentVerdict,
            verifiedAt: Date,
            note: String?,
            reason: PaymentVerification.Reason,
            evidence: PaymentVerificationEvidence
        ) {
            self.verdict = verdict
            self.verifiedAt = verifiedAt
            self.note = note
            self.reason = reason
            self.evidence = evidence
        }
    }

    /// Whether someone has to find out what happened, until a person resolves the payment: its state needs
    /// reconciliation (`PaymentState.needsReconciliation`), the provider's server contradicted what the journal
    /// holds, its provider record is contested (``contestedAt``), or its answers disagree (``disputedAt``) and the server
    /// has not confirmed its outcome.
    /// ``HandoffCoordinator/reconcile(using:squareLocationID:)`` asks the server about every such payment it can
    /// settle: unknown, tampered and disputed ones (a `late` or contradicted one needs a person).
    public var needsReconciliation: Bool {
        guard state != .resolved else { return false }
        return state.needsReconciliation || verification?.verdict == .contradicted || contestedAt != nil
            || (disputedAt != nil && verification?.verdict != .confirmed)
    }

    /// A manual resolution, kept with the payment.
    ///
    /// A payment resolved again (a correction) keeps the state it was in and what the POS app reported before it
    /// was first resolved; the time, the note and the payment's outcome are the latest resolution's. Every
    /// resolution is also in the payment's history.
    public struct Resolution: Sendable, Hashable {
        /// When it was entered (the latest resolution).
        public var resolvedAt: Date
        /// The state the payment was in before it was first resolved: never `PaymentState.resolved`.
        public var previousState: PaymentState
        /// Why, in the words of whoever resolved it (the latest resolution).
        public var note: String?
        /// What the POS app's callback reported before the payment was resolved, if it reported anything: the
        /// payment's ``JournalEntry/outcome`` is the one decided by hand. `nil` as well for payments resolved by a
        /// journal older than this field.
        public var reportedOutcome: RecordedOutcome?

        /// Creates a resolution.
        public init(
            resolvedAt: Date,
            previousState: PaymentState,
            note: String?,
            reportedOutcome: RecordedOutcome? = nil
        ) {
            self.resolvedAt = resolvedAt
            self.previousState = previousState
            self.note = note
            self.reportedOutcome = reportedOutcome
        }
    }

    /// Whether the payment was taken, as far as the journal can tell: completed with an approved outcome,
    /// or resolved by hand as approved.
    public var isApproved: Bool {
        (state == .completed || state == .resolved) && outcome?.status == .approved
    }

    /// Whether the app still has to be told about this entry: it left `PaymentState.pending` and has not
    /// been acknowledged since its last change.
    public var isUndelivered: Bool { state != .pending && acknowledgedAt == nil }

    /// Creates an entry (the journal creates them; this is for tests and tools).
    public init(
        id: PaymentID,
        idempotencyKey: UUID,
        provider: PaymentProvider,
        amount: Money,
        state: PaymentState,
        outcome: RecordedOutcome?,
        revision: Int,
        handoffCount: Int,
        createdAt: Date,
        updatedAt: Date,
        expiresAt: Date,
        openedAt: Date?,
        acknowledgedAt: Date?,
        resolution: Resolution?,
        verification: Verification? = nil,
        foreignTransactionID: String? = nil,
        squareTenderTypes: SquareTenderTypes? = nil,
        squareLocationID: String? = nil,
        disputedAt: Date? = nil,
        squareApplicationID: String? = nil,
        contestedAt: Date? = nil
    ) {
        self.id = id
        self.idempotencyKey = idempotencyKey
        self.provider = provider
        self.amount = amount
        self.state = state
        self.outcome = outcome
        self.revision = revision
        self.handoffCount = handoffCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.openedAt = openedAt
        self.acknowledgedAt = acknowledgedAt
        self.resolution = resolution
        self.verification = verification
        self.foreignTransactionID = foreignTransactionID
        self.squareTenderTypes = squareTenderTypes
        self.squareLocationID = squareLocationID
        self.disputedAt = disputedAt
        self.squareApplicationID = squareApplicationID
        self.contestedAt = contestedAt
    }
}
