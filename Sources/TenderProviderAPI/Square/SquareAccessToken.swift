import Tender

/// A Square OAuth access token: a secret that never shows itself.
///
/// Printing, interpolating, `dump`ing or mirroring a token gives `SquareAccessToken(redacted)`, so a token
/// cannot slip into a log line, an error message or a crash report by accident (SEC-8). It is deliberately
/// not `Codable`: to persist one, use a ``SquareCredentialStore``, which keeps it in the Keychain or an
/// owner-only file (SEC-11). To hand the token to code that needs the text, call ``withSecret(_:)``.
///
/// ```swift
/// let token = SquareAccessToken(accessTokenFromYourServer)
/// print(token)            // SquareAccessToken(redacted)
/// ```
public struct SquareAccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let secret: String

    /// Wraps the token text, such as `EAAA…`.
    public init(_ secret: String) {
        self.secret = secret
    }

    /// Whether the token is empty (``SquareAuthorizationError/Code/emptyAccessToken``).
    public var isEmpty: Bool { secret.isEmpty }

    /// Calls `body` with the token text. Keep the text inside the closure: never log or store it.
    public func withSecret<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(secret)
    }

    /// `SquareAccessToken(redacted)`.
    public var description: String { "SquareAccessToken(redacted)" }
    /// `SquareAccessToken(redacted)`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
