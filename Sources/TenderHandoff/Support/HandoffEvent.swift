public import Logging
public import Tender

/// One thing that happened in the hand-off, for logs.
///
/// By construction an event can only name the payment and the provider (SEC-10): URLs, tokens and
/// amounts have nowhere to go. The coordinator logs each one to its `Logger`
/// (``HandoffCoordinator/init(journal:opener:configuration:squareAuthorization:logger:log:)``) with ``logMetadata``
/// at ``logLevel``, and hands it to its `log` sink as a value.
public struct HandoffEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened. An open set, and the one vocabulary of a payment's life: the journal's history rows
    /// (`payment_event.kind`) are written with these names, and a callback's kind is its ``CallbackDisposition``.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's stable string.
        public let rawValue: String
        /// Creates a kind from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A payment was written ahead.
        public static let begun = Kind(rawValue: "begun")
        /// A pending payment was handed off again, at the caller's request.
        public static let reopened = Kind(rawValue: "reopened")
        /// The opener reported that the POS app opened.
        public static let opened = Kind(rawValue: "opened")
        /// The opener reported that the POS app could not be opened.
        public static let openFailed = Kind(rawValue: "open_failed")
        /// A callback was recorded.
        public static let recorded = Kind(rawValue: "recorded")
        /// A callback repeated an answer the journal has: nothing changed.
        public static let duplicate = Kind(rawValue: "duplicate")
        /// An answer came after its payment had ended that is not the one it took (``CallbackDisposition/extraAnswer``).
        public static let extraAnswer = Kind(rawValue: "extra_answer")
        /// A callback had no token or an unknown one.
        public static let unsolicited = Kind(rawValue: "unsolicited")
        /// A callback came on the wrong URL or with a wrong echo: kept, the payment flagged.
        public static let tampered = Kind(rawValue: "tampered")
        /// A callback came after its payment expired.
        public static let late = Kind(rawValue: "late")
        /// A URL looked like a callback but could not be parsed.
        public static let malformed = Kind(rawValue: "malformed")
        /// No callback came within the hand-off time-out.
        public static let timedOut = Kind(rawValue: "timed_out")
        /// A pending payment expired.
        public static let expired = Kind(rawValue: "expired")
        /// A payment was resolved by hand.
        public static let resolved = Kind(rawValue: "resolved")
        /// The provider's server confirmed a recorded outcome (SEC-7).
        public static let verified = Kind(rawValue: "verified")
        /// The provider's server contradicted what the journal holds of a payment: it needs reconciliation (SEC-7).
        public static let contradicted = Kind(rawValue: "contradicted")
        /// The provider's server proved the outcome of a payment no callback had answered (unknown, or pending past
        /// its expiry), and it was recorded: the payment is completed (``HandoffCoordinator/reconcile(using:squareLocationID:)``).
        public static let reconciled = Kind(rawValue: "reconciled")
        /// The app acknowledged a payment's outcome.
        public static let acknowledged = Kind(rawValue: "acknowledged")
        /// Old payments were pruned.
        public static let pruned = Kind(rawValue: "pruned")
        /// The payment as the journal holds it, numbered in the outbox for the fleet server because changes about it
        /// were pruned before any sync sent them (``PaymentJournal/prune(retention:limit:)``). Never a history row, and
        /// never logged: the outbox's alone.
        public static let snapshot = Kind(rawValue: "snapshot")
        /// Writing to the journal failed.
        public static let storageFailed = Kind(rawValue: "storage_failed")

        /// The kind's string.
        public var description: String { rawValue }

        /// What a callback became, as an event: ``recorded``, ``duplicate``, ``extraAnswer``, ``unsolicited``,
        /// ``tampered`` or ``late``, named as the disposition is.
        public init(_ disposition: CallbackDisposition) {
            self.init(rawValue: disposition.rawValue)
        }
    }

    /// What happened.
    public let kind: Kind
    /// The payment concerned, if any.
    public let paymentID: PaymentID?
    /// The provider concerned, if any.
    public let provider: PaymentProvider?

    /// Creates an event.
    public init(_ kind: Kind, paymentID: PaymentID? = nil, provider: PaymentProvider? = nil) {
        self.kind = kind
        self.paymentID = paymentID
        self.provider = provider
    }

    /// The event as swift-log metadata: `event`, and `payment_id` and `provider` when known. Nothing else.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(kind.rawValue)"]
        if let paymentID { metadata["payment_id"] = "\(paymentID.rawValue)" }
        if let provider { metadata["provider"] = "\(provider.rawValue)" }
        return metadata
    }

    /// How loud the event is: `error` for a journal that could not be written, `warning` for what needs a person's
    /// attention (a callback refused or late, a POS app that did not open or answer, a contradiction), `debug` for
    /// housekeeping (acknowledged, pruned), `info` for the rest.
    public var logLevel: Logger.Level {
        switch kind {
        case .storageFailed: .error
        case .tampered, .late, .unsolicited, .malformed, .extraAnswer, .openFailed, .timedOut, .contradicted,
            .expired:
            .warning
        case .acknowledged, .pruned: .debug
        default: .info
        }
    }

    /// `tender.handoff <kind> payment=<id> provider=<name>`, leaving out what is not known.
    public var description: String {
        var text = "tender.handoff \(kind)"
        if let paymentID { text += " payment=\(paymentID)" }
        if let provider { text += " provider=\(provider)" }
        return text
    }
}
