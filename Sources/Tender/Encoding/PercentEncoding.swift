/// Percent-encoding as every supported POS app expects it, and strict percent-decoding.
///
/// Encoding leaves only the RFC 3986 *unreserved* characters (`A–Z a–z 0–9 - . _ ~`) as they are and
/// writes every other UTF-8 byte as `%XX` with upper-case hex. A space becomes `%20`, never `+`;
/// `+` becomes `%2B`. This is what the Square SDK produces (its allowed set is
/// `URLQueryAllowedCharacterSet` minus `:/?#[]@!$&'()*+,;=`), and what Swipe, SoftPOS and SumUp need.
///
/// Decoding is strict: a `%` not followed by two hex digits, or bytes that are not valid UTF-8 once
/// decoded, are errors (Foundation passes `%ZZ` through unchanged). `+` stays `+`.
///
/// This is the one encoder and the one decoder of Tender's URL text: request builders, the query reader and the
/// callback parsers all go through it. It is also one of the two places where Tender touches memory through
/// pointers (the other is `ByteScanning`): the encoder writes into memory with room for three bytes for each byte it
/// reads, and the decoder writes at most as many bytes as it reads, so that a request URL and a callback's data are
/// coded at a few instructions a byte. The `percent-decoding` and `query` fuzz targets, and every callback and
/// request target, run through it.
public enum PercentEncoding: Sendable {
    /// Percent-encodes text, keeping only the RFC 3986 unreserved characters.
    public static func encode(_ text: some StringProtocol) -> String {
        let output = ByteBuffer(capacity: 3 * text.utf8.count)
        output.appendPercentEncoded(String(text))
        return output.text
    }

    /// Decodes percent-escapes strictly.
    ///
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidPercentEscape`` when a `%` is not followed by
    ///   two hex digits, or ``QueryError/Code/invalidUTF8`` when the decoded bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol) throws -> String {
        try decode(ArraySlice(text.utf8))
    }

    /// Decodes percent-escapes in UTF-8 bytes cut from a `String` at ASCII delimiters (so whole UTF-8 sequences)
    /// strictly; see ``decode(_:)``.
    package static func decode(_ bytes: ArraySlice<UInt8>) throws(QueryError) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        // Valid UTF-8: checked by `decodedBytes`.
        return String(decoding: try decodedBytes(bytes), as: UTF8.self)
    }

    /// The bytes percent-escapes in `bytes` stand for (bytes cut from a `String` at ASCII delimiters, so whole UTF-8
    /// sequences), checked to be UTF-8; see ``decode(_:)``.
    package static func decodedBytes(_ bytes: ArraySlice<UInt8>) throws(QueryError) -> [UInt8] {
        var failure: Int?  // the offset of an invalid escape
        var escapedBeyondASCII = false
        let decoded = bytes.withUnsafeBufferPointer { input in
            hexValues.withUnsafeBufferPointer { hex in
                [UInt8](unsafeUninitializedCapacity: input.count) { output, count in
                    var (read, written) = (0, 0)
                    while read < input.count {
                        let byte = input[read]
                        guard byte == UInt8(ascii: "%") else {
                            output[written] = byte
                            (read, written) = (read + 1, written + 1)
                            continue
                        }
                        let (high, low) =
                            input.count - read > 2 ? (hex[Int(input[read + 1])], hex[Int(input[read + 2])]) : (16, 16)
                        guard high | low < 16 else {
                            failure = read
                            break
                        }
                        output[written] = high << 4 | low
                        escapedBeyondASCII = escapedBeyondASCII || high >= 8
                        (read, written) = (read + 3, written + 1)
                    }
                    count = written
                }
            }
        }
        if let failure {
            throw QueryError(
                .invalidPercentEscape,
                "Invalid percent-escape at offset \(failure): '%' must be followed by two hex digits."
            )
        }
        // The bytes between escapes are whole UTF-8 sequences; only an escape beyond ASCII can break the text.
        if escapedBeyondASCII, String(validating: decoded, as: UTF8.self) == nil {
            throw QueryError(.invalidUTF8, "The percent-decoded text is not valid UTF-8.")
        }
        return decoded
    }

    /// The value of each byte as a hex digit of either case, or 16 or more for any other byte.
    private static let hexValues: [UInt8] = (0...255).map { hexValue(UInt8($0)) ?? 0xFF }

    /// Whether a byte is in the RFC 3986 unreserved set: `A–Z a–z 0–9 - . _ ~`.
    @inline(__always)
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        // One bit per ASCII byte: `-` 0x2D, `.` 0x2E and `0`–`9` 0x30–0x39 below 0x40; `A`–`Z` 0x41–0x5A, `_` 0x5F,
        // `a`–`z` 0x61–0x7A and `~` 0x7E from 0x40. A test checks this against the set, byte by byte.
        let low: UInt64 = 1 << 0x2D | 1 << 0x2E | 0x3FF << 0x30
        let high: UInt64 =
            0x3FF_FFFF << (0x41 - 0x40) | 1 << (0x5F - 0x40) | 0x3FF_FFFF << (0x61 - 0x40) | 1 << (0x7E - 0x40)
        let mask = byte < 0x40 ? low : high
        return byte < 0x80 && mask >> UInt64(byte & 0x3F) & 1 == 1
    }

    /// The upper-case hex digit of a value below 16.
    @inline(__always)
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") - 10 + value
    }

    /// The value of a hex digit of either case, or `nil` for any other byte.
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Bytes written one piece at a time into memory the buffer owns, grown as it fills: what the JSON writer and the
/// request builders write into, and what a URL's text is made from.
///
/// It hands out no pointer: every write goes through a method that first makes room for it. An array does the same
/// job, but asks at each append whether its storage is shared; the few hundred appends of a request's JSON cost more
/// than the rest of its build that way.
package final class ByteBuffer {
    // The buffer is never shared across threads, and each access is a short read or write: dynamic exclusivity
    // checks, which a class's stored properties get at every access, would cost more than the writes themselves.
    /// The memory: `capacity` bytes, the first `count` of them written.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// How many bytes have been written.
    @exclusivity(unchecked) package private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// The text of the bytes written, which must be UTF-8 (they always are: whole strings, ASCII and escapes).
    package var text: String {
        String(decoding: UnsafeBufferPointer(start: storage, count: count), as: UTF8.self)
    }

    /// A copy of the bytes written.
    package var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        guard capacity - count < extra else { return }
        let grown = max(2 * capacity, count + extra)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.initialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// Appends one byte.
    @inline(__always)
    package func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    /// Appends bytes as they are.
    package func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends bytes as they are.
    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends a string's UTF-8 as it is.
    package func append(_ text: String) {
        var text = text  // a native string is read in place: `withUTF8` copies only a bridged one
        text.withUTF8 { append($0) }
    }

    /// Appends a literal's UTF-8 as it is.
    package func append(literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends the percent-encoded form of a string's UTF-8 (``PercentEncoding/encode(_:)``).
    package func appendPercentEncoded(_ text: String) {
        var text = text
        text.withUTF8 { appendPercentEncoded($0) }
    }

    /// Appends the percent-encoded form of another buffer's bytes.
    package func appendPercentEncoded(_ other: ByteBuffer) {
        appendPercentEncoded(UnsafeBufferPointer(start: other.storage, count: other.count))
    }

    /// Appends the percent-encoded form of `input`: the unreserved bytes as they are, every other byte as `%XX`.
    ///
    /// Each byte's encoded form is one entry of ``encodings``, stored whole (four bytes) and followed by the next one
    /// at its length: a load, a store and an add a byte.
    private func appendPercentEncoded(_ input: UnsafeBufferPointer<UInt8>) {
        reserve(3 * input.count + 1)  // the most it can take, and the fourth byte of the last store
        var next = UnsafeMutableRawPointer(storage + count)
        ByteBuffer.encodings.withUnsafeBufferPointer { encodings in
            for byte in input {
                let encoding = encodings[Int(byte)]
                next.storeBytes(of: encoding, as: UInt32.self)
                next += Int(UInt32(littleEndian: encoding) >> 24)
            }
        }
        count = next.assumingMemoryBound(to: UInt8.self) - storage
    }

    /// Each byte's percent-encoded form, in memory order: the byte itself or `%` and two upper-case hex digits, then
    /// the form's length (1 or 3) as the fourth byte.
    private static let encodings: [UInt32] = (0...255).map { value in
        let byte = UInt8(value)
        let form: [UInt8] =
            PercentEncoding.isUnreserved(byte)
            ? [byte, 0, 0, 1]
            : [UInt8(ascii: "%"), PercentEncoding.hexDigit(byte >> 4), PercentEncoding.hexDigit(byte & 0x0F), 3]
        return UInt32(littleEndian: form.reversed().reduce(0) { $0 << 8 | UInt32($1) })
    }
}
