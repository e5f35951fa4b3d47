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
        "outcome_amount_minor_units", "outcome_currency", "outcome_transaction_id", "outcome_client_transaction_id",
        "outcome_error_code", "outcome_message", "outcome_assurance", "outcome_source", "resolved_at",
        "resolved_from_state", "resolution_note", "resolution_reported_outcome", "verification", "verified_at",
        "verification_note", "verification_reason", "verification_evidence", "foreign_transaction_id",
        "square_tender_types", "square_location_id", "disputed_at", "square_application_id", "contested_at",
    ]

    /// Square tender types as the journal keeps them in `square_tender_types`: their wire strings joined by commas
    /// (`CREDIT_CARD,CASH`; empty for none).
    static func journalText(_ types: SquareTenderTypes?) -> String? {
        types.map { $0.wireNames.joined(separator: ",") }
    }

    /// Reads ``journalText(_:)``'s text; `nil` for `nil`, and for text that is not wire strings (a file changed
    /// outside Tender: read as "not known", which matches any tender type).
    static func squareTenderTypes(journalText text: String?) -> SquareTenderTypes? {
        guard let text else { return nil }
        return SquareTenderTypes(wireNames: text.split(separator: ",").map(String.init))
    }

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
            guard let evidence = PaymentVerificationEvidence(journalJSON: try required("verification_evidence")) else {
                throw JournalEntry.damaged("verification_evidence")
            }
            verification = Verification(
                verdict: kind,
                verifiedAt: at,
                note: try optional("verification_note"),
                reason: PaymentVerification.Reason(rawValue: try required("verification_reason")),
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
            foreignTransactionID: try optional("foreign_transaction_id"),
            squareTenderTypes: JournalEntry.squareTenderTypes(journalText: try optional("square_tender_types")),
            squareLocationID: try optional("square_location_id"),
            disputedAt: try time("disputed_at"),
            squareApplicationID: try optional("square_application_id"),
            contestedAt: try time("contested_at")
        )
    }
}

extension UUID {
    /// The UUID as the journal writes it: `8-4-4-4-12` lower-case hexadecimal digits.
    var journalText: String { uuidString.lowercased() }

    /// Reads a UUID as the journal writes it, in either case; `nil` for any other text.
    init?(journalText text: String) {
        self.init(uuidString: text)
    }
}
