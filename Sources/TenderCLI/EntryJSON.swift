import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// The JSON and text forms of journal entries.
enum EntryJSON {
    /// `payment_id`, `provider`, `state`, `outcome` (the accepted outcome: set only for completed and
    /// resolved payments), `reported_outcome` (what the callback said, whatever the state, and kept by a
    /// resolution), amounts and times. `transaction_id`, `client_transaction_id`, `error_code`, `message` are the
    /// payment's outcome's (the one decided by hand, once resolved; the server's, for one the server proved);
    /// `resolution.reported` has the callback's, when a resolution replaced it. `foreign_transaction_id` is SumUp's
    /// lookup key for the payment (no secret); `square_tender_types` the tender types a Square request allowed (wire
    /// strings, `null` when not kept). `verification` is `null`, or the provider's server's verdict with
    /// `verdict`, `at`, `reason`, `note` and `evidence`.
    static func object(_ entry: JournalEntry) -> JSONObject {
        var output = JSONOutput()
        output.set("payment_id", entry.id.rawValue)
        output.set("provider", entry.provider.rawValue)
        output.set("state", entry.state.rawValue)
        output.set("outcome", acceptedOutcome(entry)?.rawValue)
        output.set("reported_outcome", reportedOutcome(entry)?.status.rawValue)
        output.set("needs_reconciliation", entry.needsReconciliation)
        output.set("amount", entry.amount.decimalString)
        output.set("amount_minor_units", entry.amount.minorUnits)
        output.set("currency", entry.amount.currency.code)
        output.set("outcome_amount", entry.outcome?.amount?.decimalString)
        output.set("outcome_currency", entry.outcome?.amount?.currency.code)
        output.set("transaction_id", entry.outcome?.transactionID)
        output.set("client_transaction_id", entry.outcome?.clientTransactionID)
        output.set("foreign_transaction_id", entry.foreignTransactionID)
        output["square_tender_types"] = entry.squareTenderTypes.map { .array($0.wireNames.map(JSONValue.string)) }
        output.set("error_code", entry.outcome?.errorCode)
        output.set("message", entry.outcome?.message)
        output.set("outcome_source", entry.outcome?.source.rawValue)
        // A manual resolution is neither reported by the POS app nor verified with the provider.
        output.set("assurance", entry.outcome.flatMap { $0.source == .manual ? nil : $0.assurance.rawValue })
        output.set("idempotency_key", entry.idempotencyKey.uuidString.lowercased())
        output.set("handoff_count", entry.handoffCount)
        output.set("created_at", timestamp(entry.createdAt))
        output.set("updated_at", timestamp(entry.updatedAt))
        output.set("expires_at", timestamp(entry.expiresAt))
        output.set("opened_at", entry.openedAt.map(timestamp))
        output.set("acknowledged_at", entry.acknowledgedAt.map(timestamp))
        if let resolution = entry.resolution {
            var object = JSONOutput()
            object.set("resolved_at", timestamp(resolution.resolvedAt))
            object.set("previous_state", resolution.previousState.rawValue)
            object.set("note", resolution.note)
            if let reported = resolution.reportedOutcome {
                var fields = JSONOutput()
                fields.set("outcome", reported.status.rawValue)
                fields.set("transaction_id", reported.transactionID)
                fields.set("error_code", reported.errorCode)
                fields.set("message", reported.message)
                object["reported"] = .object(fields.object)
            } else {
                object["reported"] = .null
            }
            output["resolution"] = .object(object.object)
        } else {
            output["resolution"] = .null
        }
        if let verification = entry.verification {
            var object = JSONOutput()
            object.set("verdict", verification.verdict.rawValue)
            object.set("at", timestamp(verification.verifiedAt))
            object.set("reason", verification.reason.rawValue)
            object.set("note", verification.note)
            object["evidence"] = VerificationJSON.evidence(verification.evidence)
            output["verification"] = .object(object.object)
        } else {
            output["verification"] = .null
        }
        return output.object
    }

    /// What the POS app's callback reported: the payment's outcome while it came from a callback, and the one a
    /// resolution kept once it is resolved.
    static func reportedOutcome(_ entry: JournalEntry) -> RecordedOutcome? {
        if let resolution = entry.resolution { return resolution.reportedOutcome }
        return entry.outcome?.source == .callback ? entry.outcome : nil
    }

    /// The outcome the journal accepts: only a completed or resolved payment's.
    static func acceptedOutcome(_ entry: JournalEntry) -> PaymentOutcome.Status? {
        entry.state == .completed || entry.state == .resolved ? entry.outcome?.status : nil
    }

    /// ISO 8601 in UTC with milliseconds, such as `2026-11-22T06:44:08.412Z`: the journal's times are milliseconds.
    /// Written from the calendar fields (`gmtime_r`): an `ISO8601DateFormatter` made for each time cost about a
    /// millisecond on Linux, which a listing of a million payments pays five million times.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.floorDiv(1000))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "" }
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(fields.tm_year + 1900, 4) + "-" + digits(fields.tm_mon + 1, 2) + "-" + digits(fields.tm_mday, 2)
            + "T" + digits(fields.tm_hour, 2) + ":" + digits(fields.tm_min, 2) + ":" + digits(fields.tm_sec, 2) + "."
            + digits(Int32(milliseconds - milliseconds.floorDiv(1000) * 1000), 3) + "Z"
    }
}

extension Int64 {
    /// The quotient rounded toward minus infinity (times before 1970 too).
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
