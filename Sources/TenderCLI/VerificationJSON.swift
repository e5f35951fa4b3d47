import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// The JSON and text forms of verifications and reconciliations.
enum VerificationJSON {
    /// `tender journal reconcile --json`'s line for one payment.
    static func line(_ reconciliation: PaymentReconciliation) -> String {
        let verification = reconciliation.verification
        var output = JSONOutput()
        output.set("payment_id", reconciliation.after.id.rawValue)
        output.set("before", reconciliation.before.state.rawValue)
        output.set("after", reconciliation.after.state.rawValue)
        output.set("verdict", verification.verdict.rawValue)
        output["evidence"] = verification.evidence.jsonValue
        output.set("provider", reconciliation.after.provider.rawValue)
        output.set("reason", verification.reason.rawValue)
        output.set("message", verification.message)
        output.set("outcome", reconciliation.after.acceptedStatus?.rawValue)
        output.set("recorded", reconciliation.recorded)
        output.set("needs_reconciliation", reconciliation.after.needsReconciliation)
        if let failure = reconciliation.failure {
            var error = JSONOutput()
            error.set("code", failure.code.rawValue)
            error.set("message", failure.message)
            output["error"] = .object(error.object)
        }
        return output.text
    }

    /// `tender journal reconcile`'s line for one payment: `ID (provider): before → after, verdict (reason)`.
    static func text(_ reconciliation: PaymentReconciliation) -> String {
        let (before, after) = (reconciliation.before, reconciliation.after)
        let verification = reconciliation.verification
        var line = "\(after.id) (\(after.provider)): \(before.state) → \(after.state)"
        if let outcome = after.acceptedStatus, before.state != after.state { line += " (\(outcome))" }
        line += ", \(verification.verdict) (\(verification.reason))"
        if after.needsReconciliation, verification.verdict == .contradicted { line += ", needs reconciliation" }
        if let failure = reconciliation.failure { line += ": " + failure.message }
        return line
    }

    /// `tender journal verify`'s closing line: what the journal holds now, and whether this run recorded it.
    static func standing(_ reconciliation: PaymentReconciliation) -> String {
        let entry = reconciliation.after
        var line = "journal: \(entry.state)"
        if let outcome = entry.acceptedStatus { line += ", \(outcome)" }
        if entry.contestedAt != nil {
            line += ", contested: a person must decide which payment the provider's record is"
        } else if let verification = entry.verification {
            line += ", \(verification.verdict) by the provider"
        }
        if entry.needsReconciliation { line += ", needs reconciliation" }
        line += reconciliation.recorded ? " (recorded now)" : " (nothing recorded now)"
        return line + "."
    }

    /// The evidence in a few lines: the server and endpoints asked, the order, the records.
    static func evidenceLines(_ evidence: PaymentVerificationEvidence) -> [String] {
        var lines: [String] = []
        if let server = evidence.server {
            lines.append(
                "asked \(server) at \(InternetDate.rfc3339(evidence.askedAt)): "
                    + evidence.endpoints.joined(separator: ", ")
            )
        }
        if let order = evidence.orderID {
            lines.append("order \(order)" + (evidence.orderState.map { " (\($0))" } ?? ""))
        }
        if let candidates = evidence.candidateCount {
            lines.append("search: \(candidates) candidate(s) of \(evidence.examinedCount ?? 0) payment(s) read")
        }
        for record in evidence.records {
            var line = "\(record.kind) \(record.id)"
            let status = [record.status, record.simpleStatus].compactMap { $0 }.joined(separator: "/")
            if !status.isEmpty { line += " \(status)" }
            if let amount = record.amount { line += " \(amount.decimalString) \(amount.currency.code)" }
            if let location = record.locationID { line += " at \(location)" }
            if let code = record.transactionCode { line += ", code \(code)" }
            if let foreign = record.foreignTransactionID { line += ", foreign-tx-id \(foreign)" }
            lines.append(line)
        }
        return lines
    }
}
