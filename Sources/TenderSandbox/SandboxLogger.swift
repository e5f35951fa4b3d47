import FlyingSocks
import Logging
import Tender

/// Forwards FlyingFox's warnings and errors to the sandbox's log. Its info lines (connections, requests) are
/// dropped: the sandbox logs each request with its answer itself.
struct SandboxLogger: FlyingSocks.Logging {
    let logger: Logger
    /// Set while the server stops: FlyingFox then reports the closed listening socket as an error.
    let isStopping: Locked<Bool>

    private func forward(_ level: Logger.Level, _ line: String) {
        guard !isStopping.withLock({ $0 }) else { return }
        logger.sandboxEvent("http", "\(level)", line, level: level)
    }

    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) { forward(.warning, "warning: " + warning()) }
    func logError(_ error: @autoclosure () -> String) { forward(.error, "error: " + error()) }
    func logCritical(_ critical: @autoclosure () -> String) { forward(.critical, "critical: " + critical()) }
}
