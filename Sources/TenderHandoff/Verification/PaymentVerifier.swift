/// Checks a payment's recorded outcome with the provider's server (SEC-7).
///
/// A callback proves only that *someone* opened your URL scheme with the payment's one-time token: the token
/// defeats forgers who never saw the request, but not an app that hijacked the POS app's own URL scheme and
/// so read it. Only the provider's server can tell. Implement this protocol against the provider's REST API
/// (for Square, the Payments or Orders API with the seller's access token) and pass it to
/// ``HandoffCoordinator/verify(_:with:)``.
///
/// Send ``JournalEntry/idempotencyKey`` with every call you make about the payment (REL-4).
public protocol PaymentVerifier: Sendable {
    /// Asks the provider's server about a completed payment and says whether it agrees with
    /// ``JournalEntry/outcome`` (its status, and its amount and transaction ID where the server has them).
    /// - Throws: anything, when the server cannot be asked; nothing is recorded then, and you can try again.
    func verify(_ entry: JournalEntry) async throws -> PaymentVerdict
}

/// What the provider's server said of a recorded outcome.
public struct PaymentVerdict: Sendable, Hashable {
    /// Confirmed or contradicted.
    public enum Kind: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The server has the same outcome.
        case confirmed
        /// The server has another outcome, or no such payment: the callback cannot be trusted.
        case contradicted

        /// The raw value.
        public var description: String { rawValue }
    }

    /// What the server said.
    public var kind: Kind
    /// Why, for a contradiction (kept in the journal; never put tokens or card numbers in it).
    public var reason: String?

    /// The server confirms the recorded outcome.
    public static let confirmed = PaymentVerdict(kind: .confirmed, reason: nil)

    /// The server contradicts the recorded outcome, for this reason (such as "no such payment").
    public static func contradicted(_ reason: String) -> PaymentVerdict {
        PaymentVerdict(kind: .contradicted, reason: reason)
    }

    /// Creates a verdict.
    public init(kind: Kind, reason: String?) {
        self.kind = kind
        self.reason = reason
    }
}
