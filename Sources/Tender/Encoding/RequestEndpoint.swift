/// Where a POS app takes its requests, `scheme://host/path?query`: the scheme from the app's ``POSApp``
/// declaration, the host and path from the provider's request type. Request builders write its ``prefix``;
/// request decoders read a URL's query with ``query(of:)``.
package struct RequestEndpoint: Sendable, Hashable {
    /// The POS app.
    package let app: POSApp
    /// The host (the authority), such as `charge`.
    package let host: String
    /// The path, such as `/1.0.0/`.
    package let path: String
    /// How messages name a request, such as `A Swipe charge request`.
    package let name: String
    /// Whether ``query(of:)`` takes the host in any case of its ASCII letters (SumUp's reader lowercases it).
    package let readsHostInAnyCase: Bool
    /// `scheme://host/path?`, the text every request URL starts with.
    package let prefix: String

    package init(app: POSApp, host: String, path: String, name: String, readsHostInAnyCase: Bool = false) {
        self.app = app
        self.host = host
        self.path = path
        self.name = name
        self.readsHostInAnyCase = readsHostInAnyCase
        prefix = app.urlScheme + "://" + host + path + "?"
    }

    // MARK: Reading a request

    /// The query of a request URL, after checking its size (``RequestURLLimit``), scheme (compared
    /// case-insensitively), host (exactly, or in any case when ``readsHostInAnyCase``) and path.
    package func query(of urlString: String) throws(URLReadingError) -> QueryParameters {
        guard urlString.utf8.count <= RequestURLLimit.maximumBytes else {
            throw URLReadingError("The request URL is longer than 64 KiB.")
        }
        let parts: URLParts
        do { parts = try URLParts(urlString) } catch { throw URLReadingError("This is not a URL: \(error)") }
        guard parts.scheme.lowercased() == app.urlScheme else {
            throw URLReadingError(
                "\(name) starts with \(app.urlScheme)://, not \(UntrustedText.safe(parts.scheme))://."
            )
        }
        guard let authority = parts.authority,
            readsHostInAnyCase ? authority.lowercased() == host.lowercased() : authority == host, parts.path == path
        else {
            throw URLReadingError("\(name) goes to \(app.urlScheme)://\(host)\(path).")
        }
        do {
            return try QueryParameters(checking: QueryParameters.pairs(ofPercentEncodedQuery: parts.query ?? ""))
        } catch {
            throw URLReadingError("The request's query cannot be read: \(error)")
        }
    }

    /// Each parameter's value by name, for a request whose parameters are all known and each given once, with a
    /// value (Swipe, SumUp).
    /// - Parameter unknown: the message for a name that is not in `allowed`.
    package func singleValues(
        _ query: QueryParameters,
        allowed: Set<String>,
        unknown: (String) -> String
    ) throws(URLReadingError) -> [String: String] {
        var values: [String: String] = [:]
        for item in query {
            guard allowed.contains(item.name) else { throw URLReadingError(unknown(item.name)) }
            guard let value = item.value else { throw URLReadingError("The parameter '\(item.name)' has no value.") }
            guard values.updateValue(value, forKey: item.name) == nil else {
                throw URLReadingError("The parameter '\(item.name)' appears more than once; send it once.")
            }
        }
        return values
    }

    /// The value of the one parameter a request URL carries (Square's `data`, SoftPOS's `payload`): present once,
    /// with a value, and nothing else beside it.
    package func onlyValue(named parameter: String, of urlString: String) throws(URLReadingError) -> String {
        let query = try query(of: urlString)
        guard query.allSatisfy({ $0.name == parameter }) else {
            throw URLReadingError("\(name) has exactly one query parameter, \(parameter).")
        }
        guard query.count <= 1 else {
            throw URLReadingError(
                "The query parameter '\(parameter)' appears more than once; it must appear exactly once."
            )
        }
        guard let value = query.first?.value, !value.isEmpty else {
            throw URLReadingError("The request has no \(parameter) parameter.")
        }
        return value
    }

    // MARK: Writing a request

    /// The URL of a request whose parameters go in a query (Swipe, SumUp): ``prefix`` followed by the parameters'
    /// ``QueryParameters/percentEncodedQuery``, or `tooLong`'s error (from the URL's length) when it is over 64 KiB.
    package func urlString<Failure: Error>(
        _ parameters: QueryParameters,
        _ tooLong: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        var url = Array(prefix.utf8)
        parameters.write(to: &url)
        return try RequestURLLimit.checked(String(decoding: url, as: UTF8.self), tooLong)
    }

    /// The URL of a request whose one parameter holds JSON (Square's `data`, SoftPOS's `payload`): ``prefix``,
    /// `name=` and the JSON text percent-encoded, or `tooLong`'s error (from the URL's length) when it is over 64 KiB.
    package func urlString<Failure: Error>(
        parameter name: String,
        json: JSONWriter,
        _ tooLong: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        var url = Array(prefix.utf8)
        PercentEncoding.append(name, percentEncodedTo: &url)
        url.append(UInt8(ascii: "="))
        PercentEncoding.append(bytes: json.bytes, percentEncodedTo: &url)
        return try RequestURLLimit.checked(String(decoding: url, as: UTF8.self), tooLong)
    }
}

/// Why a request URL could not be read. The message never contains the URL.
package struct URLReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for people.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
