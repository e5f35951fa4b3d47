public import Foundation
import Tender

/// Checks a SumUp payment with SumUp's Transactions API.
///
/// The transaction is looked up by the request's ``PaymentVerificationRequest/foreignTransactionID`` (the
/// `foreign-tx-id`, the key SumUp documents for this), or else by its ``PaymentVerificationRequest/transactionID``
/// (the callback's `smp-tx-code`). The verdict compares SumUp's `simple_status` (or `status`), its `amount` (major
/// units, converted exactly with the currency's digits; tip not counted), its `currency`, and its
/// `transaction_code` with the callback's `smp-tx-code`.
///
/// **Found by the code alone.** A transaction found by the `smp-tx-code` (SumUp did not know the `foreign-tx-id`)
/// is this payment's only if nothing says otherwise: the callback that brought the code may have replayed another
/// payment's. So when the request has a `foreign-tx-id` and the transaction carries another one, or none, the
/// answer is ``PaymentVerdict/contradicted`` (``PaymentVerification/Reason/foreignIDMismatch``); and when the
/// transaction's `timestamp` is outside the request's ``PaymentVerificationRequest/window`` (whose slack is the
/// one the Square search uses), it is contradicted too (``PaymentVerification/Reason/outsideWindow``). A
/// transaction without a timestamp is not judged by it. (An app version that does not pass the `foreign-tx-id` on
/// to SumUp makes a genuine payment contradicted: a person looks, which is the safe side.) A transaction found by
/// the `foreign-tx-id` is the payment's own: the hand-off generated that ID for it alone.
///
/// **Not found.** A transaction code is assigned by the acquirer "after processing the transaction" (SumUp's
/// OpenAPI, `transaction_code`), so a report of success with a code SumUp does not know is
/// ``PaymentVerdict/contradicted`` (``PaymentVerification/Reason/noSuchTransaction``). Otherwise a missing
/// transaction is ``PaymentVerification/Reason/notFoundYet`` and proves nothing: SumUp's readers take offline
/// payments that reach SumUp only when the device is online again ("store-and-forward", SumUp's offline
/// transactions), and a `foreign-tx-id` reaches SumUp only from app versions that send it. Once the window and
/// ``offlineSyncAllowance`` have passed, a payment the POS app reported as not taken (failed, declined, cancelled)
/// that SumUp still does not have is ``PaymentVerdict/confirmed`` (``PaymentVerification/Reason/noRecord``): no
/// money moved, and the reconciler need not ask about it again.
///
/// Time-outs, connection failures, 5xx and 429 are retried as the client says and then thrown, never turned into
/// a verdict; so are a refused token and a missing scope.
public struct SumUpPaymentVerifier: PaymentVerifier, CustomStringConvertible {
    /// The client that asks SumUp.
    public let client: SumUpAPIClient
    /// The merchant whose transactions are looked up, such as `MH4H92C7`.
    public let merchantCode: String
    /// How long after a payment's window SumUp may still receive it (offline payments): until then, a payment
    /// SumUp does not have is "not found yet". Default: ``PaymentVerificationRequest/offlineSyncAllowance``.
    public var offlineSyncAllowance: Duration = PaymentVerificationRequest.offlineSyncAllowance
    private let accessToken: SumUpAccessToken
    private let now: @Sendable () -> Date

    /// Creates a verifier.
    /// - Parameters:
    ///   - client: the client for SumUp's API.
    ///   - merchantCode: the merchant's code, such as `MH4H92C7`.
    ///   - accessToken: an OAuth token (scope `transactions.history`) or API key of the merchant.
    ///   - now: the clock of the evidence's `asked_at`.
    public init(
        client: SumUpAPIClient,
        merchantCode: String,
        accessToken: SumUpAccessToken,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.merchantCode = merchantCode
        self.accessToken = accessToken
        self.now = now
    }

    /// `SumUpPaymentVerifier(https://api.sumup.com, merchant MH4H92C7)`: no token.
    public var description: String {
        "SumUpPaymentVerifier(\(client.environment), merchant \(CardNumberScreen.excerpt(merchantCode)))"
    }

    /// Asks SumUp about the payment.
    /// - Throws: ``ProviderAPIError``: ``ProviderAPIError/Code/invalidInput`` for a request that is not a SumUp
    ///   payment or a key of the wrong shape (nothing is sent); the client's errors otherwise.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        guard request.provider == .sumUp else { throw ProviderAPIError(otherProvider: request.provider, .sumUp) }
        var evidence = PaymentVerificationEvidence(server: client.environment.description, askedAt: now())
        let endpoint = "GET /v2.1/merchants/{merchant_code}/transactions"
        var lookups: [SumUpAPIClient.TransactionLookup] = []
        if let foreign = request.foreignTransactionID { lookups.append(.foreignTransactionID(foreign)) }
        if let code = request.transactionID { lookups.append(.transactionCode(code)) }
        guard !lookups.isEmpty else {
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .noLookupKey,
                message: "Tender has neither the foreign-tx-id nor an smp-tx-code of this payment, and SumUp can look "
                    + "a transaction up only by one of them.",
                evidence: evidence
            )
        }
        var transaction: SumUpTransaction?
        var byCodeOnly = false
        // By the foreign-tx-id first; when SumUp does not know it (an app version that does not send it), by the code.
        for lookup in lookups where transaction == nil {
            evidence.endpoints.append(endpoint)
            do {
                transaction = try await client.transaction(merchantCode: merchantCode, lookup, accessToken: accessToken)
                if case .transactionCode = lookup { byCodeOnly = true }
            } catch ProviderAPIError.Code.notFound {
                continue
            }
        }
        let asked = evidence.askedAt
        guard let transaction else {
            return notFound(request, evidence, at: asked)
        }
        evidence.records = [Self.record(transaction)]
        let verification =
            byCodeOnly
            ? (Self.foreignCheck(transaction, request, evidence) ?? decide(transaction, request, evidence))
            : decide(transaction, request, evidence)
        return accessToken.withSecret { verification.removing($0) }
    }

    /// The answer when SumUp has no transaction by any key.
    private func notFound(
        _ request: PaymentVerificationRequest,
        _ evidence: PaymentVerificationEvidence,
        at now: Date
    ) -> PaymentVerification {
        if let code = request.transactionID, request.reportedStatus == .approved {
            return PaymentVerification(
                verdict: .contradicted,
                reason: .noSuchTransaction,
                message: "SumUp has no transaction \(CardNumberScreen.excerpt(code)), the smp-tx-code the POS app "
                    + "reported with its success; SumUp assigns transaction codes when it processes a payment, so no "
                    + "payment SumUp took answered this request (or the token is for another merchant).",
                evidence: evidence
            )
        }
        if let reported = request.reportedStatus, reported != .approved,
            let absent = PaymentVerification.absent(
                reported: reported,
                request: request,
                allowance: offlineSyncAllowance,
                now: now,
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

    /// For a transaction found by the `smp-tx-code` alone: contradicted when it carries another `foreign-tx-id` than
    /// the request's (or none), or was made outside the request's window; `nil` when neither says it is another
    /// payment's.
    private static func foreignCheck(
        _ transaction: SumUpTransaction,
        _ request: PaymentVerificationRequest,
        _ evidence: PaymentVerificationEvidence
    ) -> PaymentVerification? {
        let name = "SumUp's transaction \(ServerText.clean(transaction.transactionCode ?? transaction.id ?? "?"))"
        if let expected = request.foreignTransactionID, transaction.foreignTransactionID != expected {
            let carried =
                transaction.foreignTransactionID.map { "the foreign-tx-id \(ServerText.clean($0))" }
                ?? "no foreign-tx-id"
            return PaymentVerification(
                verdict: .contradicted,
                reason: .foreignIDMismatch,
                message: "SumUp does not know this payment's foreign-tx-id \(CardNumberScreen.excerpt(expected)), and "
                    + "\(name), found by the smp-tx-code the POS app reported, carries \(carried): it answered "
                    + "another request, so the callback's code is not this payment's.",
                evidence: evidence
            )
        }
        if let time = transaction.timestamp, !request.window.contains(time) {
            return PaymentVerification(
                verdict: .contradicted,
                reason: .outsideWindow,
                message: "\(name), found by the smp-tx-code the POS app reported, was made at "
                    + "\(InternetDate.rfc3339(time)), outside this payment's window (\(InternetDate.rfc3339(request.window.start)) "
                    + "to \(InternetDate.rfc3339(request.window.end))): it is another sale's.",
                evidence: evidence
            )
        }
        return nil
    }

    private func decide(
        _ transaction: SumUpTransaction,
        _ request: PaymentVerificationRequest,
        _ evidence: PaymentVerificationEvidence
    ) -> PaymentVerification {
        func verdict(
            _ verdict: PaymentVerdict,
            _ reason: PaymentVerification.Reason,
            _ message: String,
            _ proven: PaymentOutcome.Status? = nil
        ) -> PaymentVerification {
            PaymentVerification(
                verdict: verdict,
                reason: reason,
                message: message,
                provenOutcome: proven,
                evidence: evidence
            )
        }
        let name = "SumUp's transaction \(ServerText.clean(transaction.transactionCode ?? transaction.id ?? "?"))"
        if let reported = request.transactionID, let code = transaction.transactionCode, code != reported {
            return verdict(
                .contradicted,
                .transactionCodeMismatch,
                "\(name) has the transaction code \(ServerText.clean(code)), not \(CardNumberScreen.excerpt(reported)) as the POS app "
                    + "reported."
            )
        }
        let status = transaction.simpleStatus ?? transaction.status
        guard let proven = transaction.outcome else {
            let pending = status == .pending
            return verdict(
                .unverifiable,
                pending ? .pending : .unknownStatus,
                "\(name) is \(status.map { ServerText.clean($0.rawValue) } ?? "without a status")"
                    + (pending ? ": not decided yet. Ask again later." : ", which Tender cannot read as an outcome.")
            )
        }
        guard let amount = transaction.amountMoney, amount == request.amount else {
            let server =
                "\(ServerText.clean(transaction.amount ?? "no amount")) \(ServerText.clean(transaction.currencyCode ?? ""))"
                .trimmingCharacters(in: .whitespaces)
            let tip = transaction.tipAmount.map { " with a tip of \(ServerText.clean($0))" } ?? ""
            return verdict(
                .contradicted,
                .amountMismatch,
                "\(name) is for \(server)\(tip) (major units), not the \(request.amount) requested."
            )
        }
        let statusText = ServerText.clean(status?.rawValue ?? "?")
        return PaymentVerification.judging(
            reported: request.reportedStatus,
            proven: proven,
            record: "\(name) (\(statusText), \(amount))",
            evidence: evidence
        )
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
