import Foundation
import GRDB
import Tender
import TenderProviderAPI

extension JournalEntry {
    /// The `payment` columns an entry is read from: `SELECT \(JournalEntry.columns) FROM payment …`.
    static let columns = columnNames.joined(separator: ", ")

    /// ``columns``, each qualified with a table name (for a join).
    static func columns(of table: String) -> String {
        columnNames.map { table + "." + $0 }.joined(separator: ", ")
    }

    private static let columnNames = [
        "id", "idempotency_key", "provider", "amount_minor_units", "currency", "state", "revision", "handoff_count",
        "created_at", "updated_at", "expires_at", "opened_at", "acknowledged_at", "outcome_status",
        "outcome_amount_minor_units", "outcome_currency", "outcome_transaction_id", "outcome_error_code",
        "outcome_message", "outcome_assurance", "outcome_source", "resolved_at", "resolved_from_state",
        "resolution_note",
        "verification", "verified_at", "verification_note", "resolution_reported_outcome",
        // v8
        "outcome_client_transaction_id", "foreign_transaction_id", "verification_reason", "verification_evidence",
    ]

    /// A column's value, or `nil` for SQL `NULL`; a value of another type is a damaged journal, never a crash.
    static func column<Value: DatabaseValueConvertible>(_ row: Row, _ name: String) throws -> Value? {
        do {
            return try row.decode(Value?.self, forColumn: name)
        } catch {
            throw damaged(name)
        }
    }

    /// A column that may not be `NULL`.
    static func required<Value: DatabaseValueConvertible>(_ row: Row, _ name: String) throws -> Value {
        guard let value: Value = try column(row, name) else { throw damaged(name) }
        return value
    }

    static func damaged(_ column: String) -> HandoffError {
        HandoffError(
            .journalCorrupt,
            "A journal row has an invalid \(column); the file was changed outside Tender. Keep it for recovery."
        )
    }

    /// Reads an entry from a row that selected ``columns``, by column name, validating what it reads: a missing or
    /// mistyped value is a damaged journal, never a crash.
    init(row: Row) throws {
        func required<Value: DatabaseValueConvertible>(_ name: String) throws -> Value {
            try JournalEntry.required(row, name)
        }
        func optional<Value: DatabaseValueConvertible>(_ name: String) throws -> Value? {
            try JournalEntry.column(row, name)
        }
        func time(_ name: String) throws -> Date? { (try optional(name) as Int64?).map(Date.init(journalTime:)) }
        guard let id = PaymentID(rawValue: try required("id")) else { throw JournalEntry.damaged("id") }
        guard let key = UUID(journalText: try required("idempotency_key")) else {
            throw JournalEntry.damaged("idempotency_key")
        }
        guard let state = PaymentState(rawValue: try required("state")) else { throw JournalEntry.damaged("state") }
        let currency: Currency
        do { currency = try Currency(code: try required("currency") as String) } catch {
            throw JournalEntry.damaged("currency")
        }
        var outcome: RecordedOutcome?
        if let rawStatus: String = try optional("outcome_status") {
            guard let status = PaymentOutcome.Status(rawValue: rawStatus) else {
                throw JournalEntry.damaged("outcome_status")
            }
            guard let assurance = PaymentOutcome.Assurance(rawValue: try optional("outcome_assurance") ?? "") else {
                throw JournalEntry.damaged("outcome_assurance")
            }
            guard let source = RecordedOutcome.Source(rawValue: try optional("outcome_source") ?? "") else {
                throw JournalEntry.damaged("outcome_source")
            }
            var amount: Money?
            if let minor: Int = try optional("outcome_amount_minor_units"),
                let code: String = try optional("outcome_currency")
            {
                do { amount = Money(minorUnits: minor, currency: try Currency(code: code)) } catch {
                    throw JournalEntry.damaged("outcome_currency")
                }
            }
            outcome = RecordedOutcome(
                status: status,
                amount: amount,
                transactionID: try optional("outcome_transaction_id"),
                clientTransactionID: try optional("outcome_client_transaction_id"),
                errorCode: try optional("outcome_error_code"),
                message: try optional("outcome_message"),
                assurance: assurance,
                source: source
            )
        }
        var resolution: Resolution?
        if let resolvedAt = try time("resolved_at") {
            guard let previous = PaymentState(rawValue: try optional("resolved_from_state") ?? "") else {
                throw JournalEntry.damaged("resolved_from_state")
            }
            var reported: RecordedOutcome?
            if let json: String = try optional("resolution_reported_outcome") {
                guard let outcome = RecordedOutcome(journalJSON: json) else {
                    throw JournalEntry.damaged("resolution_reported_outcome")
                }
                reported = outcome
            }
            resolution = Resolution(
                resolvedAt: resolvedAt,
                previousState: previous,
                note: try optional("resolution_note"),
                reportedOutcome: reported
            )
        }
        var verification: Verification?
        if let verdict: String = try optional("verification") {
            guard let kind = PaymentVerdict(rawValue: verdict), let at = try time("verified_at") else {
                throw JournalEntry.damaged("verification")
            }
            var evidence: PaymentVerificationEvidence?
            if let json: String = try optional("verification_evidence") {
                guard let read = PaymentVerificationEvidence(journalJSON: json) else {
                    throw JournalEntry.damaged("verification_evidence")
                }
                evidence = read
            }
            verification = Verification(
                verdict: kind,
                verifiedAt: at,
                note: try optional("verification_note"),
                reason: (try optional("verification_reason") as String?).map {
                    PaymentVerification.Reason(rawValue: $0)
                },
                evidence: evidence
            )
        }
        self.init(
            id: id,
            idempotencyKey: key,
            provider: PaymentProvider(rawValue: try required("provider")),
            amount: Money(minorUnits: try required("amount_minor_units"), currency: currency),
            state: state,
            outcome: outcome,
            revision: try required("revision"),
            handoffCount: try required("handoff_count"),
            createdAt: Date(journalTime: try required("created_at")),
            updatedAt: Date(journalTime: try required("updated_at")),
            expiresAt: Date(journalTime: try required("expires_at")),
            openedAt: try time("opened_at"),
            acknowledgedAt: try time("acknowledged_at"),
            resolution: resolution,
            verification: verification,
            foreignTransactionID: try optional("foreign_transaction_id")
        )
    }
}

extension UUID {
    /// A random (version 4) UUID from the system's generator, in one request: what `UUID()` makes, without the file
    /// it opens and closes for each one on Linux.
    static func random() -> UUID {
        var generator = SystemRandomBlocks()
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes.storeBytes(of: generator.next() as UInt64, as: UInt64.self)
            bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
        }
        uuid.6 = uuid.6 & 0x0F | 0x40  // version 4
        uuid.8 = uuid.8 & 0x3F | 0x80  // RFC 4122 variant
        return UUID(uuid: uuid)
    }

    /// The UUID as the journal writes it: `8-4-4-4-12` lower-case hexadecimal digits. What
    /// `uuidString.lowercased()` gives, without its formatting through `snprintf` and a second string.
    var journalText: String {
        let digits = UUID.lowerHexDigits
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = digits[Int(byte >> 4)]
                    output[position + 1] = digits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    private static let lowerHexDigits = Array("0123456789abcdef".utf8)

    /// Reads a UUID as the journal writes it, `8-4-4-4-12` hexadecimal digits in either case; `nil` for any
    /// other text. The same values as `UUID(uuidString:)`, without its `sscanf`.
    init?(journalText text: String) {
        var text = text
        let bytes: uuid_t? = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var index = 0
            var position = 0
            while position < 36 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard utf8[position] == UInt8(ascii: "-") else { return nil }
                    position += 1
                    continue
                }
                guard let high = Self.hexValue(utf8[position]), let low = Self.hexValue(utf8[position + 1]) else {
                    return nil
                }
                bytes[index] = high << 4 | low
                index += 1
                position += 2
            }
            return (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        }
        guard let bytes else { return nil }
        self.init(uuid: bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
