import Foundation
import Tender

/// What SumUp has that bears on one payment, as it was found: the input of SumUp's matching rules,
/// ``verification(of:asked:)``, which ``SumUpPaymentVerifier`` applies to what it looked up (SumUp pushes nothing
/// Tender reads, so nothing else feeds them).
package struct SumUpRecords: Sendable, Hashable {
    /// The transaction SumUp has under the payment's `foreign-tx-id`, as SumUp answered; `nil` when not asked.
    package var byForeignTransactionID: ProviderLookup<SumUpTransaction>?
    /// The transaction SumUp has under the callback's `smp-tx-code`, as SumUp answered; `nil` when not asked (it is
    /// asked when the `foreign-tx-id` finds nothing, or the payment has none).
    package var byTransactionCode: ProviderLookup<SumUpTransaction>?

    /// Creates the records of one payment.
    package init(
        byForeignTransactionID: ProviderLookup<SumUpTransaction>? = nil,
        byTransactionCode: ProviderLookup<SumUpTransaction>? = nil
    ) {
        self.byForeignTransactionID = byForeignTransactionID
        self.byTransactionCode = byTransactionCode
    }
}

extension SumUpRecords {
    /// SumUp's matching rules: the verdict these records give on the payment `request` describes.
    ///
    /// The transaction found by the payment's `foreign-tx-id` (the key SumUp documents for payments made from
    /// another app), or else by the callback's `smp-tx-code`, is judged by its time (every transaction must be made
    /// in the payment's ``PaymentVerificationRequest/recordWindow``), its transaction code against the callback's,
    /// its `simple_status` (or `status`), its amount (major units, converted exactly; tip not counted) and
    /// currency, and the POS app's report. One found by the code alone must also carry the payment's
    /// `foreign-tx-id`, when the payment has one (``PaymentVerification/Reason/foreignIDMismatch``).
    ///
    /// When SumUp has none: a reported success whose `smp-tx-code` SumUp does not know is contradicted
    /// (``PaymentVerification/Reason/noSuchTransaction``: SumUp assigns the codes); a payment reported as not taken
    /// is confirmed (``PaymentVerification/Reason/noRecord``) once its record window has passed; anything else is
    /// ``PaymentVerification/Reason/notFoundYet``.
    ///
    /// - Throws: ``ProviderAPIError/Code/invalidInput`` for a request that is not a SumUp payment;
    ///   ``ProviderAPIError/Code/unexpectedResponse`` for a transaction without a `timestamp`, which SumUp's API
    ///   always gives.
    package func verification(
        of request: PaymentVerificationRequest,
        asked: PaymentVerificationEvidence
    ) throws(ProviderAPIError) -> PaymentVerification {
        guard request.provider == .sumUp else { throw ProviderAPIError(otherProvider: request.provider, .sumUp) }
        guard request.foreignTransactionID != nil || request.transactionID != nil else {
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .noLookupKey,
                message: "Tender has neither the foreign-tx-id nor an smp-tx-code of this payment, and SumUp can look "
                    + "a transaction up only by one of them.",
                evidence: asked
            )
        }
        let byForeign = request.foreignTransactionID == nil ? nil : byForeignTransactionID?.record
        guard let transaction = byForeign ?? byTransactionCode?.record else { return notFound(request, asked) }
        let judge = SumUpJudge(
            request: request,
            transaction: transaction,
            evidence: asked,
            foundBy: byForeign == nil ? .callback : .paymentKey
        )
        return try judge.verification()
    }

    /// The answer when SumUp has no transaction by any key asked.
    private func notFound(
        _ request: PaymentVerificationRequest,
        _ evidence: PaymentVerificationEvidence
    ) -> PaymentVerification {
        if let code = request.transactionID, request.reportedStatus == .approved, byTransactionCode == .notFound {
            return PaymentVerification(
                verdict: .contradicted,
                reason: .noSuchTransaction,
                message: "SumUp has no transaction \(CardNumberScreen.excerpt(code)), the smp-tx-code the POS app "
                    + "reported with its success; SumUp assigns transaction codes when it processes a payment, so no "
                    + "payment SumUp took answered this request (or the token is for another merchant).",
                evidence: evidence
            )
        }
        let askedEveryKey =
            (request.foreignTransactionID == nil || byForeignTransactionID == .notFound)
            && (request.transactionID == nil || byTransactionCode == .notFound)
        if askedEveryKey, let reported = request.reportedStatus,
            let absent = PaymentVerification.absent(
                reported: reported,
                request: request,
                server: "SumUp",
                evidence: evidence
            )
        {
            return absent
        }
        return PaymentVerification(
            verdict: .unverifiable,
            reason: .notFoundYet,
            message: "SumUp has no transaction for this payment yet. That proves nothing: offline payments reach "
                + "SumUp when the device is online again. Ask again later.",
            evidence: evidence
        )
    }
}

/// Builds one payment's verdict from the SumUp transaction found for it.
private struct SumUpJudge {
    let request: PaymentVerificationRequest
    let transaction: SumUpTransaction
    let evidence: PaymentVerificationEvidence
    let name: String

    init(
        request: PaymentVerificationRequest,
        transaction: SumUpTransaction,
        evidence: PaymentVerificationEvidence,
        foundBy: PaymentVerificationEvidence.FoundBy
    ) {
        self.request = request
        self.transaction = transaction
        var evidence = evidence
        evidence.records = [Self.record(transaction)]
        evidence.recordIDs = [transaction.id, transaction.transactionCode].compactMap { $0 }.map {
            UntrustedText.safe($0, limit: 200, controls: .unreadable)
        }
        evidence.foundBy = evidence.recordIDs.isEmpty ? nil : foundBy
        self.evidence = evidence
        self.name =
            "SumUp's transaction \(UntrustedText.safe(transaction.transactionCode ?? transaction.id ?? "?", limit: 200, controls: .unreadable))"
    }

    func verification() throws(ProviderAPIError) -> PaymentVerification {
        if let rejection = try otherPayments() { return rejection }
        if let reported = request.transactionID, let code = transaction.transactionCode, code != reported {
            return verdict(
                .contradicted,
                .transactionCodeMismatch,
                "\(name) has the transaction code \(UntrustedText.safe(code, limit: 200, controls: .unreadable)), not \(CardNumberScreen.excerpt(reported)) "
                    + "as the POS app reported."
            )
        }
        let status = transaction.simpleStatus ?? transaction.status
        guard let proven = transaction.outcome else {
            let pending = status == .pending
            return verdict(
                .unverifiable,
                pending ? .pending : .unknownStatus,
                "\(name) is \(status.map { UntrustedText.safe($0.rawValue, limit: 200, controls: .unreadable) } ?? "without a status")"
                    + (pending ? ": not decided yet. Ask again later." : ", which Tender cannot read as an outcome.")
            )
        }
        guard let amount = transaction.amountMoney, amount == request.amount else {
            let server =
                "\(UntrustedText.safe(transaction.amount ?? "no amount", limit: 200, controls: .unreadable)) \(UntrustedText.safe(transaction.currencyCode ?? "", limit: 200, controls: .unreadable))"
                .trimmingCharacters(in: .whitespaces)
            let tip =
                transaction.tipAmount.map {
                    " with a tip of \(UntrustedText.safe($0, limit: 200, controls: .unreadable))"
                } ?? ""
            return verdict(
                .contradicted,
                .amountMismatch,
                "\(name) is for \(server)\(tip) (major units), not the \(request.amount) requested."
            )
        }
        return PaymentVerification.judging(
            reported: request.reportedStatus,
            proven: proven,
            record:
                "\(name) (\(UntrustedText.safe(status?.rawValue ?? "?", limit: 200, controls: .unreadable)), \(amount))",
            evidence: evidence
        )
    }

    /// Contradicted when the transaction is another payment's: carrying another `foreign-tx-id` than the payment's
    /// (or none, when the payment has one), or made outside its record window; `nil` when neither.
    private func otherPayments() throws(ProviderAPIError) -> PaymentVerification? {
        guard let time = transaction.timestamp else {
            throw ProviderAPIError(
                .unexpectedResponse,
                "\(name) has no timestamp, which SumUp's API always gives; check the base URL.",
                provider: .sumUp
            )
        }
        if let expected = request.foreignTransactionID, transaction.foreignTransactionID != expected {
            let carried =
                transaction.foreignTransactionID.map {
                    "the foreign-tx-id \(UntrustedText.safe($0, limit: 200, controls: .unreadable))"
                }
                ?? "no foreign-tx-id"
            return verdict(
                .contradicted,
                .foreignIDMismatch,
                "\(name) carries \(carried), not this payment's foreign-tx-id \(CardNumberScreen.excerpt(expected)): "
                    + "it answered another request, so the callback's smp-tx-code is not this payment's."
            )
        }
        let window = request.recordWindow
        guard window.contains(time) else {
            return verdict(
                .contradicted,
                .outsideWindow,
                "\(name) was made at \(InternetDate.rfc3339(time)), outside this payment's time "
                    + "(\(InternetDate.rfc3339(window.start)) to \(InternetDate.rfc3339(window.end))): it is another "
                    + "sale's."
            )
        }
        return nil
    }

    private func verdict(
        _ verdict: PaymentVerdict,
        _ reason: PaymentVerification.Reason,
        _ message: String
    ) -> PaymentVerification {
        PaymentVerification(verdict: verdict, reason: reason, message: message, evidence: evidence)
    }

    private static func record(_ transaction: SumUpTransaction) -> PaymentVerificationEvidence.Record {
        PaymentVerificationEvidence.Record(
            kind: PaymentVerificationEvidence.Record.sumUpTransaction,
            id: transaction.id ?? transaction.transactionCode ?? "",
            status: transaction.status?.rawValue,
            simpleStatus: transaction.simpleStatus?.rawValue,
            amount: transaction.amountMoney,
            tip: transaction.tipMoney,
            serverAmount: transaction.amount,
            serverCurrency: transaction.currencyCode,
            transactionCode: transaction.transactionCode,
            foreignTransactionID: transaction.foreignTransactionID,
            createdAt: transaction.timestamp
        )
    }
}
