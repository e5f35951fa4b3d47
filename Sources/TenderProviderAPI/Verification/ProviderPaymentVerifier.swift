public import Foundation
import Tender

/// Verifies a payment with the verifier of its provider: ``SquarePaymentVerifier`` for Square,
/// ``SumUpPaymentVerifier`` for SumUp, and ``NoLookupPaymentVerifier`` for Swipe, SoftPOS and any provider
/// without a lookup API, which answers ``PaymentVerdict/unverifiable`` (``PaymentVerification/Reason/noLookupAPI``).
///
/// ```swift
/// let verifier = ProviderPaymentVerifier(
///     square: SquarePaymentVerifier(client: SquareConnectClient(), accessToken: token),
///     sumUp: nil
/// )
/// let verification = try await verifier.verify(request)
/// ```
public struct ProviderPaymentVerifier: PaymentVerifier {
    /// The verifier of Square payments, if Square credentials were given.
    public var square: SquarePaymentVerifier?
    /// The verifier of SumUp payments, if SumUp credentials were given.
    public var sumUp: SumUpPaymentVerifier?
    /// The answer for providers without a lookup API.
    public var noLookup: NoLookupPaymentVerifier

    /// Creates a verifier from the providers' verifiers; leave out those you have no credentials for.
    public init(
        square: SquarePaymentVerifier? = nil,
        sumUp: SumUpPaymentVerifier? = nil,
        noLookup: NoLookupPaymentVerifier = NoLookupPaymentVerifier()
    ) {
        self.square = square
        self.sumUp = sumUp
        self.noLookup = noLookup
    }

    /// Asks the verifier of `request.provider`.
    /// - Throws: ``ProviderAPIError`` with ``ProviderAPIError/Code/notConfigured`` for a Square or SumUp payment
    ///   without its verifier; the chosen verifier's errors.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        switch request.provider {
        case .square:
            guard let square else { throw Self.notConfigured(.square, "SQUARE_ACCESS_TOKEN") }
            return try await square.verify(request)
        case .sumUp:
            guard let sumUp else { throw Self.notConfigured(.sumUp, "SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE") }
            return try await sumUp.verify(request)
        default:
            return try await noLookup.verify(request)
        }
    }

    private static func notConfigured(_ provider: PaymentProvider, _ credentials: String) -> ProviderAPIError {
        ProviderAPIError(
            .notConfigured,
            "No \(provider) verifier is set up, so a \(provider) payment cannot be checked with \(provider)'s server. "
                + "Give its credentials (\(credentials) for the CLI).",
            provider: provider
        )
    }
}

/// The verifier of providers that publish no API to look a payment up — Swipe and Comercia's SoftPOS: it always
/// answers ``PaymentVerdict/unverifiable`` with ``PaymentVerification/Reason/noLookupAPI``, and never
/// ``PaymentVerdict/confirmed``.
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

    /// Answers ``PaymentVerdict/unverifiable`` (``PaymentVerification/Reason/noLookupAPI``), asking nobody.
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
