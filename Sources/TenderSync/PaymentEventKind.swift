/// What happened to a payment: an open set, and the one vocabulary of a payment's life. The journal's history rows
/// (`payment_event.kind`) are written with these names (TenderHandoff's `HandoffEvent.Kind` is this type), each change
/// of the sync contract carries one (``SyncChange/kind``), and the fleet server keeps them as it receives them.
public struct PaymentEventKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind's stable string.
    public let rawValue: String
    /// Creates a kind from its string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A payment was written ahead.
    public static let begun = PaymentEventKind(rawValue: "begun")
    /// A pending payment was handed off again, at the caller's request.
    public static let reopened = PaymentEventKind(rawValue: "reopened")
    /// The opener reported that the POS app opened.
    public static let opened = PaymentEventKind(rawValue: "opened")
    /// The opener reported that the POS app could not be opened.
    public static let openFailed = PaymentEventKind(rawValue: "open_failed")
    /// A callback was recorded.
    public static let recorded = PaymentEventKind(rawValue: "recorded")
    /// A callback repeated an answer the journal has: nothing changed.
    public static let duplicate = PaymentEventKind(rawValue: "duplicate")
    /// An answer came after its payment had ended that is not the one it took (`CallbackDisposition.extraAnswer`).
    public static let extraAnswer = PaymentEventKind(rawValue: "extra_answer")
    /// A callback had no token or an unknown one.
    public static let unsolicited = PaymentEventKind(rawValue: "unsolicited")
    /// A callback came on the wrong URL or with a wrong echo: kept, the payment flagged.
    public static let tampered = PaymentEventKind(rawValue: "tampered")
    /// A callback came after its payment expired.
    public static let late = PaymentEventKind(rawValue: "late")
    /// A URL looked like a callback but could not be parsed.
    public static let malformed = PaymentEventKind(rawValue: "malformed")
    /// No callback came within the hand-off time-out.
    public static let timedOut = PaymentEventKind(rawValue: "timed_out")
    /// A pending payment expired.
    public static let expired = PaymentEventKind(rawValue: "expired")
    /// A payment was resolved by hand.
    public static let resolved = PaymentEventKind(rawValue: "resolved")
    /// The provider's server confirmed a recorded outcome (SEC-7).
    public static let verified = PaymentEventKind(rawValue: "verified")
    /// The provider's server contradicted what the journal holds of a payment: it needs reconciliation (SEC-7).
    public static let contradicted = PaymentEventKind(rawValue: "contradicted")
    /// The provider's record that would have confirmed a payment is named by another payment too, and the
    /// provider's evidence cannot tell which it is: both are flagged, and a person decides (SEC-7).
    public static let contested = PaymentEventKind(rawValue: "contested")
    /// The provider's server proved the outcome of a payment no callback had answered (unknown, or pending past
    /// its expiry), and it was recorded: the payment is completed (`HandoffCoordinator.reconcile(using:squareLocationID:)`).
    public static let reconciled = PaymentEventKind(rawValue: "reconciled")
    /// The app acknowledged a payment's outcome.
    public static let acknowledged = PaymentEventKind(rawValue: "acknowledged")
    /// Old payments were pruned.
    public static let pruned = PaymentEventKind(rawValue: "pruned")
    /// The payment as the journal holds it, numbered in the outbox for the fleet server because changes about it
    /// were pruned before any sync sent them (`PaymentJournal.prune(retention:limit:)`). Never a history row, and
    /// never logged: the outbox's alone.
    public static let snapshot = PaymentEventKind(rawValue: "snapshot")
    /// Writing to the journal failed.
    public static let storageFailed = PaymentEventKind(rawValue: "storage_failed")
    /// A change the fleet server refused for good (its answer named it, `refused_sequence`), set aside by the
    /// journal so that its other changes still sync (sync contract version 5). In the outbox, the refused change
    /// becomes this marker: sent in its place without its payment, its note the server's reason. In the payment's
    /// history, a row of this kind says which change was set aside and why; that row is not sent.
    public static let setAside = PaymentEventKind(rawValue: "set_aside")

    /// The kind's string.
    public var description: String { rawValue }

    /// Every kind this version of Tender names above, in the order they are defined: what a fleet server of this
    /// version knows. A kind not among them (a newer device's) is kept as it came, and named in the sync's notice.
    public static let known: [PaymentEventKind] = [
        .begun, .reopened, .opened, .openFailed, .recorded, .duplicate, .extraAnswer, .unsolicited, .tampered, .late,
        .malformed, .timedOut, .expired, .resolved, .verified, .contradicted, .contested, .reconciled, .acknowledged,
        .pruned, .snapshot, .storageFailed, .setAside,
    ]

    /// Decodes a kind from its string: any string of 1 to 32 lowercase letters, digits and `_` (an open set; what
    /// the names above look like).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard (1...32).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "A kind is 1 to 32 lowercase letters, digits and '_'."
            )
        }
        self.init(rawValue: text)
    }

    /// Encodes the kind as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
