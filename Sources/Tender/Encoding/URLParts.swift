/// The parts of an absolute URL string, split per RFC 3986 §3 without normalising anything.
///
/// Tender splits URLs itself rather than through `URLComponents` so that parsing behaves the same on
/// every platform and never "repairs" what it was given (Foundation on Linux turns `%ZZ` into `%25ZZ`).
/// Splitting works on Unicode scalars, so a combining mark after `?` cannot hide the delimiter.
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
        var rest = Substring(string).unicodeScalars
        guard let colon = rest.firstIndex(of: ":") else {
            throw QueryError(.invalidURL, "The URL has no scheme; write it as scheme://host/path.")
        }
        let scheme = rest[..<colon]
        guard URLParts.isValidScheme(scheme) else {
            throw QueryError(
                .invalidURL,
                "The URL's scheme is not valid: it must start with a letter and use only letters, digits, '+', '-', '.'."
            )
        }
        self.scheme = String(scheme)
        rest = rest[rest.index(after: colon)...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        } else {
            query = nil
        }
        if rest.starts(with: "//".unicodeScalars) {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            path = String(rest[end...])
        } else {
            authority = nil
            path = String(rest)
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

    private static func isValidScheme(_ scheme: Substring.UnicodeScalarView) -> Bool {
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { scalar in
            isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
        }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
