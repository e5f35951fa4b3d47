import Tender

/// A PKCE code verifier (RFC 7636 §4.1): the secret a sign-in keeps on the device and shows Square only when
/// it exchanges the authorization code, proving it started the sign-in. It never shows itself.
///
/// ``init()`` draws 32 bytes from the system's CSPRNG and base64url-encodes them: 43 characters, 256 bits.
/// The authorization URL carries only its ``codeChallenge``, `BASE64URL(SHA256(verifier))` (method S256).
public struct SquareCodeVerifier: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let secret: String

    /// A new random verifier: 32 bytes from `SystemRandomNumberGenerator`, base64url without padding.
    public init() {
        secret = Base64URL.random(byteCount: 32)
    }

    /// A verifier from its text.
    /// - Throws: ``SquareAuthorizationError`` with ``SquareAuthorizationError/Code/invalidCodeVerifier`` unless
    ///   the text is 43 to 128 characters from `A–Z a–z 0–9 - . _ ~` (RFC 7636 §4.1).
    public init(_ text: String) throws(SquareAuthorizationError) {
        guard Self.isValid(text) else {
            throw SquareAuthorizationError(
                .invalidCodeVerifier,
                "A PKCE code verifier must be 43 to 128 characters from A-Z, a-z, 0-9, '-', '.', '_' and '~' "
                    + "(RFC 7636 §4.1); use SquareCodeVerifier() for a random one."
            )
        }
        secret = text
    }

    /// The S256 code challenge: `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2).
    public var codeChallenge: String {
        Self.challenge(for: secret)
    }

    /// Calls `body` with the verifier text. Keep the text inside the closure: never log or store it.
    public func withSecret<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(secret)
    }

    /// `SquareCodeVerifier(redacted)`.
    public var description: String { "SquareCodeVerifier(redacted)" }
    /// `SquareCodeVerifier(redacted)`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection show nothing of the secret.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// The S256 challenge of a verifier's text.
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier.utf8))
    }

    /// Whether text is a well-formed verifier: 43–128 unreserved characters.
    package static func isValid(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy(PercentEncoding.isUnreserved)
    }
}
