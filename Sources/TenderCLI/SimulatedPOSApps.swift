import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator

/// The POS apps of the demo: each request URL goes to the sandbox's simulated POS app with the next scripted answer
/// (which leaves what it approves on the sandbox's Square and SumUp stand-ins), and the callback URL it produces comes
/// back to the coordinator, as iOS would deliver it to the app.
final class SimulatedPOSApps: PaymentURLOpener, Sendable {
    private let sandbox: POSAppsSandbox
    private let state = Locked(State())

    /// What the apps remember between requests.
    private struct State {
        var answers: [Answer] = []
        weak var coordinator: HandoffCoordinator?
        var callback: String?
        var delivery: Task<CallbackDisposition?, Never>?
    }

    /// How the next request is answered.
    enum Answer: Sendable {
        /// The POS app answers with the outcome, and its callback reaches the app.
        case callback(SimulatedOutcome)
        /// The POS app answers with the outcome, but its callback never reaches the app.
        case unanswered(SimulatedOutcome)
        /// Another app that registered Point of Sale's scheme answers a Square request: approved, with the request's
        /// own token and an invented transaction ID.
        case forged(transactionID: String)
    }

    init(sandbox: POSAppsSandbox) {
        self.sandbox = sandbox
    }

    var coordinator: HandoffCoordinator? {
        get { state.withLock { $0.coordinator } }
        set { state.withLock { $0.coordinator = newValue } }
    }

    /// The callback URL of the last request.
    var lastCallback: String? { state.withLock { $0.callback } }
    /// What the coordinator made of the last callback, once it has handled it.
    var lastDisposition: CallbackDisposition? {
        get async { await state.withLock { $0.delivery }?.value }
    }

    /// The outcome the next request is answered with, its callback delivered.
    func script(_ outcome: SimulatedOutcome) {
        script(.callback(outcome))
    }

    /// How the next request is answered.
    func script(_ answer: Answer) {
        state.withLock { $0.answers.append(answer) }
    }

    func open(_ url: URL) async -> Bool {
        let next: Answer? = state.withLock { state in
            state.callback = nil
            state.delivery = nil
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        let callback: String?
        switch next {
        case nil:
            return false
        case .callback(let outcome), .unanswered(let outcome):
            guard let answer = try? await sandbox.simulate(url.absoluteString, outcome: outcome) else { return false }
            guard case .callback(let url) = answer, case .callback = next else { return true }
            callback = url
        case .forged(let transactionID):
            guard let request = try? SquareRequest(url: url),
                let forged = try? SquareResponse(transactionID: transactionID, state: request.state)
                    .callbackURLString(callbackURL: request.wireCallbackURL())
            else { return false }
            callback = forged
        }
        guard let callback else { return true }  // the app stays on its own screen
        // The app is brought back by the callback URL a moment after the POS app was opened.
        let coordinator = self.coordinator
        let handling = Task { (try? await coordinator?.handle(callback))?.disposition }
        state.withLock { state in
            state.callback = callback
            state.delivery = handling
        }
        return true
    }
}
