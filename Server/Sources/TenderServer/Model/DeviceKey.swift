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

    /// The fewest bits of entropy a chosen token may have (``weakness(of:)``).
    public static let minimumBits = 128

    /// A token from its text.
    public init(_ token: String) {
        digest = Array(SHA256.hash(data: Data(token.utf8)))
    }

    /// A new random token's text (`top_` and 43 base64url characters).
    public static func generate() -> String {
        "top_" + DeviceKey.randomBase64URL(byteCount: 32)
    }

    /// Why `token` is too weak to guard the ledger, or `nil`: a token is counted as its length times the bits of
    /// the alphabet its kinds of character span (lowercase letters 26, uppercase 26, digits 10, anything else 33),
    /// which overestimates a chosen word; under ``minimumBits`` it is refused. A generated token has 256 bits.
    public static func weakness(of token: String) -> String? {
        var pool = 0
        let scalars = token.unicodeScalars
        if scalars.contains(where: { ("a"..."z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { pool += 10 }
        if scalars.contains(where: {
            !("a"..."z").contains($0) && !("A"..."Z").contains($0) && !("0"..."9").contains($0)
        }) {
            pool += 33
        }
        let bits = pool > 1 ? Double(scalars.count) * log2(Double(pool)) : 0
        guard bits < Double(minimumBits) else { return nil }
        return
            "TENDER_OPERATOR_TOKEN has about \(Int(bits)) bits of entropy, under \(minimumBits): anyone who guesses it "
            + "reads the fleet's payments and manages its devices. Unset it to have a random one made, or choose at least 22 random "
            + "letters and digits."
    }

    /// Whether `candidate` is the token (its digest compared in constant time).
    func matches(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(SHA256.hash(data: Data(candidate.utf8))), digest)
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
