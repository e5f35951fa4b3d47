/// The parts of an absolute URL string, split per RFC 3986 §3 without normalising anything.
///
/// Tender splits URLs itself rather than through `URLComponents` so that parsing behaves the same on
/// every platform and never "repairs" what it was given (Foundation on Linux turns `%ZZ` into `%25ZZ`).
/// ``Ranges`` is the one splitter: every URL Tender reads, a request or a callback, is cut by it.
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
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when there is no valid scheme.
    package init(_ string: String) throws {
        let bytes = Array(string.utf8)
        self.init(bytes, try Ranges(bytes))
    }

    /// The parts at `ranges` of `bytes`.
    package init(_ bytes: [UInt8], _ ranges: Ranges) {
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        scheme = text(ranges.scheme)
        authority = ranges.authority.map(text)
        path = text(ranges.path)
        query = ranges.query.map(text)
        fragment = ranges.fragment.map(text)
    }

    /// Creates parts directly.
    package init(scheme: String, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Where the parts of a URL are in its UTF-8 bytes.
    ///
    /// The delimiters (`:`, `#`, `?`, `/`, `@`) are ASCII, and an ASCII byte is never part of a longer UTF-8
    /// sequence, so cutting the bytes finds exactly the delimiters a walk over Unicode scalars would: a combining
    /// mark after `?` cannot hide it, and every part is whole UTF-8.
    package struct Ranges: Sendable, Hashable {
        /// The scheme, before the first `:`.
        package var scheme: Range<Int>
        /// The authority after `//`, or `nil` without `//`.
        package var authority: Range<Int>?
        /// The path, possibly empty.
        package var path: Range<Int>
        /// The query after the first `?` before the fragment, or `nil`.
        package var query: Range<Int>?
        /// The fragment after the first `#`, or `nil`.
        package var fragment: Range<Int>?

        /// Splits the UTF-8 bytes of a URL.
        /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when there is no `:`, or the scheme before
        ///   it does not start with a letter and hold only letters, digits, `+`, `-` and `.`.
        package init(_ bytes: [UInt8]) throws(QueryError) {
            guard let colon = ByteScanning.firstIndex(of: UInt8(ascii: ":"), in: bytes, bytes.indices) else {
                throw QueryError(.invalidURL, "The URL has no scheme; write it as scheme://host/path.")
            }
            guard colon > 0, URLParts.isLetter(bytes[0]), bytes[..<colon].allSatisfy(URLParts.isSchemeByte) else {
                throw QueryError(
                    .invalidURL,
                    "The URL's scheme is not valid: it must start with a letter and use only letters, digits, '+', '-', '.'."
                )
            }
            scheme = 0..<colon
            var end = bytes.endIndex
            let afterScheme = colon + 1
            if let hash = ByteScanning.firstIndex(of: UInt8(ascii: "#"), in: bytes, afterScheme..<end) {
                fragment = (hash + 1)..<end
                end = hash
            }
            if let question = ByteScanning.firstIndex(of: UInt8(ascii: "?"), in: bytes, afterScheme..<end) {
                query = (question + 1)..<end
                end = question
            }
            if end - afterScheme >= 2, bytes[afterScheme] == UInt8(ascii: "/"),
                bytes[afterScheme + 1] == UInt8(ascii: "/")
            {
                let slash = ByteScanning.firstIndex(of: UInt8(ascii: "/"), in: bytes, (afterScheme + 2)..<end) ?? end
                authority = (afterScheme + 2)..<slash
                path = slash..<end
            } else {
                path = afterScheme..<end
            }
        }

        /// The host within the authority (``URLParts/host``); `nil` without an authority.
        package func host(in bytes: [UInt8]) -> Range<Int>? {
            authority.map { URLParts.host(of: bytes[$0]) }
        }

        /// The scheme, authority and path: the URL before its query and fragment.
        package var endpoint: Range<Int> { scheme.lowerBound..<path.upperBound }

        /// Whether the host, or one of the path's components (cut at each `/`, as `NSURL`'s path components are), is
        /// exactly `component`.
        package func hasComponent(_ component: String, in bytes: [UInt8]) -> Bool {
            let component = component.utf8
            if let host = host(in: bytes), bytes[host].elementsEqual(component) { return true }
            return bytes[path].split(separator: UInt8(ascii: "/")).contains { $0.elementsEqual(component) }
        }
    }

    /// The host within an authority's bytes: without user information (up to the last `@`) and port (after the last
    /// `:`, unless the host is an IP literal in `[…]`).
    static func host(of authority: ArraySlice<UInt8>) -> Range<Int> {
        var start = authority.startIndex
        var end = authority.endIndex
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        let rest = authority[start..<end]
        if rest.first == UInt8(ascii: "[") {
            if let close = rest.firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
        } else if let colon = rest.lastIndex(of: UInt8(ascii: ":")) {
            end = colon
        }
        return start..<end
    }

    /// The host: the authority without user information and port; `nil` without an authority.
    package var host: String? {
        guard let authority else { return nil }
        let bytes = Array(authority.utf8)
        return String(decoding: bytes[URLParts.host(of: bytes[...])], as: UTF8.self)
    }

    /// `authority` with its host (after any user information, before any port) replaced by `host`.
    package static func replacingHost(of authority: String, with host: String) -> String {
        let bytes = Array(authority.utf8)
        let range = URLParts.host(of: bytes[...])
        return String(decoding: bytes[..<range.lowerBound], as: UTF8.self) + host
            + String(decoding: bytes[range.upperBound...], as: UTF8.self)
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

    /// The endpoint of a URL string (``endpoint``): the text before its query and fragment. `nil` when it has no
    /// valid scheme (where ``init(_:)`` throws).
    package static func endpoint(of string: String) -> String? {
        let bytes = Array(string.utf8)
        guard let ranges = try? Ranges(bytes) else { return nil }
        return String(decoding: bytes[ranges.endpoint], as: UTF8.self)
    }

    /// Whether a string can be split at all: whether it starts with a valid scheme and `:` (``init(_:)`` does not
    /// throw).
    package static func splits(_ string: String) -> Bool {
        (try? Ranges(Array(string.utf8))) != nil
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
    static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

extension URLParts {
    /// A POS app's answer: `url` with `encodedQuery` appended to its own query (after `&` when it has one), or
    /// `error`'s error when `url` has no valid scheme.
    package static func appending<Failure: Error>(
        query encodedQuery: String,
        to url: String,
        _ error: () -> Failure
    ) throws(Failure) -> String {
        guard var parts = try? URLParts(url) else { throw error() }
        parts.appendQuery(encodedQuery)
        return parts.string
    }
}
