public import Tender

/// A model of one POS app: it reads a request URL as the app does and answers as the app would.
///
/// ``Simulator`` picks the model for a request's scheme; use a model directly to look at one app's rules.
/// Each model documents the order in which it checks a request: the first problem found decides the answer.
public protocol SimulatedPOSApp: Sendable {
    /// The POS app this models.
    static var provider: PaymentProvider { get }
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
    /// The app's name, for people: its `POSApp.name`, such as `Square Point of Sale`.
    public static var appName: String { provider.posApp?.name ?? provider.rawValue }

    /// The ``SimulatorError/Code/impossibleOutcome`` for approving with a tender other than a card, for the apps
    /// that take cards only.
    static func cardOnly(_ tender: String?) throws {
        guard let tender, tender != "card" else { return }
        throw SimulatorError(
            .impossibleOutcome,
            "\(appName) takes cards only; approve with the tender 'card' (or none), not '\(tender)'."
        )
    }

    /// Reads a request URL as a card-only app does (Swipe, SoftPOS, SumUp), the first step of its model.
    ///
    /// A URL for another app is ``SimulatorError/Code/notARequest``. A request `decode` refuses is the app's one
    /// problem, with the decoder's code and message: the app answers it on the callback URL `fallback` still finds
    /// in the query (setting ``SimulatedRequest/callbackURL``), and without one it refuses the request without
    /// calling back.
    func read<Request>(
        _ requestURL: String,
        decode: (String) throws -> Request,
        fallback: (LenientQuery, inout SimulatedRequest) -> Void = { _, _ in }
    ) throws -> (view: SimulatedRequest, request: Request?) {
        guard let scheme = try? URLParts(requestURL).scheme, POSApp(urlScheme: scheme)?.provider == Self.provider else {
            let expected = Self.provider.appURLScheme.map { "\($0)://" } ?? "its own scheme"
            throw SimulatorError(.notARequest, "This is not a \(Self.appName) request: it must start with \(expected).")
        }
        var view = SimulatedRequest(provider: Self.provider, allowedTenders: ["card"])
        do {
            return (view, try decode(requestURL))
        } catch {
            fallback(LenientQuery(requestURL), &view)
            let refusal = error as? any TenderError
            let answers = view.callbackURL != nil
            let message = refusal?.message ?? "\(error)"
            view.problems = [
                SimulatorProblem(
                    code: refusal.map { "\($0.code)" } ?? "invalid_request",
                    message: answers
                        ? message
                        : message + " \(Self.appName) finds no URL to answer on, so it stays on its own screen.",
                    consequence: answers ? .answersWithError : .refusesWithoutCallback
                )
            ]
            return (view, nil)
        }
    }

    /// How a card-only app's answer ends: a request refused without callback, or one with no URL to answer on
    /// (`no_<what>`), gets no callback; otherwise the callback URL `callback` writes on `callbackURL`, or no callback
    /// when the app cannot open it (`invalid_<what>`).
    /// - Parameters:
    ///   - name: the request's name for the URL, such as `returnURL`.
    ///   - what: the URL in the problem's code, such as `return_url`.
    func answer(
        _ view: SimulatedRequest,
        on callbackURL: String?,
        named name: String,
        code what: String,
        _ callback: (String) throws -> String
    ) -> SimulatedAnswer {
        if let problem = view.blockingProblem, problem.consequence == .refusesWithoutCallback {
            return .noCallback(problem)
        }
        guard let callbackURL else {
            return .noCallback(
                SimulatorProblem(
                    code: "no_\(what)",
                    message:
                        "The request has no \(name), so \(Self.appName) stays on its own screen and does not come back.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
        do {
            return .callback(try callback(callbackURL))
        } catch {
            return .noCallback(
                SimulatorProblem(
                    code: "invalid_\(what)",
                    message: "The \(name) is not a URL \(Self.appName) can open.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
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
