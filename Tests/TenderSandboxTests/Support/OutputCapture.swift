import Foundation
import Tender
import TenderProviderAPI
import Testing

/// Everything a test printed, logged or described: sandbox and manager logs, error descriptions and
/// messages, dumps. At the end, no secret may appear in any of it (SEC-8).
final class OutputCapture: Sendable {
    private let lines = Locked([String]())

    /// A log sink for the sandbox and the manager.
    var log: @Sendable (String) -> Void { { line in self.record(line) } }

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
