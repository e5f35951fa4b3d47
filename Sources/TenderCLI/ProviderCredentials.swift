import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// The providers' credentials, from the environment (never from the command line, where other users can read them).
struct ProviderCredentials {
    var square: SquareAccessToken?
    var sumUp: (token: SumUpAccessToken, merchantCode: String)?

    static let squareVariable = "SQUARE_ACCESS_TOKEN"
    static let sumUpTokenVariable = "SUMUP_ACCESS_TOKEN"
    static let sumUpMerchantVariable = "SUMUP_MERCHANT_CODE"
    /// The reason of the answer for a payment whose provider's credentials are not set.
    static let noCredentials = PaymentVerification.Reason(rawValue: "no_credentials")

    /// Reads `SQUARE_ACCESS_TOKEN`, `SUMUP_ACCESS_TOKEN` and `SUMUP_MERCHANT_CODE`; an empty one counts as not set.
    /// - Throws: ``CLIError`` when only one of SumUp's two is set.
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ProviderCredentials {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var credentials = ProviderCredentials()
        credentials.square = value(squareVariable).map(SquareAccessToken.init)
        switch (value(sumUpTokenVariable), value(sumUpMerchantVariable)) {
        case (let token?, let merchant?): credentials.sumUp = (SumUpAccessToken(token), merchant)
        case (nil, nil): break
        default:
            throw CLIError(
                "\(sumUpTokenVariable) and \(sumUpMerchantVariable) go together: export both to verify SumUp payments, or neither."
            )
        }
        return credentials
    }

    /// The verifier of every provider whose credentials are set, at `server`'s base URL (each provider's production
    /// API when it names none), each request waiting at most `server`'s deadline.
    func verifier(_ server: ProviderServerOptions) throws -> ProviderPaymentVerifier {
        var verifier = ProviderPaymentVerifier()
        if let square {
            let environment = try server.baseURL.map { try SquareEnvironment(baseURL: $0) } ?? .production
            verifier.square = SquarePaymentVerifier(
                client: SquareConnectClient(environment: environment, timeout: server.deadline),
                accessToken: square
            )
        }
        if let sumUp {
            let environment = try server.baseURL.map { try SumUpEnvironment(baseURL: $0) } ?? .production
            verifier.sumUp = SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: environment, timeout: server.deadline),
                merchantCode: sumUp.merchantCode,
                accessToken: sumUp.token
            )
        }
        return verifier
    }

    /// ``verifier(_:)``, for a payment of `provider`.
    /// - Throws: ``CLIError`` when the provider has a lookup API and its credentials are not set.
    func verifier(_ server: ProviderServerOptions, for provider: PaymentProvider) throws -> ProviderPaymentVerifier {
        if provider == .square, square == nil {
            throw CLIError(
                "No credentials for Square: export \(Self.squareVariable) (scopes ORDERS_READ and PAYMENTS_READ); it is never read from the command line."
            )
        }
        if provider == .sumUp, sumUp == nil {
            throw CLIError(
                "No credentials for SumUp: export \(Self.sumUpTokenVariable) and \(Self.sumUpMerchantVariable); they are never read from the command line."
            )
        }
        return try verifier(server)
    }

    /// The verifier `tender journal reconcile` asks: a payment of a provider whose credentials are not set gets
    /// `unverifiable` (`no_credentials`) instead of stopping the run.
    func reconcilingVerifier(_ server: ProviderServerOptions) -> some PaymentVerifier {
        let verifier = (try? verifier(server)) ?? ProviderPaymentVerifier()
        return WithoutCredentials(verifier: verifier, square: square != nil, sumUp: sumUp != nil)
    }

    private struct WithoutCredentials: PaymentVerifier {
        let verifier: ProviderPaymentVerifier
        let square: Bool
        let sumUp: Bool

        func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
            let missing: String? =
                switch request.provider {
                case .square where !square: ProviderCredentials.squareVariable
                case .sumUp where !sumUp:
                    "\(ProviderCredentials.sumUpTokenVariable) and \(ProviderCredentials.sumUpMerchantVariable)"
                default: nil
                }
            guard let missing else { return try await verifier.verify(request) }
            return PaymentVerification(
                verdict: .unverifiable,
                reason: ProviderCredentials.noCredentials,
                message: "Not asked: no \(request.provider) credentials were given (export \(missing)).",
                evidence: PaymentVerificationEvidence(server: nil, askedAt: Date())
            )
        }
    }
}
