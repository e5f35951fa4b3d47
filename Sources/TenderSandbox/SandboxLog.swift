public import Logging

/// The sandbox's logging: one swift-log record for each event, its message a line for people and its metadata the
/// event's fields.
public enum SandboxLog: Sendable {
    /// A logger that logs nothing: what the sandbox uses unless it is given one.
    public static let silent = Logger(label: "tender.sandbox", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension Logger {
    /// Logs a sandbox event: `line` for people, `event` and `fields` as metadata, with the component (`pos`,
    /// `square`, `sumup`, `sandbox`, `http`) as both the line's prefix and a field.
    func sandboxEvent(
        _ component: String,
        _ event: String,
        _ line: String,
        level: Logger.Level = .info,
        _ fields: Logger.Metadata = [:]
    ) {
        var metadata = fields
        metadata["component"] = "\(component)"
        metadata["event"] = "\(event)"
        log(level: level, "\(component): \(line)", metadata: metadata)
    }
}
