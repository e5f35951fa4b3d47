public import Tender

/// Stands in for the POS apps: give it a request URL, get what the app shows and the callback URL it opens.
///
/// ```swift
/// var simulator = Simulator(profile: .default, seed: 42)
/// let answer = try simulator.answer(requestURL, with: .approve(tender: nil))
/// let callback = answer.callbackURL   // what your app receives, exactly as the real POS app builds it
/// ```
///
/// Transaction IDs come from the seed, so the same seed and requests give the same callbacks.
public struct Simulator: Sendable {
    /// The merchant account and device every simulated app runs with.
    public var profile: MerchantProfile
    /// The source of deterministic transaction IDs.
    public var ids: SimulatedIDs

    /// Creates a simulator.
    public init(profile: MerchantProfile = .default, seed: UInt64 = 1) {
        self.profile = profile
        self.ids = SimulatedIDs(seed: seed)
    }

    /// The providers the simulator models.
    public static let providers: [PaymentProvider] = [.square]

    /// Reads a request URL as its POS app would.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not a request to a
    ///   POS app the simulator models.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        switch try provider(of: requestURL) {
        case .square: return try SquarePointOfSaleApp(profile: profile).inspect(requestURL)
        default: throw unsupported(requestURL)
        }
    }

    /// Answers a request URL with an outcome, as its POS app would.
    /// - Throws: ``SimulatorError`` when the URL is not a request or the outcome cannot happen.
    public mutating func answer(_ requestURL: String, with outcome: SimulatedOutcome) throws -> SimulatedAnswer {
        switch try provider(of: requestURL) {
        case .square: return try SquarePointOfSaleApp(profile: profile).answer(requestURL, with: outcome, ids: &ids)
        default: throw unsupported(requestURL)
        }
    }

    private func provider(of requestURL: String) throws -> PaymentProvider {
        guard let kind = PaymentURLKind.detect(requestURL), kind.direction == .request else {
            throw SimulatorError(
                .notARequest,
                "This is not a request to a POS app: it must start with square-commerce-v1://, com-appninjas-iswipe://, softpos:// or sumupmerchant://."
            )
        }
        return kind.provider
    }

    private func unsupported(_ requestURL: String) -> SimulatorError {
        SimulatorError(.notARequest, "The simulator does not model this POS app yet.")
    }
}
