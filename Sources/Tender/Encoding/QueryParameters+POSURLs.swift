/// Why a URL from outside could not be read. The message never contains the URL.
package struct URLReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for people.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

extension QueryParameters {
    /// The query of a POS app's request URL, after checking its size (64 KiB), scheme (compared
    /// case-insensitively), host and path.
    /// - Parameter name: how messages name the request, such as `A Swipe charge request`.
    package init(
        requestURLString urlString: String,
        scheme: String,
        authority: String,
        path: String,
        name: String
    ) throws(URLReadingError) {
        guard urlString.utf8.count <= RequestURLLimit.maximumBytes else {
            throw URLReadingError("The request URL is longer than 64 KiB.")
        }
        let parts: URLParts
        do { parts = try URLParts(urlString) } catch { throw URLReadingError("This is not a URL: \(error)") }
        guard parts.scheme.lowercased() == scheme else {
            throw URLReadingError(
                "\(name) starts with \(scheme)://, not \(CardNumberScreen.excerpt(parts.scheme))://."
            )
        }
        guard parts.authority == authority, parts.path == path else {
            throw URLReadingError("\(name) goes to \(scheme)://\(authority)\(path).")
        }
        do {
            try self.init(percentEncodedQuery: parts.query ?? "")
        } catch {
            throw URLReadingError("The request's query cannot be read: \(error)")
        }
    }

    /// The query of a callback URL, read strictly (SEC-6); a URL longer than `maximumBytes` is refused.
    package init(callbackURLString urlString: String, maximumBytes: Int) throws(URLReadingError) {
        guard urlString.utf8.count <= maximumBytes else {
            throw URLReadingError("The callback URL is longer than \(maximumBytes / 1024) KiB.")
        }
        do {
            try self.init(percentEncodedQuery: try URLParts(urlString).query ?? "")
        } catch {
            throw URLReadingError("The callback URL cannot be read: \(error)")
        }
    }

    /// Each parameter's value by name, for a request whose parameters are all known and each given once, with a
    /// value.
    /// - Parameter unknown: the message for a name that is not in `allowed`.
    package func singleValues(
        allowed: Set<String>,
        unknown: (String) -> String
    ) throws(URLReadingError) -> [String: String] {
        var values: [String: String] = [:]
        for item in items {
            guard allowed.contains(item.name) else { throw URLReadingError(unknown(item.name)) }
            guard let value = item.value else { throw URLReadingError("The parameter '\(item.name)' has no value.") }
            guard values.updateValue(value, forKey: item.name) == nil else {
                throw URLReadingError("The parameter '\(item.name)' appears more than once; send it once.")
            }
        }
        return values
    }
}

/// The longest request URL Tender reads, and so the longest it builds: a request it built always decodes again.
package enum RequestURLLimit {
    /// 64 KiB of UTF-8.
    package static let maximumBytes = 64 * 1024

    /// The URL a builder made, or the provider's error (made by `error` from a message) when it is too long.
    package static func checked<Failure: Error>(
        _ url: String,
        _ error: (String) -> Failure
    ) throws(Failure) -> String {
        let bytes = url.utf8.count
        guard bytes <= maximumBytes else {
            throw error(
                "The request URL would be \(bytes) bytes, over Tender's 64 KiB limit: shorten the free-text fields "
                    + "(notes, title, e-mail) or the callback URL."
            )
        }
        return url
    }
}
