/// A one-time hand-off token (SEC-1): 32 bytes from the system's CSPRNG, written in base64url without
/// padding (43 characters, URL-safe), so it passes unchanged through every provider's echo field.
///
/// Only the token's SHA-256 is ever stored (``digest``); the token itself lives in the request URL and in
/// memory for as long as the hand-off is being prepared. A token has no `description` of its own that shows it.
struct OneTimeToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as it goes on the wire.
    let value: String

    /// A fresh token from `SystemRandomNumberGenerator` (arc4random_buf on Apple platforms, getrandom(2) on Linux).
    static func generate() -> OneTimeToken {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A token from a given generator; tests use it to show the encoding, production always uses the system's.
    static func generate(using generator: inout some RandomNumberGenerator) -> OneTimeToken {
        var bytes = [UInt8]()
        bytes.reserveCapacity(byteCount)
        while bytes.count < byteCount {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where bytes.count < byteCount {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return OneTimeToken(value: base64URL(bytes))
    }

    /// The number of random bytes: 256 bits, twice the 128 SEC-1 asks for.
    static let byteCount = 32

    /// The SHA-256 of the token's UTF-8 text: what the journal stores and matches on.
    var digest: [UInt8] { OneTimeToken.digest(of: value) }

    /// The SHA-256 of a token received in a callback.
    static func digest(of token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }

    /// Never the token.
    var description: String { "OneTimeToken(redacted)" }

    /// RFC 4648 §5 base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output = [UInt8]()
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let chunk = UInt32(bytes[index]) << 16
            for shift in [18, 12] { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
        } else if rest == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            for shift in [18, 12, 6] { output.append(alphabet[Int(chunk >> UInt32(shift) & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
