/// Asks a provider's server what it knows of payments and says whether that confirms, contradicts or cannot
/// settle what Tender knows of each (SEC-7).
///
/// A callback proves only that *someone* opened your URL scheme with the payment's one-time token: the token
/// defeats forgers who never saw the request, but not an app that hijacked the POS app's own URL scheme and so
/// read it. Only the provider's server can tell. Tender ships ``SquarePaymentVerifier``, ``SumUpPaymentVerifier``,
/// ``NoLookupPaymentVerifier`` (Swipe and SoftPOS publish no lookup API) and ``ProviderPaymentVerifier``, which
/// picks one by the payment's provider. See <doc:VerifyingPayments>.
///
/// A verifier answers with a ``PaymentVerification`` — `confirmed`,
/// `contradicted` or `unverifiable` — whenever the server gave an answer,
/// including "not found yet". It **throws** (a ``ProviderAPIError``) when it could not ask: no network, the
/// server failing after the retries, a refused token, an answer that is not the provider's, bad input. Record
/// nothing then; ask again later.
public protocol PaymentVerifier: Sendable {
    /// Asks the provider's server about the payment `request` describes.
    /// - Returns: the verdict, its reason, the outcome the server proves (if any) and the evidence.
    /// - Throws: ``ProviderAPIError`` when the server could not be asked or refused to answer.
    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification

    /// Asks the provider's server about many payments at once, with as few requests as it can.
    ///
    /// The default asks about each payment in turn with ``verify(_:)`` and counts no request
    /// (``PaymentVerificationBatch/providerRequests`` is `nil`); Tender's verifiers batch their requests and count
    /// them.
    /// - Returns: one result per request, in order: its verification, or the error that stopped it.
    /// - Throws: `CancellationError` only: every other failure is the failure of the payments it concerns.
    func verify(_ requests: [PaymentVerificationRequest]) async throws -> PaymentVerificationBatch
}

extension PaymentVerifier {
    /// Asks ``verify(_:)`` about each payment in turn.
    public func verify(_ requests: [PaymentVerificationRequest]) async throws -> PaymentVerificationBatch {
        var results: [Result<PaymentVerification, any Error>] = []
        for request in requests {
            do {
                results.append(.success(try await verify(request)))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                results.append(.failure(error))
            }
        }
        return PaymentVerificationBatch(results: results, providerRequests: nil)
    }
}

/// The answers of a ``PaymentVerifier`` about many payments: one result per payment, and how many requests the
/// providers' servers were sent.
public struct PaymentVerificationBatch: Sendable {
    /// One result per payment asked about, in the order asked: its verification, or the error of a request it
    /// needed (never a verdict: record nothing for it).
    public var results: [Result<PaymentVerification, any Error>]
    /// How many HTTP requests were sent to the providers' servers, retries included; `nil` when the verifier does
    /// not count them.
    public var providerRequests: Int?

    /// Creates a batch's answers.
    public init(results: [Result<PaymentVerification, any Error>], providerRequests: Int?) {
        self.results = results
        self.providerRequests = providerRequests
    }
}
