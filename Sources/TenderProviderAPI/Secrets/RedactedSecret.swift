/// A secret that never shows itself: an access token, a refresh token or an application secret.
///
/// Printing, interpolating, `dump`ing or mirroring one gives its type's name and `(redacted)`, such as
/// `SquareAccessToken(redacted)`, so a secret cannot slip into a log line, an error message, a verification's
/// evidence or a crash report by accident (SEC-8). It is deliberately not `Codable`: to persist a Square token,
/// use a ``SquareCredentialStore``, which keeps it in the Keychain or an owner-only file (SEC-11). To hand the
/// text to code that needs it, call ``withSecret(_:)``.
///
/// Each kind of secret is its own type (``SquareAccessToken``, ``SquareRefreshToken``,
/// ``SquareApplicationSecret``, ``SumUpAccessToken``): one cannot be passed where another is expected.
///
/// ```swift
/// let token = SquareAccessToken(accessTokenFromYourServer)
/// print(token)            // SquareAccessToken(redacted)
/// ```
public struct RedactedSecret<Kind: SecretKind>: Sendable, Hashable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    private let secret: String

    /// Wraps the secret's text, such as `EAAA…`.
    public init(_ secret: String) {
        self.secret = secret
    }

    /// Whether the secret is empty (for an access token: ``SquareAuthorizationError/Code/emptyAccessToken``).
    public var isEmpty: Bool { secret.isEmpty }

    /// Calls `body` with the secret's text. Keep the text inside the closure: never log or store it.
    public func withSecret<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(secret)
    }

    /// The kind's name and `(redacted)`, such as `SquareAccessToken(redacted)`.
    public var description: String { "\(Kind.name)(redacted)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// What a ``RedactedSecret`` holds: its name, shown in place of the secret.
public protocol SecretKind: Sendable {
    /// The name printed for the secret, such as `SquareAccessToken`.
    static var name: String { get }
}

/// A Square OAuth access token (``RedactedSecret``): it prints as `SquareAccessToken(redacted)`.
public typealias SquareAccessToken = RedactedSecret<SquareAccessTokenKind>
/// A Square OAuth refresh token (``RedactedSecret``), as ObtainToken returned it: it prints as
/// `SquareRefreshToken(redacted)`.
public typealias SquareRefreshToken = RedactedSecret<SquareRefreshTokenKind>
/// A Square application secret (`sq0csp-…`, ``RedactedSecret``), for server-side Swift only: it must never ship in
/// an app. It prints as `SquareApplicationSecret(redacted)`.
public typealias SquareApplicationSecret = RedactedSecret<SquareApplicationSecretKind>
/// A SumUp access token (an OAuth token or an API key, ``RedactedSecret``): it prints as
/// `SumUpAccessToken(redacted)`.
public typealias SumUpAccessToken = RedactedSecret<SumUpAccessTokenKind>

/// The kind of ``SquareAccessToken``.
public enum SquareAccessTokenKind: SecretKind {
    /// `SquareAccessToken`.
    public static var name: String { "SquareAccessToken" }
}

/// The kind of ``SquareRefreshToken``.
public enum SquareRefreshTokenKind: SecretKind {
    /// `SquareRefreshToken`.
    public static var name: String { "SquareRefreshToken" }
}

/// The kind of ``SquareApplicationSecret``.
public enum SquareApplicationSecretKind: SecretKind {
    /// `SquareApplicationSecret`.
    public static var name: String { "SquareApplicationSecret" }
}

/// The kind of ``SumUpAccessToken``.
public enum SumUpAccessTokenKind: SecretKind {
    /// `SumUpAccessToken`.
    public static var name: String { "SumUpAccessToken" }
}
