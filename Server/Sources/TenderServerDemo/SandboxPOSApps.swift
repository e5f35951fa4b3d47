public import Foundation
public import TenderHandoff
public import TenderSandbox
public import TenderSimulator

/// The POS apps of a simulated device: each request URL goes to the sandbox's simulated POS app with the next
/// scripted answer (which leaves what it approves on the sandbox's Square and SumUp stand-ins, as the real apps leave
/// it on the providers' servers), and the callback URL it produces comes back to the device's coordinator, as iOS
/// would deliver it to the app — or never does.
public final class SandboxPOSApps: PaymentURLOpener, @unchecked Sendable {
    // @unchecked: `state` is read and changed only while holding `lock`.
    /// How the next request is answered.
    public enum Answer: Sendable {
        /// The POS app answers with the outcome, and its callback reaches the app.
        case callback(SimulatedOutcome)
        /// The POS app answers with the outcome, but its callback never reaches the app (the device was killed,
        /// the app switch failed): the payment ends unknown.
        case unanswered(SimulatedOutcome)
        /// Another app that registered the POS app's scheme answers "approved" with the request's own token and a
        /// transaction ID of its choosing; nothing was paid.
        case forged(transactionID: String)
    }

    private let sandbox: POSAppsSandbox
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var answers: [Answer] = []
        var coordinator: HandoffCoordinator?
    }

    /// POS apps answering through `sandbox`.
    public init(sandbox: POSAppsSandbox) {
        self.sandbox = sandbox
    }

    /// The coordinator the callbacks go back to.
    public var coordinator: HandoffCoordinator? {
        get { lock.withLock { state.coordinator } }
        set { lock.withLock { state.coordinator = newValue } }
    }

    /// Scripts the answer to the next request.
    public func script(_ answer: Answer) {
        lock.withLock { state.answers.append(answer) }
    }

    /// Answers `url` as scripted: `false` (not opened) when nothing is scripted or the sandbox refuses the request.
    public func open(_ url: URL) async -> Bool {
        let next: Answer? = lock.withLock { state.answers.isEmpty ? nil : state.answers.removeFirst() }
        let callback: String
        switch next {
        case nil:
            return false
        case .callback(let outcome), .unanswered(let outcome):
            guard let answer = try? await sandbox.simulate(url.absoluteString, outcome: outcome) else { return false }
            guard case .callback(let url) = answer, case .callback = next else { return true }
            callback = url
        case .forged(let transactionID):
            // The genuine app's approval, read and answered by another app: the same callback, another transaction.
            guard let forged = Self.squareApproval(to: url, transactionID: transactionID) else { return false }
            callback = forged
        }
        let coordinator = self.coordinator
        // The app is brought back by the callback URL a moment after the POS app was opened.
        Task { _ = try? await coordinator?.handle(callback) }
        return true
    }

    /// A Square Point of Sale callback that says "approved" to the request `url`, with its own `state` (the one-time
    /// token) and `transactionID`, on the callback URL exactly as the request carries it: what an app that hijacked
    /// Point of Sale's scheme can send. `nil` for a URL that is not a Square request.
    static func squareApproval(to url: URL, transactionID: String) -> String? {
        guard
            let request = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first(where: { $0.name == "data" })?.value,
            let object = try? JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any],
            let callback = object["callback_url"] as? String, let state = object["state"] as? String
        else { return nil }
        let data: [String: String] = [
            "status": "ok", "transaction_id": transactionID, "client_transaction_id": UUID().uuidString,
            "state": state,
        ]
        guard let json = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]),
            var components = URLComponents(string: callback)
        else { return nil }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "data", value: String(decoding: json, as: UTF8.self))
            ]
        return components.url?.absoluteString
    }
}
