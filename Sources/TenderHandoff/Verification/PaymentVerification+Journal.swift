import Foundation
import Tender
import TenderProviderAPI

extension PaymentVerificationEvidence {
    /// The evidence as the journal keeps it in `payment.verification_evidence`: JSON with sorted keys and RFC 3339
    /// times, holding no card number (SEC-9; see ``PaymentVerification/journalText(_:withoutAmounts:)``).
    func journalJSON() throws -> String {
        try PaymentVerification.journalText(self) { $0.withoutAmounts() }
    }

    /// Reads ``journalJSON()``'s text; `nil` when it is not evidence (a file changed outside Tender).
    init?(journalJSON text: String) {
        guard let evidence = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = evidence
    }

    /// The evidence without the records' amounts and tips.
    func withoutAmounts() -> PaymentVerificationEvidence {
        var evidence = self
        evidence.records = records.map { record in
            var record = record
            record.amount = nil
            record.tip = nil
            return record
        }
        return evidence
    }
}

extension PaymentVerification {
    /// The whole verification (verdict, reason, message, proven outcome and evidence) as a history row's note keeps
    /// it: the structured record of what the server was asked and what it said, not only its message.
    func journalJSON() throws -> String {
        try PaymentVerification.journalText(self) { verification in
            var verification = verification
            verification.evidence = verification.evidence.withoutAmounts()
            return verification
        }
    }

    /// Reads ``journalJSON()``'s text, as a payment's history keeps it; `nil` for any other note.
    package init?(journalJSON text: String) {
        guard let verification = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = verification
    }

    /// `value` as JSON text for the journal: sorted keys, slashes as they are, and no card number (SEC-9).
    ///
    /// The server's text in evidence is cleaned already (``PaymentVerificationEvidence/Record``); what could still
    /// read as a card number is a number: an amount of 13 digits or more in minor units, which no real payment has.
    /// Masked, it would no longer be JSON, so such a value is written without its amounts (`withoutAmounts`).
    /// Never cut to a length: the evidence is bounded by its own limits (``PaymentVerificationEvidence/maximumRecords``
    /// records of bounded fields), and cut JSON would not read.
    static func journalText<Value: Codable>(_ value: Value, withoutAmounts: (Value) -> Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard CardNumberScreen.containsCardNumber(text) else { return text }
        let masked = Redaction.maskingCardNumbers(text)
        if (try? JSONDecoder().decode(Value.self, from: Data(masked.utf8))) != nil { return masked }
        return Redaction.maskingCardNumbers(String(decoding: try encoder.encode(withoutAmounts(value)), as: UTF8.self))
    }
}
