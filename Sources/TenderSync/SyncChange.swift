import Foundation

/// One change of a device's journal: a row of a payment's history, with the payment as it is after it.
///
/// Its JSON form: `{"sequence", "payment_id", "kind", "at", "from_state", "to_state", "note", "payment"}`, `at` an
/// RFC 3339 time in UTC with milliseconds, `payment` the payment's ``PaymentSnapshot`` (`null` for `pruned` and
/// `set_aside` only).
public struct SyncChange: Sendable, Hashable, Codable {
    /// The journal's sequence number of the change: 1, 2, 3, … with no gap.
    public var sequence: Int64
    /// The payment the change is about.
    public var paymentID: PaymentID
    /// The history kind (``PaymentEventKind``; one this version does not know is kept as it came).
    public var kind: PaymentEventKind
    /// When the change happened on the device, in milliseconds since 1970.
    public var at: Int64
    /// The state before the change (`nil` for `begun`).
    public var fromState: PaymentState?
    /// The state after the change (`nil` for `pruned`).
    public var toState: PaymentState?
    /// The history row's note, already redacted on the device.
    public var note: String?
    /// The payment after the change; `nil` exactly when ``kind`` is `pruned` or `set_aside` (a change the server
    /// refused, sent again as a marker without its payment).
    public var payment: PaymentSnapshot?

    /// Creates a change.
    public init(
        sequence: Int64,
        paymentID: PaymentID,
        kind: PaymentEventKind,
        at: Int64,
        fromState: PaymentState?,
        toState: PaymentState?,
        note: String? = nil,
        payment: PaymentSnapshot?
    ) {
        self.sequence = sequence
        self.paymentID = paymentID
        self.kind = kind
        self.at = at
        self.fromState = fromState
        self.toState = toState
        self.note = note
        self.payment = payment
    }

    enum CodingKeys: String, CodingKey {
        case sequence, kind, at, note, payment
        case paymentID = "payment_id"
        case fromState = "from_state"
        case toState = "to_state"
    }

    /// Decodes and checks a change: ``SyncContractError/Code/invalidChange`` names the field and the sequence.
    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw SyncContractError(.invalidChange, "A change is not a JSON object.")
        }
        guard let sequence = try? container.decode(Int64.self, forKey: .sequence), sequence >= 1 else {
            throw SyncContractError(.invalidChange, "A change's sequence is missing or not an integer of at least 1.")
        }
        func invalid(_ field: String, _ rule: String) -> SyncContractError {
            SyncContractError(.invalidChange, "Change \(sequence): \(field) \(rule).", sequence: sequence)
        }
        guard let kind = try? container.decode(PaymentEventKind.self, forKey: .kind) else {
            throw invalid("kind", "is missing or not a kind's name (1 to 32 lowercase letters, digits and '_')")
        }
        guard let idText = try? container.decode(String.self, forKey: .paymentID),
            let paymentID = PaymentID(rawValue: idText)
        else {
            throw invalid("payment_id", "is missing or not a payment ID (1–64 letters, digits, '-', '_', '.', ':')")
        }
        guard let atText = try? container.decode(String.self, forKey: .at), let at = Timestamp.milliseconds(atText)
        else {
            throw invalid("at", "is missing or not an RFC 3339 time in UTC")
        }
        func state(_ key: CodingKeys) throws -> PaymentState? {
            guard let text = try? container.decodeIfPresent(String.self, forKey: key) else {
                if (try? container.decodeNil(forKey: key)) ?? true { return nil }
                throw invalid(key.rawValue, "is not a payment state or null")
            }
            guard let state = PaymentState(rawValue: text) else {
                throw invalid(key.rawValue, "is not a payment state or null")
            }
            return state
        }
        let fromState = try state(.fromState)
        let toState = try state(.toState)
        let note: String?
        do { note = try container.decodeIfPresent(String.self, forKey: .note) } catch {
            throw invalid("note", "is not a string or null")
        }
        let payment: PaymentSnapshot?
        if (try? container.decodeNil(forKey: .payment)) ?? true {
            payment = nil
        } else {
            do {
                payment = try container.decode(PaymentSnapshot.self, forKey: .payment)
            } catch let error as PaymentSnapshot.Problem {
                throw invalid("payment.\(error.field)", error.rule)
            } catch {
                throw invalid("payment", "is not the payment's JSON object (\(SyncBatch.describe(error)))")
            }
        }
        if kind == .pruned {
            guard payment == nil else { throw invalid("payment", "must be null for a pruned payment") }
            guard toState == nil else { throw invalid("to_state", "must be null for a pruned payment") }
        } else if kind == .setAside {
            guard payment == nil else { throw invalid("payment", "must be null for a change set aside") }
            guard fromState == nil, toState == nil else {
                throw invalid("from_state and to_state", "must be null for a change set aside")
            }
        } else {
            guard let payment else { throw invalid("payment", "is missing: every change but pruned carries it") }
            guard payment.paymentID == paymentID else {
                throw invalid("payment.payment_id", "is not the change's payment_id")
            }
        }
        self.init(
            sequence: sequence,
            paymentID: paymentID,
            kind: kind,
            at: at,
            fromState: fromState,
            toState: toState,
            note: note,
            payment: payment
        )
    }

    /// Encodes the change in its JSON form; absent values are `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(paymentID, forKey: .paymentID)
        try container.encode(kind, forKey: .kind)
        try container.encode(Timestamp.text(at), forKey: .at)
        try container.encode(fromState, forKey: .fromState)
        try container.encode(toState, forKey: .toState)
        try container.encode(note, forKey: .note)
        try container.encode(payment, forKey: .payment)
    }
}
