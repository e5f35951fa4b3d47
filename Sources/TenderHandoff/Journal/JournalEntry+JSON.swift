package import Foundation
package import Tender
import TenderProviderAPI

extension JournalEntry {
    /// The entry's JSON form: one object, what `tender journal show --json` and `list --json` print and what the fleet
    /// sync sends. It holds what ``JournalEntry`` holds, never a token or a card number.
    ///
    /// Its members, in order: `payment_id`, `provider`, `state`, `outcome` (the outcome the journal accepts: set only
    /// for completed and resolved payments), `reported_outcome` (what the POS app's callback said, whatever the state,
    /// and kept by a resolution), `needs_reconciliation`, `amount` (a decimal string), `amount_minor_units`,
    /// `currency`, `outcome_amount` and `outcome_currency` (what the POS app echoed), `transaction_id`,
    /// `client_transaction_id`, `error_code` and `message` (the payment's outcome's: the one decided by hand once
    /// resolved, the server's for one the server proved), `foreign_transaction_id` (SumUp's lookup key, no secret),
    /// `square_tender_types` (wire strings, or `null`), `square_location_id` (the Square location the payment was
    /// requested at, or `null`), `square_application_id` (the Square application that made the request, or `null`),
    /// `outcome_source`, `assurance` (`null` for an outcome decided
    /// by hand), `idempotency_key`, `handoff_count`, `created_at`, `updated_at`, `expires_at`, `opened_at`,
    /// `acknowledged_at`, `disputed_at` (when an answer first disagreed, or `null`), `contested_at` (when the payment's
    /// provider record was found named by another payment too, or `null`), `resolution` (`null`, or `resolved_at`, `previous_state`, `note` and `reported`: the
    /// callback's `outcome`, `transaction_id`, `error_code` and `message` a resolution replaced) and `verification`
    /// (`null`, or the provider's server's `verdict`, `at`, `reason`, `note` and `evidence`). Absent values are
    /// `null`. Times are RFC 3339 in UTC with milliseconds, as the journal keeps them (`2026-11-27T10:15:30.123Z`).
    ///
    /// - Parameter history: the payment's history (``PaymentJournal/history(of:)``), added as `history`: an array of
    ///   `{"kind", "at", "from_state", "to_state", "note"}`, oldest first. Left out when `nil`.
    public func encodeJSON(history: [PaymentEvent]? = nil) -> String {
        JSONValue.object(jsonObject(history: history)).serialized(escapingSlashes: false)
    }

    /// ``encodeJSON(history:)``'s object, its members in order: for the CLI, which also prints them one a line.
    package func jsonObject(history: [PaymentEvent]? = nil) -> JSONObject {
        var object: JSONObject = [
            "payment_id": .string(id.rawValue),
            "provider": .string(provider.rawValue),
            "state": .string(state.rawValue),
            "outcome": text(acceptedStatus?.rawValue),
            "reported_outcome": text(reportedOutcome?.status.rawValue),
            "needs_reconciliation": .bool(needsReconciliation),
            "amount": .string(amount.decimalString),
            "amount_minor_units": .integer(amount.minorUnits),
            "currency": .string(amount.currency.code),
            "outcome_amount": text(outcome?.amount?.decimalString),
            "outcome_currency": text(outcome?.amount?.currency.code),
            "transaction_id": text(outcome?.transactionID),
            "client_transaction_id": text(outcome?.clientTransactionID),
            "foreign_transaction_id": text(foreignTransactionID),
            "square_tender_types": squareTenderTypes.map { .array($0.wireNames.map(JSONValue.string)) } ?? .null,
            "square_location_id": text(squareLocationID),
            "square_application_id": text(squareApplicationID),
            "error_code": text(outcome?.errorCode),
            "message": text(outcome?.message),
            "outcome_source": text(outcome?.source.rawValue),
            // A manual resolution is neither reported by the POS app nor verified with the provider.
            "assurance": text(outcome.flatMap { $0.source == .manual ? nil : $0.assurance.rawValue }),
            "idempotency_key": .string(idempotencyKey.journalText),
            "handoff_count": .integer(handoffCount),
            "created_at": .string(JournalEntry.timestamp(createdAt)),
            "updated_at": .string(JournalEntry.timestamp(updatedAt)),
            "expires_at": .string(JournalEntry.timestamp(expiresAt)),
            "opened_at": text(openedAt.map(JournalEntry.timestamp)),
            "acknowledged_at": text(acknowledgedAt.map(JournalEntry.timestamp)),
            "disputed_at": text(disputedAt.map(JournalEntry.timestamp)),
            "contested_at": text(contestedAt.map(JournalEntry.timestamp)),
            "resolution": resolution.map { .object($0.jsonObject) } ?? .null,
            "verification": verification.map { .object($0.jsonObject) } ?? .null,
        ]
        if let history { object["history"] = .array(history.map { .object($0.jsonObject) }) }
        return object
    }

    /// The outcome the journal accepts: only a completed or resolved payment's.
    package var acceptedStatus: PaymentOutcome.Status? {
        state == .completed || state == .resolved ? outcome?.status : nil
    }

    /// What the POS app's callback reported: the payment's outcome while it came from a callback, and the one a
    /// resolution kept once it is resolved.
    package var reportedOutcome: RecordedOutcome? {
        if let resolution { return resolution.reportedOutcome }
        return outcome?.source == .callback ? outcome : nil
    }

    /// A time as the JSON form writes it: RFC 3339 in UTC with the journal's milliseconds, such as
    /// `2026-11-22T06:44:08.412Z` (``InternetDate`` writes the date and the whole seconds).
    package static func timestamp(_ date: Date) -> String {
        let milliseconds = date.journalTime
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let whole = InternetDate.rfc3339(Date(timeIntervalSince1970: TimeInterval(seconds)))
        let fraction = String(milliseconds - seconds * 1000)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }
}

extension JournalEntry.Resolution {
    /// The resolution in the entry's JSON form.
    var jsonObject: JSONObject {
        [
            "resolved_at": .string(JournalEntry.timestamp(resolvedAt)),
            "previous_state": .string(previousState.rawValue),
            "note": text(note),
            "reported": reportedOutcome.map { reported in
                .object([
                    "outcome": .string(reported.status.rawValue),
                    "transaction_id": text(reported.transactionID),
                    "error_code": text(reported.errorCode),
                    "message": text(reported.message),
                ])
            } ?? .null,
        ]
    }
}

extension JournalEntry.Verification {
    /// The verification in the entry's JSON form.
    var jsonObject: JSONObject {
        [
            "verdict": .string(verdict.rawValue),
            "at": .string(JournalEntry.timestamp(verifiedAt)),
            "reason": .string(reason.rawValue),
            "note": text(note),
            "evidence": evidence.jsonValue,
        ]
    }
}

extension PaymentEvent {
    /// The history row in the entry's JSON form.
    var jsonObject: JSONObject {
        [
            "kind": .string(kind.rawValue),
            "at": .string(JournalEntry.timestamp(at)),
            "from_state": text(fromState?.rawValue),
            "to_state": text(toState?.rawValue),
            "note": text(note),
        ]
    }
}

extension PaymentVerificationEvidence {
    /// The evidence as JSON: its own `Codable` form (snake-case keys, sorted; RFC 3339 times; amounts in minor units).
    package var jsonValue: JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self),
            let value = try? JSONValue.parse(String(decoding: data, as: UTF8.self))
        else { return .null }
        return value
    }
}

/// A string, or `null`.
private func text(_ value: String?) -> JSONValue {
    value.map(JSONValue.string) ?? .null
}
