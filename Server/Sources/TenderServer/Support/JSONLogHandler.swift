import Foundation
public import Logging
import TenderSync

/// Log lines as JSON, one object a line on standard error, as log collectors read them (`serve --log-format json`):
/// `{"time": "2026-12-03T09:41:07.123Z", "level": "info", "label": "tender-server", "message": "sync", …}`, the
/// metadata's keys beside those four (a key that would take one of their names is written `metadata.KEY`). It writes
/// what the server logs and nothing else: the server's log lines name no token, key or body (SEC-8).
public struct JSONLogHandler: LogHandler {
    /// The logger's label.
    public let label: String
    /// The lowest level written.
    public var logLevel: Logger.Level = .info
    /// The logger's own metadata, beside each line's.
    public var metadata: Logger.Metadata = [:]
    private let write: @Sendable (String) -> Void

    /// A handler writing to standard error, one line each.
    public init(label: String) {
        self.init(label: label) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// A handler handing each line (without its newline) to `write`.
    public init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    /// The logger's metadata for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line.
    public func log(event: LogEvent) {
        var object: [String: JSONTree] = [
            "time": .string(Timestamp.text(Timestamp.milliseconds(Date()))),
            "level": .string(event.level.rawValue),
            "label": .string(label),
            "message": .string(event.message.description),
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[object[key] == nil ? key : "metadata." + key] = Self.tree(value)
        }
        write(JSONTree.object(object).text)
    }

    private static func tree(_ value: Logger.Metadata.Value) -> JSONTree {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(tree))
        case .dictionary(let members): .object(members.mapValues(tree))
        }
    }
}
