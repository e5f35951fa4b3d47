import Foundation
import Logging
import Tender
import TenderProviderAPI
import Testing

/// Everything a test printed, logged or described: sandbox and manager logs, error descriptions and
/// messages, dumps. At the end, no secret may appear in any of it (SEC-8).
final class OutputCapture: Sendable {
    private let lines = Locked([String]())

    /// A log sink for the sandbox and the manager.
    var log: @Sendable (String) -> Void { { line in self.record(line) } }

    /// A swift-log logger whose every record, at every level, is captured: its message as one line, and its metadata,
    /// if any, as a second line `metadata: key=value …` (so that the secret search sees it).
    var logger: Logger {
        var logger = Logger(label: "capture") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// Records every way an error can be shown: description, debug description, dump, localized description.
    func record(error: any Error) {
        record(String(describing: error))
        record(String(reflecting: error))
        record(error.localizedDescription)
        var dumped = ""
        dump(error, to: &dumped)
        record(dumped)
        if let error = error as? SquareAuthorizationError {
            record(error.message)
            record(error.code.rawValue)
        }
    }

    /// Records a value's description, debug description and dump.
    func record(value: Any) {
        record(String(describing: value))
        record(String(reflecting: value))
        var dumped = ""
        dump(value, to: &dumped)
        record(dumped)
    }

    var all: [String] { lines.withLock { $0 } }

    /// Expects that no secret appears anywhere in what was captured.
    func expectNoSecrets(_ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let captured = all
        for secret in secrets where !secret.isEmpty {
            let leaks = captured.filter { $0.contains(secret) }
            #expect(
                leaks.isEmpty,
                "a secret appeared in \(leaks.count) captured line(s)",
                sourceLocation: sourceLocation
            )
        }
    }
}

/// Writes each log record to an ``OutputCapture``: its message as a line, and its metadata as `metadata: key=value …`.
struct CapturingLogHandler: LogHandler {
    let capture: OutputCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.record(event.message.description)
        guard !all.isEmpty else { return }
        capture.record(
            "metadata: " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        )
    }
}
