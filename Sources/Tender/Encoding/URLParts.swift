/// The parts of an absolute URL string, split per RFC 3986 §3 without normalising anything: Tender's one URL
/// splitter, for every URL it reads, a request or a callback.
///
/// Tender splits URLs itself rather than through `URLComponents` so that parsing behaves the same on
/// every platform and never "repairs" what it was given (Foundation on Linux turns `%ZZ` into `%25ZZ`).
/// The delimiters (`:`, `#`, `?`, `/`, `@`) are ASCII, and an ASCII byte is never part of a longer UTF-8 sequence,
/// so cutting the UTF-8 finds exactly the delimiters a walk over Unicode scalars would: a combining mark after `?`
/// cannot hide it, and every part is whole UTF-8.
package struct URLParts: Sendable, Hashable {
    /// The scheme, as written (`my-app`).
    package var scheme: String
    /// The authority after `//` (`user@host:port`), or `nil` when the URL has no `//`.
    package var authority: String?
    /// The path, possibly empty.
    package var path: String
    /// The query after the first `?` before the fragment, without the fragment; `nil` when there is no `?`.
    package var query: String?
    /// The fragment after the first `#`; `nil` when there is no `#`.
    package var fragment: String?

    /// Splits a URL string.
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when there is no `:`, or the scheme before it does
    ///   not start with a letter and hold only letters, digits, `+`, `-` and `.`.
    package init(_ string: String) throws(QueryError) {
        let bytes = Array(string.utf8)
        func text(_ part: ArraySlice<UInt8>) -> String { String(decoding: part, as: UTF8.self) }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            throw QueryError(.invalidURL, "The URL has no scheme; write it as scheme://host/path.")
        }
        guard colon > 0, URLParts.isLetter(bytes[0]), bytes[..<colon].allSatisfy(URLParts.isSchemeByte) else {
            throw QueryError(
                .invalidURL,
                "The URL's scheme is not valid: it must start with a letter and use only letters, digits, '+', '-', '.'."
            )
        }
        scheme = text(bytes[..<colon])
        var rest = bytes[(colon + 1)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = text(rest[(hash + 1)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = text(rest[(question + 1)...])
            rest = rest[..<question]
        }
        if rest.starts(with: "//".utf8) {
            let afterSlashes = rest.dropFirst(2)
            let slash = afterSlashes.firstIndex(of: UInt8(ascii: "/")) ?? afterSlashes.endIndex
            authority = text(afterSlashes[..<slash])
            path = text(afterSlashes[slash...])
        } else {
            path = text(rest)
        }
    }

    /// Creates parts directly.
    package init(scheme: String, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// The host: the authority without user information (up to the last `@`) and port (after the last `:`, unless
    /// the host is an IP literal in `[…]`); `nil` without an authority.
    package var host: String? {
        authority.map { URLParts.splitHost(of: $0).host }
    }

    /// An authority cut around its host, at its ASCII delimiters: what comes before, the host, what comes after.
    private static func splitHost(of authority: String) -> (before: String, host: String, after: String) {
        let bytes = Array(authority.utf8)
        var start = 0
        var end = bytes.count
        if let at = bytes.lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        let rest = bytes[start..<end]
        if rest.first == UInt8(ascii: "[") {
            if let close = rest.firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
        } else if let colon = rest.lastIndex(of: UInt8(ascii: ":")) {
            end = colon
        }
        func text(_ part: ArraySlice<UInt8>) -> String { String(decoding: part, as: UTF8.self) }
        return (text(bytes[..<start]), text(bytes[start..<end]), text(bytes[end...]))
    }

    /// `authority` with its host (after any user information, before any port) replaced by `host`.
    package static func replacingHost(of authority: String, with host: String) -> String {
        let parts = splitHost(of: authority)
        return parts.before + host + parts.after
    }

    /// Whether the host, or one of the path's components (cut at each `/` byte, as `NSURL`'s path components are),
    /// is exactly `component`, byte for byte.
    package func hasComponent(_ component: String) -> Bool {
        let wanted = Array(component.utf8)
        if let host, host.utf8.elementsEqual(wanted) { return true }
        return path.utf8.split(separator: UInt8(ascii: "/")).contains { $0.elementsEqual(wanted) }
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
        (try? URLParts(string))?.endpoint
    }

    /// Whether a string can be split at all: whether it starts with a valid scheme and `:` (``init(_:)`` does not
    /// throw).
    package static func splits(_ string: String) -> Bool {
        (try? URLParts(string)) != nil
    }

    /// Appends an already percent-encoded `name=value` pair to the query (with `&` when it has one).
    package mutating func appendQuery(_ encodedPair: String) {
        if let query, !query.isEmpty {
            self.query = query + "&" + encodedPair
        } else {
            self.query = encodedPair
        }
    }

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

    /// Whether a byte may appear in a scheme: an ASCII letter or digit, `+`, `-` or `.`.
    static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
