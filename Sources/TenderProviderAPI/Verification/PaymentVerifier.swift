/// Asks a provider's server what it knows of one payment and says whether that confirms, contradicts or cannot
/// settle what Tender knows of it (SEC-7).
///
/// A callback proves only that *someone* opened your URL scheme with the payment's one-time token: the token
/// defeats forgers who never saw the request, but not an app that hijacked the POS app's own URL scheme and so
/// read it. Only the provider's server can tell. Tender ships ``SquarePaymentVerifier``, ``SumUpPaymentVerifier``,
/// ``NoLookupPaymentVerifier`` (Swipe and SoftPOS publish no lookup API) and ``ProviderPaymentVerifier``, which
/// picks one by the payment's provider. See <doc:VerifyingPayments>.
///
/// A verifier answers with a ``PaymentVerification`` — ``PaymentVerdict/confirmed``,
/// ``PaymentVerdict/contradicted`` or ``PaymentVerdict/unverifiable`` — whenever the server gave an answer,
/// including "not found yet". It **throws** (a ``ProviderAPIError``) when it could not ask: no network, the
/// server failing after the retries, a refused token, bad input. Record nothing then; ask again later.
public protocol PaymentVerifier: Sendable {
    /// Asks the provider's server about the payment `request` describes.
    /// - Returns: the verdict, its reason, the outcome the server proves (if any) and the evidence.
    /// - Throws: ``ProviderAPIError`` when the server could not be asked or refused to answer.
    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification
}
