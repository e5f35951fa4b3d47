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

    /// The model of each POS app, in `PaymentProvider.all` order.
    public static let apps: [any SimulatedPOSApp.Type] = [
        SquarePointOfSaleApp.self, SwipeApp.self, SoftPOSApp.self, SumUpApp.self,
    ]

    /// The providers the simulator models: every one Tender ships with.
    public static var providers: [PaymentProvider] { apps.map { $0.provider } }

    /// The model of a provider's POS app, or `nil` for a provider the simulator does not model.
    public static func app(for provider: PaymentProvider) -> (any SimulatedPOSApp.Type)? {
        apps.first { $0.provider == provider }
    }

    /// Reads a request URL as its POS app would.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not a request to a
    ///   POS app the simulator models.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        try app(for: requestURL).inspect(requestURL)
    }

    /// Answers a request URL with an outcome, as its POS app would.
    /// - Throws: ``SimulatorError`` when the URL is not a request or the outcome cannot happen.
    public mutating func answer(_ requestURL: String, with outcome: SimulatedOutcome) throws -> SimulatedAnswer {
        try app(for: requestURL).answer(requestURL, with: outcome, ids: &ids)
    }

    private func app(for requestURL: String) throws -> any SimulatedPOSApp {
        let provider = try provider(of: requestURL)
        guard let type = Simulator.app(for: provider) else { throw unsupported(requestURL) }
        return type.init(profile: profile)
    }

    private func provider(of requestURL: String) throws -> PaymentProvider {
        guard let kind = PaymentURLKind.detect(requestURL), kind.direction == .request else {
            throw SimulatorError(
                .notARequest,
                "This is not a request to a POS app: it must start with \(POSApp.schemeList)."
            )
        }
        return kind.provider
    }

    private func unsupported(_ requestURL: String) -> SimulatorError {
        SimulatorError(.notARequest, "The simulator does not model this POS app yet.")
    }
}
