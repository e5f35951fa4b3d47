public import Foundation
import Tender

/// Checks SumUp payments with SumUp's Transactions API.
///
/// Each transaction is looked up by the request's ``PaymentVerificationRequest/foreignTransactionID`` (the
/// `foreign-tx-id`, the key SumUp documents for this), or, when SumUp does not know it or the payment has none, by
/// its ``PaymentVerificationRequest/transactionID`` (the callback's `smp-tx-code`), and judged by SumUp's matching
/// rules, one copy for one payment and for many: the transaction's time, `foreign_transaction_id`,
/// `transaction_code`, `simple_status` (or `status`) and amount against the request and the report.
///
/// ``verify(_:)-([PaymentVerificationRequest])`` asks about many payments with one lookup per `foreign-tx-id`
/// and per `smp-tx-code` (each asked once, however many payments share it).
///
/// A transaction code is assigned by the acquirer "after processing the transaction" (SumUp's OpenAPI,
/// `transaction_code`), so a report of success with a code SumUp does not know is contradicted. SumUp's readers
/// take offline payments that reach SumUp only when the device is online again ("store-and-forward"), so any other
/// missing transaction is "not found yet", until the payment's record window has passed for a payment reported as
/// not taken (``PaymentVerification/Reason/noRecord``).
///
/// Time-outs, connection failures, 5xx and 429 are retried as the client says and then thrown, never turned into
/// a verdict; so are a refused token, a missing scope, and any answer that is not SumUp's (a 404 without SumUp's
/// `NOT_FOUND` error included).
public struct SumUpPaymentVerifier: PaymentVerifier, CustomStringConvertible {
    /// The client that asks SumUp; its ``SumUpAPIClient/timeout`` is each request's deadline.
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
    ///   - now: the clock of the evidence's `asked_at`, and of ``PaymentVerification/Reason/noRecord``.
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

    /// Asks SumUp about one payment: a batch of one.
    /// - Throws: ``ProviderAPIError``: ``ProviderAPIError/Code/invalidInput`` for a request that is not a SumUp
    ///   payment or a key of the wrong shape (nothing is sent); the client's errors otherwise.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        try await verify([request]).results[0].get()
    }

    /// Asks SumUp about many payments: one lookup per `foreign-tx-id`, then one per `smp-tx-code` of the payments
    /// the first found nothing for.
    /// - Returns: one result per request, and the number of requests sent to SumUp.
    /// - Throws: `CancellationError` only.
    public func verify(_ requests: [PaymentVerificationRequest]) async throws -> PaymentVerificationBatch {
        let tally = RequestTally()
        let askedAt = now()
        var byForeign: [String: Result<ProviderLookup<SumUpTransaction>, any Error>] = [:]
        for request in requests where request.provider == .sumUp {
            guard let key = request.foreignTransactionID, byForeign[key] == nil else { continue }
            byForeign[key] = try await lookUp(.foreignTransactionID(key), tally)
        }
        var byCode: [String: Result<ProviderLookup<SumUpTransaction>, any Error>] = [:]
        for request in requests where request.provider == .sumUp {
            guard let code = request.transactionID, byCode[code] == nil else { continue }
            // By the code only when the foreign-tx-id is none, or SumUp said it has no transaction under it.
            if let key = request.foreignTransactionID {
                guard case .success(.notFound)? = byForeign[key] else { continue }
            }
            byCode[code] = try await lookUp(.transactionCode(code), tally)
        }
        let results = requests.map { request in
            Result { () throws -> PaymentVerification in
                guard request.provider == .sumUp else {
                    throw ProviderAPIError(otherProvider: request.provider, .sumUp)
                }
                let foreign = try request.foreignTransactionID.flatMap { try byForeign[$0]?.get() }
                let code = try request.transactionID.flatMap { try byCode[$0]?.get() }
                let endpoint = "GET /v2.1/merchants/{merchant_code}/transactions"
                let evidence = PaymentVerificationEvidence(
                    server: client.environment.description,
                    endpoints: [foreign, code].compactMap { $0 == nil ? nil : endpoint },
                    askedAt: askedAt
                )
                let records = SumUpRecords(byForeignTransactionID: foreign, byTransactionCode: code)
                let verification = try records.verification(of: request, asked: evidence)
                return accessToken.withSecret { verification.removing($0) }
            }
        }
        return PaymentVerificationBatch(results: results, providerRequests: tally.total)
    }

    /// One lookup: the transaction, SumUp's `NOT_FOUND`, or the failure.
    private func lookUp(
        _ key: SumUpAPIClient.TransactionLookup,
        _ tally: RequestTally
    ) async throws -> Result<ProviderLookup<SumUpTransaction>, any Error> {
        do {
            let transaction = try await client.transaction(
                merchantCode: merchantCode,
                key,
                accessToken: accessToken,
                tally: tally
            )
            return .success(.found(transaction))
        } catch ProviderAPIError.Code.notFound {
            return .success(.notFound)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .failure(error)
        }
    }
}
