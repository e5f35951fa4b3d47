/// Percent-encoding as every supported POS app expects it, and strict percent-decoding.
///
/// Encoding leaves only the RFC 3986 *unreserved* characters (`A–Z a–z 0–9 - . _ ~`) as they are and
/// writes every other UTF-8 byte as `%XX` with upper-case hex. A space becomes `%20`, never `+`;
/// `+` becomes `%2B`. This is what the Square SDK produces (its allowed set is
/// `URLQueryAllowedCharacterSet` minus `:/?#[]@!$&'()*+,;=`), and what Swipe, SoftPOS and SumUp need.
///
/// Decoding is strict: a `%` not followed by two hex digits, or bytes that are not valid UTF-8 once
/// decoded, are errors (Foundation passes `%ZZ` through unchanged). `+` stays `+`.
public enum PercentEncoding: Sendable {
    /// Percent-encodes text, keeping only the RFC 3986 unreserved characters.
    public static func encode(_ text: some StringProtocol) -> String {
        var text = String(text)
        return text.withUTF8 { bytes in
            let count = encodedCount(bytes)
            guard count > 0 else { return "" }
            return String(unsafeUninitializedCapacity: count) { encode(bytes, into: $0, at: 0) }
        }
    }

    /// How many bytes the percent-encoded form of `bytes` has: one per unreserved byte, three per other byte.
    static func encodedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let escaped = ByteWords.countMarked(in: bytes, from: 0, to: bytes.count) {
            ~ByteWords.unreservedLanes($0) & ByteWords.allLanes
        }
        return bytes.count + 2 * escaped
    }

    /// Writes the percent-encoded form of `bytes` into `buffer` from `offset`; returns the offset after it.
    ///
    /// Eight bytes are read at a time and stored as they are, in one store: the unreserved bytes they start with are
    /// kept, and the first other byte is then written over with its escape; the next word starts after it. The room
    /// left in `buffer` is checked before each store and each escape. The last few bytes go out as one word when
    /// they are all unreserved and the buffer has room for it, and otherwise one by one.
    /// When the buffer has room to spare, up to seven bytes after the returned offset may be written over (the last
    /// few bytes go out as one word); nothing outside `buffer` ever is.
    static func encode(
        _ bytes: UnsafeBufferPointer<UInt8>,
        into buffer: UnsafeMutableBufferPointer<UInt8>,
        at offset: Int
    ) -> Int {
        guard let input = bytes.baseAddress else { return offset }
        precondition(offset >= 0 && offset <= buffer.count, "PercentEncoding: the offset is outside the buffer")
        guard let output = buffer.baseAddress else {
            preconditionFailure("PercentEncoding: the buffer is shorter than the encoded text")
        }
        var (index, written) = (0, offset)
        while bytes.count - index >= 8 {
            // The word from `index` is stored whole; the unreserved bytes it starts with are kept, and the first
            // other byte, if any, is written over with its escape. The next word starts after it.
            precondition(buffer.count - written >= 8, "PercentEncoding: the buffer is shorter than the encoded text")
            let word = ByteWords.load(input + index)
            let run = ByteWords.leadingCount(ByteWords.unreservedLanes(word))
            ByteWords.store(word, at: output + written)
            written += run
            index += run
            guard run < 8 else { continue }
            precondition(buffer.count - written >= 3, "PercentEncoding: the buffer is shorter than the encoded text")
            writeEscape(input[index], at: output + written)
            written += 3
            index += 1
        }
        let left = bytes.count - index
        if left > 0, bytes.count >= 8, buffer.count - written >= 8 {
            // The last few, when they are all unreserved and the buffer has room for a word: the word that ends
            // with them, moved down so that they are its first lanes, in one store.
            let skipped = UInt64(8 - left) &* 8
            let tail = ByteWords.load(input + bytes.count - 8) >> skipped
            if ByteWords.leadingCount(ByteWords.unreservedLanes(tail)) >= left {
                ByteWords.store(tail, at: output + written)
                return written + left
            }
        }
        while index < bytes.count {
            let byte = input[index]
            if isUnreserved(byte) {
                precondition(written < buffer.count, "PercentEncoding: the buffer is shorter than the encoded text")
                output[written] = byte
                written += 1
            } else {
                precondition(
                    buffer.count - written >= 3,
                    "PercentEncoding: the buffer is shorter than the encoded text"
                )
                writeEscape(byte, at: output + written)
                written += 3
            }
            index += 1
        }
        return written
    }

    /// Writes `%XX` for a byte, upper-case hex, at `out`, which has room for three bytes.
    @inline(__always)
    static func writeEscape(_ byte: UInt8, at out: UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(ascii: "%")
        out[1] = hexDigit(byte >> 4)
        out[2] = hexDigit(byte & 0x0F)
    }

    /// The upper-case hex digit of a value below 16.
    @inline(__always)
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") - 10 + value
    }

    /// Decodes percent-escapes strictly.
    ///
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidPercentEscape`` when a `%` is not followed by
    ///   two hex digits, or ``QueryError/Code/invalidUTF8`` when the decoded bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol) throws -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return try decode(bytes: text.utf8)
    }

    /// Decodes bytes cut from a `String` at ASCII delimiters (so whole UTF-8 sequences) strictly; see
    /// ``decode(_:)``. Without a `%` they are the text as it is.
    static func decode(cut bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        return try decode(bytes: bytes)
    }

    /// Decodes percent-escapes in UTF-8 bytes strictly; see ``decode(_:)``.
    static func decode(bytes utf8: some Collection<UInt8>) throws -> String {
        guard utf8.contains(UInt8(ascii: "%")) else {
            // Nothing to decode: the bytes themselves, if they are UTF-8.
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw QueryError(.invalidUTF8, "The percent-decoded text is not valid UTF-8.")
            }
            return text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        var offset = 0
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw QueryError(
                        .invalidPercentEscape,
                        "Invalid percent-escape at offset \(offset): '%' must be followed by two hex digits."
                    )
                }
                bytes.append(high << 4 | low)
                offset += 3
            } else {
                bytes.append(byte)
                offset += 1
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw QueryError(.invalidUTF8, "The percent-decoded text is not valid UTF-8.")
        }
        return decoded
    }

    /// Whether a byte is in the RFC 3986 unreserved set.
    @inline(__always)
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        // One bit per ASCII byte: `-` 0x2D, `.` 0x2E and `0`–`9` 0x30–0x39 below 0x40; `A`–`Z` 0x41–0x5A, `_` 0x5F,
        // `a`–`z` 0x61–0x7A and `~` 0x7E from 0x40. A test checks this against the set, byte by byte.
        let low: UInt64 = 1 << 0x2D | 1 << 0x2E | 0x3FF << 0x30
        let high: UInt64 =
            0x3FF_FFFF << (0x41 - 0x40) | 1 << (0x5F - 0x40) | 0x3FF_FFFF << (0x61 - 0x40) | 1 << (0x7E - 0x40)
        switch byte {
        case 0..<0x40: return low >> UInt64(byte) & 1 == 1
        case 0x40..<0x80: return high >> UInt64(byte - 0x40) & 1 == 1
        default: return false
        }
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        let value = hexDigitValue(byte)
        return value < 16 ? value : nil
    }

    /// The value of a hex digit (either case), or 16 or more for any other byte: no branch on the letter's case.
    @inline(__always)
    static func hexDigitValue(_ byte: UInt8) -> UInt8 {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : 16
    }
}
