public import Foundation
import Tender
public import TenderSimulator

extension POSAppsSandbox {
    /// How a scripted POS app answers a request: what a demo's or a test's opener (a `PaymentURLOpener` that stands in
    /// for iOS opening the POS app) does with each request URL it is handed.
    public enum ScriptedAnswer: Sendable, Hashable {
        /// The POS app answers with the outcome, and its callback reaches the app.
        case callback(SimulatedOutcome)
        /// The POS app answers with the outcome (recorded on the sandbox's provider stand-ins), but its callback never
        /// reaches the app (the device was killed, the app switch failed): the payment ends unknown.
        case unanswered(SimulatedOutcome)
        /// Another app that registered Point of Sale's scheme answers a Square request "approved", with the request's
        /// own one-time token and a transaction ID of its choosing; nothing was paid.
        case forged(transactionID: String)
    }

    /// What became of a request answered with ``answer(_:with:)``.
    public enum ScriptedDelivery: Sendable, Hashable {
        /// The POS app did not open: the URL is not a request this sandbox answers, or the outcome cannot happen
        /// (a forgery of what is not a Square request).
        case notOpened
        /// The POS app opened, and the app gets this callback URL back (`nil`: it never does).
        case opened(callback: String?)
    }

    /// Answers a request URL as `answer` scripts it: the simulated POS app's answer (``simulate(_:outcome:)``), or a
    /// forger's. The caller delivers the callback to the app, if there is one.
    public func answer(_ url: URL, with answer: ScriptedAnswer) async -> ScriptedDelivery {
        switch answer {
        case .callback(let outcome), .unanswered(let outcome):
            guard let simulated = try? await simulate(url.absoluteString, outcome: outcome) else { return .notOpened }
            guard case .callback(let callback) = simulated, case .callback = answer else {
                return .opened(callback: nil)
            }
            return .opened(callback: callback)
        case .forged(let transactionID):
            // The genuine app's approval, read and answered by another app: the same callback, another transaction.
            guard let request = try? SquareRequest(url: url),
                let forged = try? SquareResponse(transactionID: transactionID, state: request.state)
                    .callbackURLString(callbackURL: request.wireCallbackURL())
            else { return .notOpened }
            return .opened(callback: forged)
        }
    }
}
