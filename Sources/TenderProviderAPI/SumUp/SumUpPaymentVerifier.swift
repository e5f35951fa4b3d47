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
/// **Not found.** A transaction code is assigned by the acquirer "after processing the transaction" (SumUp's
/// OpenAPI, `transaction_code`), so a report of success with a code SumUp does not know is
/// ``PaymentVerdict/contradicted`` (``PaymentVerification/Reason/noSuchTransaction``). Without a code, a missing
/// transaction is ``PaymentVerification/Reason/notFoundYet`` and proves nothing: SumUp's readers take offline
/// payments that reach SumUp only when the device is online again ("store-and-forward", SumUp's offline
/// transactions), and a `foreign-tx-id` reaches SumUp only from app versions that send it.
///
/// Time-outs, connection failures, 5xx and 429 are retried as the client says and then thrown, never turned into
/// a verdict; so are a refused token and a missing scope.
public struct SumUpPaymentVerifier: PaymentVerifier, CustomStringConvertible {
    /// The client that asks SumUp.
    public let client: SumUpAPIClient
    /// The merchant whose transactions are looked up, such as `MH4H92C7`.
    public let merchantCode: String
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
        // By the foreign-tx-id first; when SumUp does not know it (an app version that does not send it), by the code.
        for lookup in lookups where transaction == nil {
            evidence.endpoints.append(endpoint)
            do {
                transaction = try await client.transaction(merchantCode: merchantCode, lookup, accessToken: accessToken)
            } catch ProviderAPIError.Code.notFound {
                continue
            }
        }
        guard let transaction else {
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
            return PaymentVerification(
                verdict: .unverifiable,
                reason: .notFoundYet,
                message: "SumUp has no transaction for this payment yet. That proves nothing: offline payments reach "
                    + "SumUp when the device is online again. Ask again later.",
                evidence: evidence
            )
        }
        evidence.records = [Self.record(transaction)]
        let verification = decide(transaction, request, evidence)
        return accessToken.withSecret { verification.removing($0) }
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
