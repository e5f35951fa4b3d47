import Tender

/// A Square OAuth authorization code, as the sign-in redirect carries it: short-lived, single-use, and
/// secret until exchanged. It never shows itself.
///
/// ``SquareSignIn/authorizationCode(from:)`` reads one from a redirect; ``SquareConnectClient`` exchanges it
/// with ObtainToken.
public struct SquareAuthorizationCode: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let secret: String

    /// Wraps the code text, such as `sq0cgb-…`.
    public init(_ secret: String) {
        self.secret = secret
    }

    /// Calls `body` with the code text. Keep the text inside the closure: never log or store it.
    public func withSecret<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(secret)
    }

    /// `SquareAuthorizationCode(redacted)`.
    public var description: String { "SquareAuthorizationCode(redacted)" }
    /// `SquareAuthorizationCode(redacted)`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
