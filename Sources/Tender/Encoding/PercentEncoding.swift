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
/// callback parsers all go through it.
public enum PercentEncoding: Sendable {
    /// Percent-encodes text, keeping only the RFC 3986 unreserved characters.
    public static func encode(_ text: some StringProtocol) -> String {
        var output: [UInt8] = []
        append(text, percentEncodedTo: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the percent-encoded UTF-8 of `text` to `output` (``encode(_:)``): for the builders of a request URL,
    /// which write its parts one after another into one text.
    package static func append(_ text: some StringProtocol, percentEncodedTo output: inout [UInt8]) {
        append(bytes: Array(text.utf8), percentEncodedTo: &output)
    }

    /// Appends the percent-encoded form of `input`, UTF-8 bytes, to `output`.
    package static func append(bytes input: [UInt8], percentEncodedTo output: inout [UInt8]) {
        output.reserveCapacity(output.count + 3 * input.count)
        for byte in input {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// Decodes percent-escapes strictly.
    ///
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidPercentEscape`` when a `%` is not followed by
    ///   two hex digits, or ``QueryError/Code/invalidUTF8`` when the decoded bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol) throws -> String {
        try decoded(text)
    }

    /// ``decode(_:)`` with its one error type.
    package static func decoded(_ text: some StringProtocol) throws(QueryError) -> String {
        try decoded(bytes: Array(text.utf8)[...])
    }

    /// ``decode(_:)`` of UTF-8 bytes cut from a `String` at ASCII delimiters, and so whole UTF-8.
    package static func decoded(bytes: ArraySlice<UInt8>) throws(QueryError) -> String {
        // Text without a `%` is its own decoding.
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] != UInt8(ascii: "%") {
                output.append(bytes[index])
                index += 1
            } else if index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                throw QueryError(
                    .invalidPercentEscape,
                    "Invalid percent-escape at offset \(index - bytes.startIndex): '%' must be followed by two hex digits."
                )
            }
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw QueryError(.invalidUTF8, "The percent-decoded text is not valid UTF-8.")
        }
        return text
    }

    /// Whether a byte is in the RFC 3986 unreserved set: `A–Z a–z 0–9 - . _ ~`.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The upper-case hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") - 10 + value
    }

    /// The value of a hex digit of either case, or `nil` for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
