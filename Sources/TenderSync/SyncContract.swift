import Tender

/// The sync contract between a device's journal and the fleet server (`POST /v1/events`): its version and its limits,
/// written once, read by both sides. See <doc:TheSyncContract>.
public enum SyncContract: Sendable {
    /// The contract's version: 1 for Tender's first fleet server; 2 adds `contract_version` to a batch and `notice` to
    /// an acknowledgement, and changes of kinds the server does not know are kept rather than refused; 3 lets a batch
    /// hold no change, to ask what the server holds (a sync with nothing new still checks the key and the URL); 4 adds
    /// the device's health to a batch (`tender_version`, `unsent`), which older servers ignore; 5 names the change a
    /// server refuses for good (`refused_sequence` in its error), which the device sets aside and sends again as a
    /// `set_aside` marker without its payment, so that its other changes sync. A
    /// batch says which version its device speaks; a server of an older one tells it so in its acknowledgement's
    /// notice.
    public static let version = 5
    /// The Tender release this build is (what `tender --version` prints, and a batch's `tender_version`).
    public static let tenderVersion = "0.1.0"
    /// The most changes one batch carries.
    public static let maximumChanges = 500
    /// The largest body of one request, in bytes (1 MiB).
    public static let maximumBytes = 1 << 20
    /// The largest amount of one payment, in minor units: 999,999,999,999,999, above what any provider's request
    /// carries (Square's requests refuse more, `Money.maximumPaymentMinorUnits` in Tender). A server refuses a payment
    /// above it; the ledger's day totals, added in checked arithmetic, refuse the batch that would take them past
    /// `Int64` (9,223 such payments in a day from one device).
    public static let maximumMinorUnits = Money.maximumPaymentMinorUnits
    /// The longest text a device's identifier may be, in bytes.
    public static let maximumIdentifierLength = 255
}

/// Why one side of the sync contract refuses what the other sent: a stable code (the same as the server's error
/// code) and a message naming the field and the change, never the value.
public struct SyncContractError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: an open set of stable strings, as the server's `{"error": {"code"}}` spells them.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's string.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The body is not JSON, or not the shape of a batch.
        public static let malformedJSON = Code(rawValue: "malformed_json")
        /// A change does not hold what it must; the message names the field and the sequence.
        public static let invalidChange = Code(rawValue: "invalid_change")
        /// Over ``SyncContract/maximumBytes`` or ``SyncContract/maximumChanges``.
        public static let tooLarge = Code(rawValue: "too_large")
    }

    /// What went wrong.
    public var code: Code
    /// What was wrong and what to do.
    public var message: String
    /// The sequence of the change refused, when the refusal is about one change's content (its fields, its amount):
    /// no server of this version will ever accept that change, and a device sets it aside (`refused_sequence` in the
    /// server's answer). `nil` for a refusal of the batch as a whole.
    public var sequence: Int64?

    /// Creates an error; `sequence` names the change refused, for a refusal of one change's content.
    public init(_ code: Code, _ message: String, sequence: Int64? = nil) {
        self.code = code
        self.message = message
        self.sequence = sequence
    }

    /// `invalid_change: …`.
    public var description: String { "\(code.rawValue): \(message)" }
}
