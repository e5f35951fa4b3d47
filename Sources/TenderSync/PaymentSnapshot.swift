public import Foundation
public import Tender

/// A payment as a device's journal shows it (`tender journal show ID --json`, without its `history`): the fields
/// the ledger reads, and the whole object as received.
///
/// The one place where a device's payment is read, on either side of the sync: the journal reads each change's payment
/// with it before sending it (so a device never sends what a server refuses), and the server reads what it receives.
/// Every field the ledger stores is checked here; the rest of the object is kept in ``json`` untouched, and is what
/// encoding writes back.
public struct PaymentSnapshot: Sendable, Hashable, Codable {
    /// The payment's ID.
    public var paymentID: PaymentID
    /// The provider's stable name (`square`, `sumup`, …): an open set.
    public var provider: PaymentProvider
    /// The payment's state on the device.
    public var state: PaymentState
    /// The accepted outcome, for completed and resolved payments.
    public var outcome: PaymentOutcome.Status?
    /// Whether the device flags the payment for reconciliation.
    public var needsReconciliation: Bool
    /// The amount asked for.
    public var amount: Money
    /// The POS app's or the provider's transaction ID.
    public var transactionID: String?
    /// The POS app's client-side transaction ID.
    public var clientTransactionID: String?
    /// SumUp's `foreign-tx-id` for the payment.
    public var foreignTransactionID: String?
    /// When the payment was written ahead, in milliseconds since 1970.
    public var createdAt: Int64
    /// When the payment last changed on the device.
    public var updatedAt: Int64
    /// When the payment's hand-off expires.
    public var expiresAt: Int64?
    /// The provider's verdict as the device recorded it.
    public var verification: Verification?
    /// What the POS app's answer reported (`reported_outcome`), kept through a resolution.
    public var reportedOutcome: PaymentOutcome.Status?
    /// Where the accepted outcome came from (`outcome_source`): `callback`, `provider` or `manual`.
    public var outcomeSource: String?
    /// The payment's idempotency key (`idempotency_key`).
    public var idempotencyKey: UUID?
    /// The Square location the payment was requested at (`square_location_id`).
    public var squareLocationID: String?
    /// The tender types the Square request allowed, as wire strings (`square_tender_types`).
    public var squareTenderTypes: [String]?
    /// The Square application that made the request (`square_application_id`).
    public var squareApplicationID: String?
    /// When the device flagged the payment as contested (`contested_at`): another payment names the provider record
    /// that would confirm it, and a person decides which it is. `nil` from a device that sends no such field.
    public var contestedAt: Int64?
    /// The whole object, as received.
    public var json: JSONTree

    /// A verdict of the provider's server, as a device recorded it.
    public struct Verification: Sendable, Hashable {
        /// `confirmed`, `contradicted` or `unverifiable`: a word a journal of another contract version could add
        /// would come with that version (``SyncContract``), so any other is refused.
        public var verdict: PaymentVerdict
        /// When it was recorded, in milliseconds since 1970.
        public var at: Int64
        /// The provider's evidence, as received (or `null`).
        public var evidence: JSONTree
    }

    /// A field that does not hold what it must: the field's name and the rule.
    public struct Problem: Error, Sendable {
        /// The member, such as `amount_minor_units`.
        public var field: String
        /// What it must be, such as `is not an integer`.
        public var rule: String
    }

    /// The longest text kept for an identifier from a device.
    public static let maximumIdentifierLength = SyncContract.maximumIdentifierLength

    /// Reads and checks the object.
    public init(from decoder: any Decoder) throws {
        let json = try JSONTree(from: decoder)
        guard case .object(let members) = json else { throw Problem(field: "", rule: "is not an object") }
        func string(_ key: String, required: Bool = true) throws -> String? {
            switch members[key] {
            case .string(let text)?:
                guard !text.isEmpty, text.utf8.count <= Self.maximumIdentifierLength else {
                    throw Problem(field: key, rule: "must be 1 to \(Self.maximumIdentifierLength) bytes")
                }
                return text
            case .null?, nil:
                if required { throw Problem(field: key, rule: "is missing") }
                return nil
            default: throw Problem(field: key, rule: "is not a string")
            }
        }
        func time(_ key: String, required: Bool = true) throws -> Int64? {
            guard let text = try string(key, required: required) else { return nil }
            guard let milliseconds = Timestamp.milliseconds(text) else {
                throw Problem(field: key, rule: "is not an RFC 3339 time in UTC")
            }
            return milliseconds
        }
        guard let id = try string("payment_id").flatMap(PaymentID.init(rawValue:)) else {
            throw Problem(field: "payment_id", rule: "is not a payment ID")
        }
        guard let provider = try string("provider"),
            provider.utf8.count <= 32,
            provider.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else {
            throw Problem(field: "provider", rule: "is not a provider's name (lowercase letters, digits, '_')")
        }
        guard let stateText = try string("state"), let state = PaymentState(rawValue: stateText) else {
            throw Problem(field: "state", rule: "is not a payment state")
        }
        func status(_ key: String) throws -> PaymentOutcome.Status? {
            guard let text = try string(key, required: false) else { return nil }
            guard let status = PaymentOutcome.Status(rawValue: text) else {
                throw Problem(field: key, rule: "is not approved, declined, cancelled, failed or null")
            }
            return status
        }
        let outcome = try status("outcome")
        guard case .bool(let needsReconciliation)? = members["needs_reconciliation"] else {
            throw Problem(field: "needs_reconciliation", rule: "is not true or false")
        }
        guard case .integer(let minorUnits)? = members["amount_minor_units"], let units = Int(exactly: minorUnits)
        else {
            throw Problem(field: "amount_minor_units", rule: "is not an integer")
        }
        guard let code = try string("currency"), let currency = try? Currency(code: code) else {
            throw Problem(field: "currency", rule: "is not an ISO 4217 currency code")
        }
        // What no journal holds: a payment request needs at least one minor unit, and none carries more than the
        // contract's maximum (so that a day's totals stay far from Int64's end).
        guard units >= 1, units <= SyncContract.maximumMinorUnits else {
            throw Problem(
                field: "amount_minor_units",
                rule: "must be 1 to \(SyncContract.maximumMinorUnits) (a payment request's amount)"
            )
        }
        switch members["amount"] {
        case .null?, nil: break
        case .string(let text)?:
            guard let written = try? Money(decimal: text, currency: currency), written.minorUnits == units else {
                throw Problem(
                    field: "amount",
                    rule: "does not agree with amount_minor_units in \(currency.code) (\(currency.exponent) decimals)"
                )
            }
        default: throw Problem(field: "amount", rule: "is not decimal text")
        }
        var verification: Verification?
        switch members["verification"] {
        case .null?, nil: verification = nil
        case .object(let fields)?:
            guard case .string(let word)? = fields["verdict"], let verdict = PaymentVerdict(rawValue: word) else {
                throw Problem(field: "verification.verdict", rule: "is not confirmed, contradicted or unverifiable")
            }
            guard case .string(let atText)? = fields["at"], let at = Timestamp.milliseconds(atText) else {
                throw Problem(field: "verification.at", rule: "is not an RFC 3339 time in UTC")
            }
            verification = Verification(verdict: verdict, at: at, evidence: fields["evidence"] ?? .null)
        default: throw Problem(field: "verification", rule: "is not an object or null")
        }
        self.paymentID = id
        self.provider = PaymentProvider(rawValue: provider)
        self.state = state
        self.outcome = outcome
        self.needsReconciliation = needsReconciliation
        self.amount = Money(minorUnits: units, currency: currency)
        self.transactionID = try string("transaction_id", required: false)
        self.clientTransactionID = try string("client_transaction_id", required: false)
        self.foreignTransactionID = try string("foreign_transaction_id", required: false)
        guard let createdAt = try time("created_at"), let updatedAt = try time("updated_at") else {
            throw Problem(field: "created_at", rule: "is missing")
        }
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = try time("expires_at", required: false)
        self.verification = verification
        self.reportedOutcome = try status("reported_outcome")
        self.outcomeSource = try string("outcome_source", required: false)
        if let key = try string("idempotency_key", required: false) {
            guard let uuid = UUID(uuidString: key) else {
                throw Problem(field: "idempotency_key", rule: "is not a UUID")
            }
            self.idempotencyKey = uuid
        } else {
            self.idempotencyKey = nil
        }
        self.squareLocationID = try string("square_location_id", required: false)
        self.squareApplicationID = try string("square_application_id", required: false)
        self.contestedAt = try time("contested_at", required: false)
        switch members["square_tender_types"] {
        case .null?, nil: self.squareTenderTypes = nil
        case .array(let items)?:
            self.squareTenderTypes = try items.map { item in
                guard case .string(let name) = item, name.utf8.count <= 64 else {
                    throw Problem(field: "square_tender_types", rule: "is not an array of tender type names")
                }
                return name
            }
        default: throw Problem(field: "square_tender_types", rule: "is not an array of tender type names or null")
        }
        self.json = json
    }

    /// Encodes the object as it was read.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// Why a person must look at the payment, if they must: `unknown` (no answer came), `contested` (another payment
    /// names its provider record), `contradicted` (the provider's server says otherwise), `needs_reconciliation`
    /// (tampered, late, or flagged by the device); `nil` otherwise.
    /// A pending payment past its expiry needs a person too; the ledger finds those by their expiry.
    public var attention: PaymentAttention? {
        if state == .unknown { return .unknown }
        if contestedAt != nil && state != .resolved { return .contested }
        if verification?.verdict == .contradicted { return .contradicted }
        if needsReconciliation || state.needsReconciliation { return .needsReconciliation }
        return nil
    }
}

/// Why a person must look at a payment: the first four a device's payment says of itself
/// (``PaymentSnapshot/attention``), the last two the fleet server finds (its own verdict, the payment's expiry).
public enum PaymentAttention: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No answer came: ask the provider.
    case unknown
    /// Another payment names the provider record that would confirm it.
    case contested
    /// The provider's server says otherwise.
    case contradicted
    /// Tampered, late, or flagged by the device.
    case needsReconciliation = "needs_reconciliation"
    /// The provider never showed a record of it in its lookup window (the server's verdict).
    case unverifiable
    /// Pending past its expiry (found by the ledger from the payment's expiry, never stored).
    case expired

    /// The stable name, as in the ledger, its API and its metrics.
    public var description: String { rawValue }
}
