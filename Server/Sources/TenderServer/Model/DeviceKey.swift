import Crypto
import Foundation

/// A device's key: 256 random bits from the system's CSPRNG, written as 43 base64url characters after `tdk_`.
///
/// `tender-server devices add` prints it once; the server keeps only its SHA-256 (``digest(of:)``), so a copy of the
/// database lets no one sync as a device.
public enum DeviceKey: Sendable {
    /// A new key.
    public static func generate() -> String {
        "tdk_" + randomBase64URL(byteCount: 32)
    }

    /// The hex SHA-256 of a key's text: what the ledger stores and looks keys up by.
    public static func digest(of key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// `count` bytes from the system's CSPRNG (`SystemRandomNumberGenerator`: `getrandom` on Linux,
    /// `arc4random_buf` on Apple systems) in base64url without padding.
    static func randomBase64URL(byteCount count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The operator's token: from `TENDER_OPERATOR_TOKEN`, or made by `serve` (256 random bits) and printed once.
public struct OperatorToken: Sendable {
    /// The token's SHA-256, compared in constant time.
    let digest: [UInt8]
    /// What the login cookie holds: a SHA-256 of the token under its own label, so the cookie is not the token.
    let cookieValue: String

    /// A token from its text.
    public init(_ token: String) {
        digest = Array(SHA256.hash(data: Data(token.utf8)))
        cookieValue = SHA256.hash(data: Data(("tender-server operator session\n" + token).utf8))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// A new random token's text (`top_` and 43 base64url characters).
    public static func generate() -> String {
        "top_" + DeviceKey.randomBase64URL(byteCount: 32)
    }

    /// Whether `candidate` is the token (its digest compared in constant time).
    func matches(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(SHA256.hash(data: Data(candidate.utf8))), digest)
    }

    /// Whether a cookie's value is the operator's session.
    func matchesCookie(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(candidate.utf8), Array(cookieValue.utf8))
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
