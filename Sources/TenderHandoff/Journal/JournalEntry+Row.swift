import Foundation
import GRDB
import Tender

extension JournalEntry {
    /// Reads an entry from a `payment` row, validating what it reads.
    init(row: Row) throws {
        func damaged(_ column: String) -> HandoffError {
            HandoffError(
                .journalCorrupt,
                "A journal row has an invalid \(column); the file was changed outside Tender. Keep it for recovery."
            )
        }
        guard let id = PaymentID(rawValue: row["id"]) else { throw damaged("id") }
        guard let key = UUID(uuidString: row["idempotency_key"]) else { throw damaged("idempotency_key") }
        guard let state = PaymentState(rawValue: row["state"]) else { throw damaged("state") }
        let currency: Currency
        do { currency = try Currency(code: row["currency"] as String) } catch { throw damaged("currency") }
        var outcome: RecordedOutcome?
        if let rawStatus: String = row["outcome_status"] {
            guard let status = PaymentOutcome.Status(rawValue: rawStatus) else { throw damaged("outcome_status") }
            guard let assurance = PaymentOutcome.Assurance(rawValue: row["outcome_assurance"] ?? "") else {
                throw damaged("outcome_assurance")
            }
            guard let source = RecordedOutcome.Source(rawValue: row["outcome_source"] ?? "") else {
                throw damaged("outcome_source")
            }
            var amount: Money?
            if let minor: Int = row["outcome_amount_minor_units"], let code: String = row["outcome_currency"] {
                do { amount = Money(minorUnits: minor, currency: try Currency(code: code)) } catch {
                    throw damaged("outcome_currency")
                }
            }
            outcome = RecordedOutcome(
                status: status,
                amount: amount,
                transactionID: row["outcome_transaction_id"],
                errorCode: row["outcome_error_code"],
                message: row["outcome_message"],
                assurance: assurance,
                source: source
            )
        }
        var resolution: Resolution?
        if let resolvedAt: Int64 = row["resolved_at"] {
            guard let previous = PaymentState(rawValue: row["resolved_from_state"] ?? "") else {
                throw damaged("resolved_from_state")
            }
            resolution = Resolution(
                resolvedAt: Date(journalTime: resolvedAt),
                previousState: previous,
                note: row["resolution_note"]
            )
        }
        var verification: Verification?
        if let verdict: String = row["verification"] {
            guard let kind = PaymentVerdict.Kind(rawValue: verdict), let at: Int64 = row["verified_at"] else {
                throw damaged("verification")
            }
            verification = Verification(
                verdict: kind,
                verifiedAt: Date(journalTime: at),
                note: row["verification_note"]
            )
        }
        self.init(
            id: id,
            idempotencyKey: key,
            provider: PaymentProvider(rawValue: row["provider"]),
            amount: Money(minorUnits: row["amount_minor_units"], currency: currency),
            state: state,
            outcome: outcome,
            revision: row["revision"],
            handoffCount: row["handoff_count"],
            createdAt: Date(journalTime: row["created_at"]),
            updatedAt: Date(journalTime: row["updated_at"]),
            expiresAt: Date(journalTime: row["expires_at"]),
            openedAt: (row["opened_at"] as Int64?).map(Date.init(journalTime:)),
            acknowledgedAt: (row["acknowledged_at"] as Int64?).map(Date.init(journalTime:)),
            resolution: resolution,
            verification: verification
        )
    }
}
