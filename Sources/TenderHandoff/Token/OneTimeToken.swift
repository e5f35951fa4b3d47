import Tender

/// A one-time hand-off token (SEC-1): 32 bytes from the system's CSPRNG, written in base64url without
/// padding (43 characters, URL-safe), so it passes unchanged through every provider's echo field.
///
/// Only the token's SHA-256 is ever stored (``digest``); the token itself lives in the request URL and in
/// memory for as long as the hand-off is being prepared. A token has no `description` of its own that shows it.
struct OneTimeToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as it goes on the wire.
    let value: String

    /// A fresh token from the system's CSPRNG (arc4random_buf on Apple platforms, getrandom(2) on Linux), in one
    /// request.
    static func generate() -> OneTimeToken {
        var generator = SystemRandomBlocks()
        return generate(using: &generator)
    }

    /// A token from a given generator; tests use it to show the encoding, production always uses the system's.
    static func generate(using generator: inout some RandomNumberGenerator) -> OneTimeToken {
        // Four words, each written least significant byte first.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        for _ in 0..<(byteCount / 8) {
            let word: UInt64 = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return OneTimeToken(value: Base64URL.encode(bytes))
    }

    /// The number of random bytes: 256 bits, twice the 128 SEC-1 asks for.
    static let byteCount = 32

    /// The SHA-256 of the token's UTF-8 text: what the journal stores and matches on.
    var digest: [UInt8] { OneTimeToken.digest(of: value) }

    /// The SHA-256 of a token received in a callback.
    static func digest(of token: String) -> [UInt8] { SHA256.hash(token) }

    /// Never the token.
    var description: String { "OneTimeToken(redacted)" }
}
