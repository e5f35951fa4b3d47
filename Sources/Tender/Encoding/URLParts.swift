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
        let utf8 = string.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw QueryError(.invalidURL, "The URL has no scheme; write it as scheme://host/path.")
        }
        guard URLParts.isValidScheme(utf8[..<colon]) else {
            throw QueryError(
                .invalidURL,
                "The URL's scheme is not valid: it must start with a letter and use only letters, digits, '+', '-', '.'."
            )
        }
        scheme = URLParts.text(utf8[..<colon])
        var rest = utf8[utf8.index(after: colon)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = URLParts.text(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = URLParts.text(rest[rest.index(after: question)...])
            rest = rest[..<question]
        } else {
            query = nil
        }
        if rest.starts(with: "//".utf8) {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            authority = URLParts.text(rest[..<end])
            path = URLParts.text(rest[end...])
        } else {
            authority = nil
            path = URLParts.text(rest)
        }
    }

    /// The text of bytes cut at ASCII delimiters: always whole UTF-8 sequences, copied as they are.
    private static func text(_ bytes: Substring.UTF8View) -> String {
        String(decoding: bytes, as: UTF8.self)
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
        guard var host = authority.map({ Substring($0).unicodeScalars }) else { return nil }
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.first == "[" {
            if let close = host.firstIndex(of: "]") { host = host[...close] }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return String(host)
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

    /// Appends an already percent-encoded `name=value` pair to the query (with `&` when it has one).
    package mutating func appendQuery(_ encodedPair: String) {
        if let query, !query.isEmpty {
            self.query = query + "&" + encodedPair
        } else {
            self.query = encodedPair
        }
    }

    private static func isValidScheme(_ scheme: Substring.UTF8View) -> Bool {
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { byte in
            isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
