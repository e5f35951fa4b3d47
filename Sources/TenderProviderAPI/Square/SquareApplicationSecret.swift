import Tender

/// A Square application secret (`sq0csp-…`), for server-side Swift only: it must never ship in an app.
///
/// Printing, interpolating, `dump`ing or mirroring a secret gives `SquareApplicationSecret(redacted)`, so a secret
/// cannot slip into a log line, an error message or a crash report by accident (SEC-8). It is deliberately
/// not `Codable`: to persist it, use your server's secret manager.
/// To hand the secret to code that needs the text, call ``withSecret(_:)``.
///
/// ```swift
/// let secret = SquareApplicationSecret(environment["SQUARE_APPLICATION_SECRET"] ?? "")
/// print(secret)           // SquareApplicationSecret(redacted)
/// ```
public struct SquareApplicationSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let secret: String

    /// Wraps the secret text, from the Developer Dashboard.
    public init(_ secret: String) {
        self.secret = secret
    }

    /// Whether the secret is empty.
    public var isEmpty: Bool { secret.isEmpty }

    /// Calls `body` with the secret text. Keep the text inside the closure: never log or store it.
    public func withSecret<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(secret)
    }

    /// `SquareApplicationSecret(redacted)`.
    public var description: String { "SquareApplicationSecret(redacted)" }
    /// `SquareApplicationSecret(redacted)`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
