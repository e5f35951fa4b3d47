/// Base64url without padding (RFC 4648 §5), as PKCE (RFC 7636 Appendix A) and one-time values use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    private static func encode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        let length = (bytes.count * 4 + 2) / 3  // four characters per three bytes, no padding
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: length) { output in
                var written = 0
                var index = 0
                while index < bytes.count {
                    let second = index + 1 < bytes.count ? bytes[index + 1] : nil
                    let third = index + 2 < bytes.count ? bytes[index + 2] : nil
                    let chunk = UInt32(bytes[index]) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
                    output[written] = alphabet[Int(chunk >> 18 & 0x3F)]
                    output[written + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                    written += 2
                    if second != nil {
                        output[written] = alphabet[Int(chunk >> 6 & 0x3F)]
                        written += 1
                    }
                    if third != nil {
                        output[written] = alphabet[Int(chunk & 0x3F)]
                        written += 1
                    }
                    index += 3
                }
                return written
            }
        }
    }

    /// `count` bytes from the system's CSPRNG (``SystemRandomBlocks``, one request), base64url-encoded.
    package static func random(byteCount count: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { SystemRandomBlocks.fill($0) }
        return encode(bytes)
    }
}
