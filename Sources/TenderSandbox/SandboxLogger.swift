import FlyingSocks
import Tender

/// Forwards FlyingFox's warnings and errors to the sandbox's log. Its info lines (connections, requests) are
/// dropped: the sandbox logs each request with its answer itself.
struct SandboxLogger: Logging {
    let log: (@Sendable (String) -> Void)?
    /// Set while the server stops: FlyingFox then reports the closed listening socket as an error.
    let isStopping: Locked<Bool>

    private func forward(_ line: String) {
        guard !isStopping.withLock({ $0 }) else { return }
        log?(line)
    }

    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) { forward("http warning: " + warning()) }
    func logError(_ error: @autoclosure () -> String) { forward("http error: " + error()) }
    func logCritical(_ critical: @autoclosure () -> String) { forward("http critical: " + critical()) }
}
