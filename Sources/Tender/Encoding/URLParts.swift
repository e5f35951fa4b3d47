/// The parts of an absolute URL string, split per RFC 3986 §3 without normalising anything.
///
/// Tender splits URLs itself rather than through `URLComponents` so that parsing behaves the same on
/// every platform and never "repairs" what it was given (Foundation on Linux turns `%ZZ` into `%25ZZ`).
/// Splitting finds delimiters by Unicode scalar (never by `Character`), so a combining mark after `?` cannot hide
/// the delimiter.
package struct URLParts: Sendable, Hashable {
    /// The scheme, as written (`my-app`).
    package var scheme: String
    /// The authority after `//` (`user@host:port`), or `nil` when the URL has no `//`.
    package var authority: String?
    /// The path, possibly empty.
    package var path: String
    /// The query after `?`, without the fragment; `nil` when there is no `?`.
    package var query: String?
    /// The fragment after `#`; `nil` when there is no `#`.
    package var fragment: String?

    /// Splits a URL string.
    ///
    /// The delimiters (`:`, `#`, `?`, `/`) are ASCII, and an ASCII byte is never part of a longer UTF-8 sequence,
    /// so splitting the UTF-8 bytes finds exactly the delimiters a walk over Unicode scalars would, and a
    /// combining mark after `?` cannot hide it. Bytes are several times faster to search than scalars.
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when there is no valid scheme.
    package init(_ string: String) throws {
        var string = string
        string.makeContiguousUTF8()  // a no-op for native strings, which is nearly every string
        guard let parts = try string.utf8.withContiguousStorageIfAvailable({ try URLParts(bytes: $0) }) else {
            preconditionFailure("a contiguous UTF-8 string has contiguous storage")
        }
        self = parts
    }

    /// Splits the UTF-8 bytes of a URL string (``URLByteRanges``), then copies each part.
    private init(bytes: UnsafeBufferPointer<UInt8>) throws {
        let ranges = try URLByteRanges(splitting: bytes)
        func text(_ range: Range<Int>) -> String { URLParts.text(bytes[range]) }
        scheme = text(ranges.scheme)
        authority = ranges.authority.map(text)
        path = text(ranges.path)
        query = ranges.query.map(text)
        fragment = ranges.fragment.map(text)
    }

    /// The position of the `:` that ends the scheme of a URL's UTF-8 bytes: the first `:`, after a valid scheme.
    ///
    /// This is the check that decides whether a string can be split at all; the fast paths use it to decide
    /// exactly as ``init(_:)`` does.
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when there is no `:` or the scheme is not valid.
    package static func schemeEnd(in bytes: UnsafeBufferPointer<UInt8>) throws -> Int {
        // The common case in one pass: scheme bytes up to the first byte that is not one, which must be `:` (not
        // itself a scheme byte, so the first `:`). Otherwise find out which error it is.
        let end = ByteWords.firstMarked(in: bytes, from: 0, to: bytes.count) {
            ~ByteWords.schemeLanes($0) & ByteWords.allLanes
        }
        if end > 0, end < bytes.count, bytes[end] == UInt8(ascii: ":"), isLetter(bytes[0]) { return end }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            throw QueryError(.invalidURL, "The URL has no scheme; write it as scheme://host/path.")
        }
        guard colon > 0, isLetter(bytes[0]), bytes[..<colon].allSatisfy(isSchemeByte) else {
            throw QueryError(
                .invalidURL,
                "The URL's scheme is not valid: it must start with a letter and use only letters, digits, '+', '-', '.'."
            )
        }
        return colon
    }

    /// The text of bytes cut at ASCII delimiters: always whole UTF-8 sequences, copied as they are.
    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// Creates parts directly.
    package init(scheme: String, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// The host: the authority without user information and port; `nil` without an authority.
    package var host: String? {
        guard var authority else { return nil }
        return authority.withUTF8 { bytes in
            URLParts.text(bytes[URLByteRanges.host(of: 0..<bytes.count, in: bytes)])
        }
    }

    /// The URL string again, exactly as split.
    package var string: String {
        var result = scheme + ":"
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// The URL without query and fragment: what identifies a callback endpoint.
    package var endpoint: String {
        var copy = self
        copy.query = nil
        copy.fragment = nil
        return copy.string
    }

    /// The endpoint of a URL string (``endpoint``) without splitting it into parts: the text before its query and
    /// fragment. `nil` when it has no valid scheme (where ``init(_:)`` throws).
    package static func endpoint(of string: String) -> String? {
        var string = string
        return string.withUTF8 { bytes in
            // The parts are contiguous: scheme, `:`, `//` and the authority when there is one, then the path.
            URLByteRanges(bytes).map { URLParts.text(bytes[..<$0.path.upperBound]) }
        }
    }

    /// Whether a string can be split at all: whether it starts with a valid scheme and `:` (``init(_:)`` does not
    /// throw).
    package static func splits(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { URLByteRanges($0) != nil }
    }

    /// Appends an already percent-encoded `name=value` pair to the query (with `&` when it has one).
    package mutating func appendQuery(_ encodedPair: String) {
        if let query, !query.isEmpty {
            self.query = query + "&" + encodedPair
        } else {
            self.query = encodedPair
        }
    }

    /// Whether a byte may appear in a scheme: an ASCII letter or digit, `+`, `-` or `.`.
    @inline(__always)
    static func isSchemeByte(_ byte: UInt8) -> Bool {
        // `+` 0x2B, `-` 0x2D, `.` 0x2E and `0`–`9` 0x30–0x39 below 0x40; `A`–`Z` 0x41–0x5A and `a`–`z` 0x61–0x7A
        // from 0x40.
        let low: UInt64 = 1 << 0x2B | 1 << 0x2D | 1 << 0x2E | 0x3FF << 0x30
        let high: UInt64 = 0x3FF_FFFF << (0x41 - 0x40) | 0x3FF_FFFF << (0x61 - 0x40)
        switch byte {
        case 0..<0x40: return low >> UInt64(byte) & 1 == 1
        case 0x40..<0x80: return high >> UInt64(byte - 0x40) & 1 == 1
        default: return false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
