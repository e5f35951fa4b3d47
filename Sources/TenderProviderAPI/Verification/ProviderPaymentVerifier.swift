import Foundation
import Tender

/// Verifies a payment with the verifier of its provider: ``SquarePaymentVerifier`` for Square,
/// ``SumUpPaymentVerifier`` for SumUp, and ``NoLookupPaymentVerifier`` for Swipe, SoftPOS and any provider
/// without a lookup API, which answers `unverifiable` (``PaymentVerification/Reason/noLookupAPI``).
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

    /// Asks each provider's verifier about its payments, all of them in one batch per provider.
    /// - Returns: one result per request, in order; a Square or SumUp payment without its verifier fails with
    ///   ``ProviderAPIError/Code/notConfigured``. The requests sent are those of the providers' verifiers.
    /// - Throws: `CancellationError` only.
    public func verify(_ requests: [PaymentVerificationRequest]) async throws -> PaymentVerificationBatch {
        var results = [Result<PaymentVerification, any Error>](
            repeating: .failure(CancellationError()),
            count: requests.count
        )
        var providerRequests = 0
        let byProvider = Dictionary(grouping: requests.indices) { index in
            [.square, .sumUp].contains(requests[index].provider) ? requests[index].provider : nil
        }
        for (provider, indices) in byProvider {
            let batch: PaymentVerificationBatch
            switch provider {
            case .square?:
                guard let square else {
                    for index in indices {
                        results[index] = .failure(Self.notConfigured(.square, "SQUARE_ACCESS_TOKEN"))
                    }
                    continue
                }
                batch = try await square.verify(indices.map { requests[$0] })
            case .sumUp?:
                guard let sumUp else {
                    let error = Self.notConfigured(.sumUp, "SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE")
                    for index in indices { results[index] = .failure(error) }
                    continue
                }
                batch = try await sumUp.verify(indices.map { requests[$0] })
            default:
                batch = try await noLookup.verify(indices.map { requests[$0] })
            }
            providerRequests += batch.providerRequests ?? 0
            for (index, result) in zip(indices, batch.results) { results[index] = result }
        }
        return PaymentVerificationBatch(results: results, providerRequests: providerRequests)
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
