/// Base64url without padding (RFC 4648 §5), as PKCE (RFC 7636 Appendix A) and one-time values use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)  // four characters per three bytes, no padding
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let group = bytes[start..<min(start + 3, bytes.count)]
            var chunk: UInt32 = 0
            for (offset, byte) in group.enumerated() { chunk |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
            // One character per six bits the group holds: 2, 3 or 4 of them.
            for index in 0...group.count {
                output.append(alphabet[Int(chunk >> (18 - 6 * UInt32(index)) & 0x3F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `count` bytes from the system's CSPRNG (``SystemRandomBlocks``), base64url-encoded.
    package static func random(byteCount count: Int) -> String {
        encode(SystemRandomBlocks.bytes(count))
    }
}
