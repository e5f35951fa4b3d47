public import Foundation
public import TenderHandoff
public import TenderSandbox

/// The POS apps of a simulated device: each request URL goes to the sandbox's simulated POS app with the next
/// scripted answer (which leaves what it approves on the sandbox's Square and SumUp stand-ins, as the real apps leave
/// it on the providers' servers), and the callback URL it produces comes back to the device's coordinator, as iOS
/// would deliver it to the app — or never does.
public final class SandboxPOSApps: PaymentURLOpener, @unchecked Sendable {
    // @unchecked: `state` is read and changed only while holding `lock`.
    /// How the next request is answered.
    public typealias Answer = POSAppsSandbox.ScriptedAnswer

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
        guard let next else { return false }
        guard case .opened(let callback) = await sandbox.answer(url, with: next) else { return false }
        guard let callback else { return true }
        let coordinator = self.coordinator
        // The app is brought back by the callback URL a moment after the POS app was opened.
        Task { _ = try? await coordinator?.handle(callback) }
        return true
    }
}
