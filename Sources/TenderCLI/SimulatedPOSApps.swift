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
    typealias Answer = POSAppsSandbox.ScriptedAnswer

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
        guard let next else { return false }
        guard case .opened(let callback) = await sandbox.answer(url, with: next) else { return false }
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
