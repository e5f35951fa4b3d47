public import Tender

/// A model of one POS app: it reads a request URL as the app does and answers as the app would.
///
/// ``Simulator`` picks the model for a request's scheme; use a model directly to look at one app's rules.
/// Each model documents the order in which it checks a request: the first problem found decides the answer.
public protocol SimulatedPOSApp: Sendable {
    /// The POS app this models.
    static var provider: PaymentProvider { get }
    /// The app's name, for people: `Square Point of Sale`, `Swipe`, `SoftPOS`, `SumUp`.
    static var appName: String { get }
    /// The error codes the app answers with, for offering a choice (``SimulatedOutcome/error(_:)`` may accept
    /// others; each model says which).
    static var errorCodes: [String] { get }
    /// Whether the app reports a declined card (Square Point of Sale never does).
    static var reportsDeclines: Bool { get }

    /// The merchant account and device the app runs with.
    var profile: MerchantProfile { get }

    /// Creates the model.
    init(profile: MerchantProfile)

    /// Reads a request URL as the app would and lists what it shows and what is wrong.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not for this app.
    func inspect(_ requestURL: String) throws -> SimulatedRequest

    /// Answers a request with the chosen outcome: the callback URL the app opens, or no callback.
    ///
    /// A request with a problem is answered as the app answers that problem, whatever the outcome chosen: the
    /// real app refuses it before anyone can act.
    /// - Throws: ``SimulatorError`` when the URL is not for this app or the outcome cannot happen with it.
    func answer(
        _ requestURL: String,
        with outcome: SimulatedOutcome,
        ids: inout SimulatedIDs
    ) throws
        -> SimulatedAnswer
}

extension SimulatedPOSApp {
    /// The ``SimulatorError/Code/impossibleOutcome`` for approving with a tender other than a card, for the apps
    /// that take cards only.
    static func cardOnly(_ tender: String?) throws {
        guard let tender, tender != "card" else { return }
        throw SimulatorError(
            .impossibleOutcome,
            "\(appName) takes cards only; approve with the tender 'card' (or none), not '\(tender)'."
        )
    }
}

/// A request's query read leniently, for what an app can still show or answer on when strict reading fails.
struct LenientQuery {
    private let query: QueryParameters

    init(_ requestURL: String) {
        let parts = try? URLParts(requestURL)
        query = (try? QueryParameters(percentEncodedQuery: parts?.query ?? "")) ?? QueryParameters()
    }

    /// The value when exactly one parameter among `names` is present with a value.
    func single(_ names: String...) -> String? {
        let values = names.flatMap { query.values(named: $0) }
        guard values.count == 1 else { return nil }
        return values[0]
    }

    /// `single(names)` when it is a URL an app could open: it has a scheme and is not a POS app's.
    func callbackURL(_ names: String...) -> String? {
        let values = names.flatMap { query.values(named: $0) }
        guard values.count == 1, let url = values[0], CallbackURLRules.problem(with: url, named: "") == nil else {
            return nil
        }
        return url
    }
}
