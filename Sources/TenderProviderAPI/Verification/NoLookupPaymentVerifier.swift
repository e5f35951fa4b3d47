public import Foundation
import Tender

/// The verifier of providers that publish no API to look a payment up — Swipe and Comercia's SoftPOS: it always
/// answers `unverifiable` with ``PaymentVerification/Reason/noLookupAPI``, and never
/// `confirmed`.
///
/// Their answers can be matched to their requests (the one-time token), never checked with a server: an app that
/// hijacked their URL scheme can answer "approved" and nothing here can tell. Check such payments in the
/// provider's own back office.
public struct NoLookupPaymentVerifier: PaymentVerifier {
    private let now: @Sendable () -> Date

    /// Creates the verifier.
    /// - Parameter now: the clock of the evidence's `asked_at`.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Answers `unverifiable` (``PaymentVerification/Reason/noLookupAPI``), asking nobody.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        let said: String
        switch request.provider {
        case .swipe: said = "Swipe publishes no API to look a payment up"
        case .softPOS: said = "SoftPOS publishes no API to look a payment up"
        default:
            said = "Tender has no way to look up a payment of '\(CardNumberScreen.excerpt(request.provider.rawValue))'"
        }
        return PaymentVerification(
            verdict: .unverifiable,
            reason: .noLookupAPI,
            message: said + ": its answer was matched to its request by the one-time token, but cannot be confirmed "
                + "with a server. Check the payment in the provider's own records.",
            evidence: PaymentVerificationEvidence(server: nil, askedAt: now())
        )
    }
}
